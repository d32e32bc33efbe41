import { graphqlServer } from '@hono/graphql-server';
import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { buildSchema, GraphQLError } from 'graphql';
import type { LedgerContext } from '../../application/context.js';
import { obtainToken } from '../../application/tokens.js';
import { DomainError } from '../../domain/errors.js';
import type { SharedLimits } from '../../store/shared-limits.js';
import type { AppEnv } from '../env.js';
import { DomainErrorWithHeaders } from '../errors.js';
import { maxRootFields } from '../graphql-root-fields.js';
import { clientAddress, tokenRequestLimit } from '../token-rate-limit.js';

/** Root fields one operation may select, aliases and fragments included: one request cannot try many keys. */
export const MAX_ROOT_FIELDS = 3;

/** What a resolver tells the middleware that shapes the answer: the headers of a refusal that is not a 200. */
interface GraphqlEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { throttledHeaders: Readonly<Record<string, string>> | undefined };
}

/**
 * The platform's token mutation (spec 5). Errors follow GraphQL conventions
 * (HTTP 200, `errors[]`), each with `extensions.code` set to our stable code;
 * the field is nullable so that a refused token is `data.obtainToken: null`
 * with an error, not a failed request.
 */
export const graphqlSchemaSource = /* GraphQL */ `
  input ObtainTokenInput {
    "An Organisation API key issued by the platform operator."
    APIKey: String
    "A refresh token from an earlier obtainToken call."
    refreshToken: String
  }

  type ObtainToken {
    "Signed JWT, valid 60 minutes; send it as Authorization: Token <token>."
    token: String!
    "Exchange it for a new token within 7 days."
    refreshToken: String!
    "Unix timestamp (seconds) at which the refresh token expires."
    refreshExpiresIn: Int!
  }

  type Query {
    "Always true; GraphQL requires a query type."
    ok: Boolean!
  }

  type Mutation {
    obtainToken(input: ObtainTokenInput!): ObtainToken
  }
`;

export function graphqlRoutes(ctx: LedgerContext, tokenSecret: string, limits: Pick<SharedLimits, 'takeWindowStart'>) {
  const schema = buildSchema(graphqlSchemaSource);
  const limit = tokenRequestLimit(ctx.read, limits);
  const rootResolver = (c: Context<GraphqlEnv>) => ({
    ok: () => true,
    obtainToken: async ({ input }: { input: { APIKey?: string | null; refreshToken?: string | null } }) => {
      try {
        await limit.fromAddress(clientAddress(c));
        return await obtainToken(ctx, tokenSecret, { apiKey: input.APIKey, refreshToken: input.refreshToken }, limit.forKey);
      } catch (error) {
        if (error instanceof DomainErrorWithHeaders && error.code === 'throttled') c.set('throttledHeaders', error.headers);
        if (error instanceof DomainError) {
          throw new GraphQLError(error.detail, { extensions: { code: error.code } });
        }
        throw error;
      }
    },
  });
  return new Hono<GraphqlEnv>().post(
    '/',
    requestErrorsAre400,
    throttledIs429,
    bodyOnly,
    graphqlServer<GraphqlEnv>({ schema, rootResolver, validationRules: [maxRootFields(MAX_ROOT_FIELDS)] }),
  );
}

/**
 * A throttled obtainToken is answered 429 with `Retry-After`, as every rate limit of the service is,
 * the body staying GraphQL's (`data.obtainToken: null`, the error's `extensions.code` `throttled`), so
 * that a client that only looks at the status backs off too.
 */
const throttledIs429 = createMiddleware<GraphqlEnv>(async (c, next) => {
  await next();
  const headers = c.get('throttledHeaders');
  if (headers && c.res.status === 200) {
    c.res = new Response(c.res.body, { status: 429, headers: c.res.headers });
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  }
});

/**
 * The GraphQL request is its JSON body, as the document says. @hono/graphql-server would also take
 * `query`, `variables` and `operationName` from the URL, ahead of the body's: variables carry an API key,
 * and URLs end up in proxies' logs. The server is handed the request without its query string.
 */
const bodyOnly = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  if (url.search !== '') {
    url.search = '';
    const raw = c.req.raw;
    c.req.raw = new Request(url, { method: raw.method, headers: raw.headers, body: await raw.arrayBuffer(), signal: raw.signal });
  }
  await next();
});

/**
 * @hono/graphql-server answers 500 when execution returns no `data` at all,
 * which (our schema being valid and obtainToken nullable) only happens for a
 * request error: variables missing or of the wrong type, an unknown operation
 * name. Those are the caller's mistakes: 400, with GraphQL's `errors` body.
 */
const requestErrorsAre400 = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  // c.error is set when something threw: that 500 is ours and stays one.
  if (c.res.status === 500 && !c.error) c.res = new Response(c.res.body, { status: 400, headers: c.res.headers });
});
