import { z } from 'zod';
import { serviceConfigSettings } from '../../domain/service-config/service-config-settings.js';
import { MAX_ROOT_FIELDS } from '../routes/graphql.js';
import { BODY_ERRORS, errorResponses, HEADERS_TOO_LARGE, type Schemas } from './common.js';

/** The operations outside `/v1/data-import/`: no `Token` needed. */
export function publicOperationDocs(schemas: Schemas) {
  const jsonRequest = schemas.request.bind(schemas);
  const jsonAnswer = schemas.answer.bind(schemas);
  return [
  {
    method: 'get',
    path: '/healthz',
    spec: {
      operationId: 'health',
      tags: ['Service'],
      summary: 'Liveness',
      description:
        '200 while the process serves, whether or not the database answers (a database outage is no reason to restart the instance: ' +
        'it serves again by itself once the database is back, and `/readyz` takes it out of the load balancer meanwhile); ' +
        '503 `starting` while the instance starts (migrations, start-up projection rebuilds: ' +
        'give the orchestrator a start-up probe on it). Unlike `/readyz`, it stays 200 while the instance drains after SIGTERM.',
      security: [],
      responses: {
        200: jsonAnswer(z.object({ status: z.literal('ok') }), 'Up.'),
        503: jsonAnswer(z.object({ status: z.literal('starting'), detail: z.string() }), 'The instance is still starting.'),
        ...HEADERS_TOO_LARGE,
      },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    spec: {
      operationId: 'readiness',
      // A tag of its own, listed after the data-import operations: the reference page opens on them.
      tags: ['Probes'],
      summary: 'Readiness',
      description:
        "The load balancer's probe: 200 once migrations and start-up projection rebuilds are done and the database answers; " +
        '503 while the instance starts, while it drains after SIGTERM (it still answers what it is sent, for `LEDGER_DRAIN_DELAY_MS`), ' +
        'or when the database does not answer. Metrics are not served on this port: see `LEDGER_METRICS_PORT`.',
      security: [],
      responses: {
        200: jsonAnswer(z.object({ status: z.literal('ready') }), 'Ready for traffic.'),
        503: jsonAnswer(
          z.object({ status: z.enum(['starting', 'draining', 'unavailable']), detail: z.string() }),
          'Not ready: starting, draining, or the database is not reachable (`Retry-After: 1`).',
        ),
        ...HEADERS_TOO_LARGE,
      },
    },
  },
  {
    method: 'post',
    path: '/v1/graphql/',
    spec: {
      operationId: 'graphql',
      tags: ['Authentication'],
      summary: 'Exchange an API key (or a refresh token) for a token',
      description:
        'GraphQL: `mutation { obtainToken(input: {APIKey: "..."}) { token refreshToken refreshExpiresIn } }`. Give exactly one of `APIKey` and `refreshToken`. ' +
        'Failures follow GraphQL conventions: 200 with `data.obtainToken: null` and an error whose `extensions.code` is `authentication_failed` or `invalid_input`. ' +
        `An operation selects at most ${MAX_ROOT_FIELDS} root fields (aliases and fragments included; one GraphQL request per body, no batches): more is 400 with \`extensions.code\` \`validation_error\`. ` +
        `obtainToken is rate limited per client address and per API key (\`token-requests-per-minute\`, ${serviceConfigSettings['token-requests-per-minute'].defaultValue} a minute by default): past it, 429 with \`Retry-After\` and the same GraphQL body, \`extensions.code\` \`throttled\`.`,
      security: [],
      requestBody: jsonRequest(z.object({ query: z.string(), variables: z.record(z.string(), z.unknown()).optional(), operationName: z.string().optional() }), 'A GraphQL request.'),
      responses: {
        200: jsonAnswer(z.looseObject({ data: z.unknown().optional(), errors: z.array(z.record(z.string(), z.unknown())).optional() }), 'The GraphQL answer.'),
        // The body's own errors (size, media type, structural limits) in the error shape of every operation...
        ...errorResponses([...BODY_ERRORS, 'internal_error']),
        429: jsonAnswer(
          z.looseObject({ data: z.unknown().optional(), errors: z.array(z.record(z.string(), z.unknown())) }),
          'obtainToken rate limit reached (`Retry-After` says when to try again): the GraphQL answer, its error `extensions.code` `throttled`.',
        ),
        // ...and a request GraphQL cannot run: its own errors.
        400: jsonAnswer(z.looseObject({ errors: z.array(z.record(z.string(), z.unknown())) }), 'Not a GraphQL request, or a body that breaks a limit (error shape).'),
        ...HEADERS_TOO_LARGE,
      },
    },
  },
] as const;
}
