import type { ClientPathsWithMethod } from 'openapi-fetch';
import { parseRetryAfter } from '../adapters/network-operators.js';
import { createLedgerClient, createNodeHttpTransport, type PlainAnswer, type paths } from '../client/index.js';

export { NoAnswer } from '../client/index.js';

/**
 * The migrate and verify commands' only door to the service, typed from its OpenAPI document (src/client).
 * The writes go straight to the transport (openapi-fetch's per-request Headers and option merging cost CPU
 * the client shares with the service); the reads keep openapi-fetch. Answers are data, never thrown; only
 * no answer at all (refused, reset, timed out) throws `NoAnswer`.
 */

/** The operations the command writes with (every POST of the document). */
export type WritePath = ClientPathsWithMethod<ReturnType<typeof createLedgerClient>, 'post'>;
type Operation<P extends keyof paths, M extends 'get' | 'post'> = NonNullable<paths[P][M]>;
export type RequestBodyOf<P extends WritePath> = Operation<P, 'post'> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** Every JSON answer the document lists for an operation, success or error. */
type AnswerOf<O> = O extends { responses: infer R } ? { [S in keyof R]: R[S] extends { content: { 'application/json': infer B } } ? B : never }[keyof R] : never;
export type WriteAnswer<P extends WritePath> = AnswerOf<Operation<P, 'post'>>;
const ACCOUNTS_LIST = '/v1/data-import/all-account-import-processes/{supplier}/' as const;
export type AccountsListAnswer = AnswerOf<Operation<typeof ACCOUNTS_LIST, 'get'>>;
export type AccountsListQuery = NonNullable<Operation<typeof ACCOUNTS_LIST, 'get'>['parameters']['query']>;
export type GraphqlAnswer = AnswerOf<Operation<'/v1/graphql/', 'post'>>;
const FAILURES_LIST = '/v1/data-import/import-failures/{supplier}/' as const;
export type FailuresAnswer = AnswerOf<Operation<typeof FAILURES_LIST, 'get'>>;
export type FailuresQuery = NonNullable<Operation<typeof FAILURES_LIST, 'get'>['parameters']['query']>;
const ACCOUNT_RECORDS = '/v1/data-import/account-record/{supplier}/{ext}/' as const;
export type AccountRecordsAnswer = AnswerOf<Operation<typeof ACCOUNT_RECORDS, 'get'>>;
const PRODUCT = '/v1/data-import/products/{code}/' as const;
export type ProductAnswer = AnswerOf<Operation<typeof PRODUCT, 'get'>>;
const BUSINESS = '/v1/data-import/business/{supplier}/{ext}/' as const;
export type BusinessAnswer = AnswerOf<Operation<typeof BUSINESS, 'get'>>;
export type ServiceIdentityAnswer = AnswerOf<Operation<'/v1/data-import/service/', 'get'>>;
const TEAM = '/v1/data-import/operations-teams/{name}/' as const;
export type TeamAnswer = AnswerOf<Operation<typeof TEAM, 'get'>>;

/** What came back from one request. `body` is the parsed JSON (a body the document lists), or the raw text when it is not JSON. */
export interface ApiAnswer<B = unknown> {
  readonly status: number;
  readonly body: B | string | undefined;
  /** The Retry-After header in milliseconds (seconds or an HTTP date), when the answer carries one. */
  readonly retryAfterMs: number | null;
  /** The target of the Link header's rel="next" (paged lists), as sent. */
  readonly next: string | null;
  /** Idempotent-Replayed: true: the service answered from its key store (the write was applied earlier). */
  readonly replayed: boolean;
}

export interface ApiClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:8080 (a path prefix is kept). */
  readonly baseUrl: string;
  /** Time allowed for one request, answer included. */
  readonly timeoutMs: number;
  /** Connections kept open to the service (the command's concurrency, and a few more). */
  readonly maxSockets?: number;
}

export interface PostOptions {
  readonly token: string;
  /** Sent as Idempotency-Key: the service stores the first answer and replays it for a retry. */
  readonly idempotencyKey?: string;
}

/** A request body: a value of the document's type, or JSON text sent and hashed as read (an input file's own bytes). */
export type Body<P extends WritePath> = { readonly value: RequestBodyOf<P> } | { readonly json: string };

export interface ApiClient {
  post<P extends WritePath>(path: P, body: Body<P>, options: PostOptions): Promise<ApiAnswer<WriteAnswer<P>>>;
  /** One page of the supplier's accounts (the all-accounts list). */
  listAccounts(supplier: string, query: AccountsListQuery, token: string): Promise<ApiAnswer<AccountsListAnswer>>;
  /** GET service/: the service's identity. */
  serviceIdentity(token: string): Promise<ApiAnswer<ServiceIdentityAnswer>>;
  /** POST /v1/graphql/ (no token: the token mutation is how one gets a token). */
  graphql(query: string, variables: Record<string, unknown>): Promise<ApiAnswer<GraphqlAnswer>>;
  close(): void;
}

/** The reads besides the accounts list: `import-ledger verify`'s, and migrate's checks before its first write (a product, the team). */
export interface VerifyClient extends ApiClient {
  /** One page of the supplier's failing accounts (the import-failures list). */
  listFailures(supplier: string, query: FailuresQuery, token: string): Promise<ApiAnswer<FailuresAnswer>>;
  /** The supplier's records export: on a 200 the body is its NDJSON text streamed as it arrives; any other answer is read in full. */
  openRecordsExport(supplier: string, token: string): Promise<ApiAnswer<AsyncIterable<Buffer>>>;
  accountRecords(supplier: string, ext: string, token: string): Promise<ApiAnswer<AccountRecordsAnswer>>;
  readProduct(code: string, token: string): Promise<ApiAnswer<ProductAnswer>>;
  /** `after`: the page of its payment instructions after that reference (`payment_instructions_next`'s). */
  readBusiness(supplier: string, ext: string, token: string, after?: string): Promise<ApiAnswer<BusinessAnswer>>;
  readOperationsTeam(name: string, token: string): Promise<ApiAnswer<TeamAnswer>>;
}

/** An answer's body as openapi-fetch reads it: none for a 204 or an empty body, else its JSON (or its text, when it is not JSON). */
async function bodyOf(response: PlainAnswer): Promise<unknown> {
  if (response.status === 204 || response.headers.get('content-length') === '0') return undefined;
  return response.json();
}

/** openapi-fetch's result (or the transport's answer, read the same way), as the command reads it. */
function toAnswer<B>(result: { data?: unknown; error?: unknown; response: { status: number; ok: boolean; headers: { get(name: string): string | null } } }): ApiAnswer<B> {
  const { response } = result;
  return {
    status: response.status,
    body: (response.ok ? result.data : result.error) as B | string | undefined,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), new Date()),
    next: /<([^>]+)>\s*;\s*rel="?next"?/.exec(response.headers.get('link') ?? '')?.[1] ?? null,
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

export function createApiClient(options: ApiClientOptions): VerifyClient {
  const transport = createNodeHttpTransport({ timeoutMs: options.timeoutMs, maxSockets: options.maxSockets ?? 16 });
  const client = createLedgerClient(options.baseUrl, undefined, transport);
  const auth = (token: string) => ({ authorization: `Token ${token}` });
  // As openapi-fetch joins them: the base without its trailing slashes, then the path.
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    async post(path, body, { token, idempotencyKey }) {
      const text = 'json' in body ? body.json : JSON.stringify(body.value);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...auth(token) };
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      const response = await transport.send({ url: `${base}${path}`, method: 'POST', headers, body: text });
      const parsed = await bodyOf(response);
      return toAnswer(response.ok ? { data: parsed, response } : { error: parsed, response });
    },
    async listAccounts(supplier, query, token) {
      return toAnswer(await client.GET(ACCOUNTS_LIST, { params: { path: { supplier }, query }, headers: auth(token) }));
    },
    async listFailures(supplier, query, token) {
      return toAnswer(await client.GET(FAILURES_LIST, { params: { path: { supplier }, query }, headers: auth(token) }));
    },
    async openRecordsExport(supplier, token) {
      const url = `${base}/v1/data-import/account-records/${encodeURIComponent(supplier)}/`;
      const response = await transport.stream({ url, method: 'GET', headers: { accept: 'application/x-ndjson', ...auth(token) }, body: null });
      if (response.ok) return toAnswer({ data: response.body, response });
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        // Not JSON (a front's page): kept as text.
      }
      return toAnswer({ error: parsed, response });
    },
    async accountRecords(supplier, ext, token) {
      return toAnswer(await client.GET(ACCOUNT_RECORDS, { params: { path: { supplier, ext } }, headers: auth(token) }));
    },
    async readProduct(code, token) {
      return toAnswer(await client.GET(PRODUCT, { params: { path: { code } }, headers: auth(token) }));
    },
    async readBusiness(supplier, ext, token, after) {
      const query = after === undefined ? {} : { payment_instructions_after: after };
      return toAnswer(await client.GET(BUSINESS, { params: { path: { supplier, ext }, query }, headers: auth(token) }));
    },
    async serviceIdentity(token) {
      return toAnswer(await client.GET('/v1/data-import/service/', { headers: auth(token) }));
    },
    async readOperationsTeam(name, token) {
      return toAnswer(await client.GET(TEAM, { params: { path: { name } }, headers: auth(token) }));
    },
    async graphql(query, variables) {
      return toAnswer(await client.POST('/v1/graphql/', { body: { query, variables } }));
    },
    close: () => transport.close(),
  };
}
