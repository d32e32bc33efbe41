import { loadExample, SUPPLIER, TEAM } from './ledger.js';

/**
 * THE table of endpoints. Every generic hardening test (auth failures, tenant
 * isolation, limits, fuzzing, rate limit, Idempotency-Key) iterates it, so an
 * endpoint added later is covered by adding one entry here.
 *
 * What the endpoint world (test/support/endpoint-world.ts) provides, for each
 * of the two suppliers (SUPPLIER and OTHER_SUPPLIER), is what `needs` may name:
 * - `imported-account`: LEG-0000001 staged and processed (documents of the
 *   examples under the supplier's document root; no staged statements);
 * - `staged-account`: LEG-0000002 staged, not processed;
 * - `business-contract`: the business holding contract CTR-2025-000123 that
 *   account-business.json names;
 * - `populate-batch`: a supply point populate batch created with the supplier's key;
 * - `payment-vendor`: a vendor STRIPE that knows every reference;
 * - `webhook-endpoint`: a webhook endpoint of the supplier (to a public address that is never called).
 * The example products (products.json) always exist.
 */

/** Values the path and payload builders fill in for one supplier. */
export interface EndpointParams {
  readonly supplier: string;
  /** The account the endpoint works on: LEG-0000001 (imported) or LEG-0000002 (staged), per `needs`. */
  readonly ext: string;
  /** A populate batch created with the supplier's key. */
  readonly batchId: string;
  /** An API key scoped to the supplier (GraphQL's payload names it). */
  readonly apiKey: string;
  /** A webhook endpoint of the supplier. */
  readonly webhookId: string;
}

export type EndpointNeed = 'imported-account' | 'staged-account' | 'business-contract' | 'populate-batch' | 'payment-vendor' | 'webhook-endpoint';

/**
 * Where the request names the import supplier it acts for. `none` says why a
 * request names none: the shared product catalogue; populate batches, which
 * are scoped to the caller's key (its suppliers); GraphQL, which takes no token;
 * the service's own identity, the same for every key.
 */
export type SupplierField =
  | { readonly in: 'body'; readonly field: string }
  | { readonly in: 'path'; readonly param: 'supplier' }
  | { readonly in: 'none'; readonly why: 'shared-catalogue' | 'caller-scoped' | 'unauthenticated' | 'service-wide' }
  /**
   * Named by an id whose owner is a supplier (a populate batch: its creator's key's suppliers; a webhook
   * endpoint: its supplier): to a key of another supplier it does not exist (`notFound`, 404).
   */
  | { readonly in: 'owned-id'; readonly param: 'batchId' | 'webhookId'; readonly notFound: string };

export interface Endpoint {
  /** `METHOD path-template`, used as the test name. */
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (p: EndpointParams) => string;
  /** The example payload files (test/fixtures/examples/) the payloads come from. */
  readonly examples: readonly string[];
  /** The example payloads, rewritten for `p` (supplier, account); empty for GET. */
  readonly payloads: (p: EndpointParams) => unknown[];
  readonly supplier: SupplierField;
  readonly needs: readonly EndpointNeed[];
  /** False only for /v1/graphql/ (it hands out tokens). */
  readonly auth: boolean;
  /** Whether a successful request appends events. */
  readonly writes: boolean;
  /** The success statuses of the example payloads. */
  readonly success: readonly number[];
  /** A 2xx body is NDJSON (one JSON value per line) rather than one JSON value. */
  readonly ndjson?: true;
  /** Spec-documented answers that are not in spec 7's error shape (the transactions endpoint's TRANSACTION_IMPORT_ERROR). */
  readonly transactionImportError?: true;
  /**
   * Why this write's answer cannot be rebuilt from its events (it shows a secret the log never holds): an
   * Idempotency-Key retry gets the answer stored once rendered, and after a crash between the commit and
   * that, 409 `idempotency_response_lost` (docs/webhooks.md). Every other write's answer is rebuilt.
   */
  readonly answerNotInLog?: string;
  /**
   * For endpoints whose examples the world already holds (products, the business): a payload
   * that writes something new, different for each `n`. Others write with their first example.
   */
  readonly fresh?: (p: EndpointParams, n: number) => unknown;
}

/**
 * A path segment the world fixes rather than the params (the example product, the example business): a
 * placeholder when the tests read the table's paths as templates (their params are `__name__`).
 */
const fixed = (p: EndpointParams, value: string): string => (p.ext.startsWith('__') ? '__fixed__' : value);

/** The example's JSON with each `from` replaced by its `to`. */
const renamed = (value: unknown, names: Record<string, string>): unknown =>
  JSON.parse(Object.entries(names).reduce((text, [from, to]) => text.split(`"${from}"`).join(`"${to}"`), JSON.stringify(value)));

const IMPORTED = 'LEG-0000001';
const STAGED = 'LEG-0000002';

type Json = Record<string, unknown>;

/** The example with its supplier field (and account number, when it has one) set for `p`. */
function example(name: string, supplierField: string | null, p: EndpointParams, ext: string | null = p.ext): Json {
  const body = structuredClone(loadExample(name));
  if (supplierField) body[supplierField] = p.supplier;
  if (ext !== null && 'external_account_number' in body) body['external_account_number'] = ext;
  return body;
}

/** Products examples are arrays; loadExample types every example as an object. */
const productExamples = () => ['products.json', 'product-rate-update.json'].map((name) => structuredClone(loadExample(name)) as unknown);

const obtainTokenQuery =
  'mutation($input: ObtainTokenInput!) { obtainToken(input: $input) { token refreshToken refreshExpiresIn } }';

export const DATA_IMPORT = '/v1/data-import';

const WEBHOOKS = `${DATA_IMPORT}/webhook-endpoints`;
/** A webhook endpoint named by its id: 404 to another supplier's key. */
const ownedWebhook = { in: 'owned-id', param: 'webhookId', notFound: 'webhook_endpoint_not_found' } as const;
const webhookPath = (p: EndpointParams, rest = '') => `${WEBHOOKS}/${encodeURIComponent(p.webhookId)}/${rest}`;
const SECRET_SHOWN = 'its answer shows a signing secret, which the log never holds';

/** The webhook endpoint operations; removing one comes last, as the other entries use the world's endpoint. */
const webhookEndpoints: readonly Endpoint[] = [
  {
    name: 'POST webhook-endpoints/',
    method: 'POST',
    path: () => `${WEBHOOKS}/`,
    examples: [],
    payloads: (p) => [{ import_supplier_code: p.supplier, url: 'https://93.184.215.14/hooks/ledger', event_types: ['data_import.*'], description: 'CRM' }],
    supplier: { in: 'body', field: 'import_supplier_code' },
    needs: [],
    auth: true,
    writes: true,
    success: [201],
    answerNotInLog: SECRET_SHOWN,
  },
  {
    name: 'GET webhook-endpoints/',
    method: 'GET',
    path: () => `${WEBHOOKS}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'caller-scoped' },
    needs: ['webhook-endpoint'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'GET webhook-endpoints/<id>/',
    method: 'GET',
    path: (p) => webhookPath(p),
    examples: [],
    payloads: () => [],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'POST webhook-endpoints/<id>/',
    method: 'POST',
    path: (p) => webhookPath(p),
    examples: [],
    payloads: () => [{ description: 'CRM, production', event_types: ['data_import.import_process.complete-v1', 'account.*'] }],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: true,
    success: [200],
    fresh: (_p, n) => ({ description: `CRM ${n}` }),
  },
  {
    name: 'POST webhook-endpoints/<id>/rotate-secret/',
    method: 'POST',
    path: (p) => webhookPath(p, 'rotate-secret/'),
    examples: [],
    payloads: () => [{}],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: true,
    success: [201],
    answerNotInLog: SECRET_SHOWN,
  },
  {
    name: 'GET webhook-endpoints/<id>/deliveries/',
    method: 'GET',
    path: (p) => webhookPath(p, 'deliveries/'),
    examples: [],
    payloads: () => [],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'POST webhook-endpoints/<id>/replay/',
    method: 'POST',
    path: (p) => webhookPath(p, 'replay/'),
    examples: [],
    payloads: () => [{ from_position: 1 }, { since: '2026-11-21T10:00:00+01:00' }],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: true,
    success: [202],
  },
  {
    name: 'POST webhook-endpoints/<id>/delete/',
    method: 'POST',
    path: (p) => webhookPath(p, 'delete/'),
    examples: [],
    payloads: () => [{}],
    supplier: ownedWebhook,
    needs: ['webhook-endpoint'],
    auth: true,
    writes: true,
    success: [200],
  },
];

export const endpoints: readonly Endpoint[] = [
  {
    name: 'POST validate-account/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/validate-account/`,
    examples: ['account-domestic.json', 'account-business.json'],
    // account-domestic.json keeps LEG-0000001 (validation does not look at the log); account-business.json keeps its own number.
    payloads: (p) => [example('account-domestic.json', 'import_supplier', p, null), example('account-business.json', 'import_supplier', p, null)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['business-contract'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'POST account-import-process/create-or-update/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/account-import-process/create-or-update/`,
    examples: ['account-domestic.json', 'account-business.json'],
    payloads: (p) => [example('account-domestic.json', 'import_supplier', p), example('account-business.json', 'import_supplier', p, null)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['staged-account', 'business-contract'],
    auth: true,
    writes: true,
    success: [200, 201],
  },
  {
    name: 'POST account-import-process/process/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/account-import-process/process/`,
    examples: ['process.json'],
    payloads: (p) => [{ ...example('process.json', 'import_supplier_code', p) }],
    supplier: { in: 'body', field: 'import_supplier_code' },
    needs: ['staged-account'],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'POST validate-products/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/validate-products/`,
    examples: ['products.json', 'product-rate-update.json'],
    payloads: productExamples,
    supplier: { in: 'none', why: 'shared-catalogue' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'POST products/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/products/`,
    examples: ['products.json', 'product-rate-update.json'],
    payloads: productExamples,
    supplier: { in: 'none', why: 'shared-catalogue' },
    needs: [],
    auth: true,
    writes: true,
    success: [201],
    fresh: (_p, n) => renamed(productExamples()[0], { 'ELEC-FIXE-2025': `ELEC-NEW-${n}`, 'GAZ-FIXE-2025': `GAZ-NEW-${n}` }),
  },
  {
    name: 'POST business/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/business/`,
    examples: ['business.json'],
    payloads: (p) => [example('business.json', 'import_supplier_code', p)],
    supplier: { in: 'body', field: 'import_supplier_code' },
    needs: [],
    auth: true,
    writes: true,
    success: [201],
    fresh: (p, n) => renamed(example('business.json', 'import_supplier_code', p), { 'BIZ-000123': `BIZ-NEW-${n}`, 'CTR-2025-000123': `CTR-NEW-${n}` }),
  },
  {
    name: 'POST business-contracts/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/business-contracts/create/`,
    examples: ['business-contracts.json'],
    payloads: (p) => [example('business-contracts.json', 'import_supplier_code', p)],
    supplier: { in: 'body', field: 'import_supplier_code' },
    needs: ['business-contract'],
    auth: true,
    writes: true,
    success: [201],
    // A contract identifier is added once: each write needs a new one.
    fresh: (p, n) => renamed(example('business-contracts.json', 'import_supplier_code', p), { 'CTR-2026-000456': `CTR-ADDED-${n}` }),
  },
  {
    name: 'POST business-payment-instruction/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/business-payment-instruction/create/`,
    examples: ['business-payment-instruction.json'],
    payloads: (p) => [example('business-payment-instruction.json', 'import_supplier_code', p)],
    supplier: { in: 'body', field: 'import_supplier_code' },
    needs: ['business-contract', 'imported-account', 'payment-vendor'],
    auth: true,
    writes: true,
    success: [201],
    // A reference already recorded is a 201 that writes nothing: each write needs a new one.
    fresh: (p, n) => renamed(example('business-payment-instruction.json', 'import_supplier_code', p), { pm_biz_1QxYz2AbCdEf: `pm_biz_new_${n}` }),
  },
  {
    name: 'POST supply-point/populate/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/supply-point/populate/`,
    examples: ['supply-point-populate.json'],
    payloads: () => [structuredClone(loadExample('supply-point-populate.json'))],
    supplier: { in: 'none', why: 'caller-scoped' },
    needs: [],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'GET supply-point/populate/<batch_id>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/supply-point/populate/${encodeURIComponent(p.batchId)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'owned-id', param: 'batchId', notFound: 'populate_batch_not_found' },
    needs: ['populate-batch'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'GET account-transfer-status/<code>/<ext>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/account-transfer-status/${encodeURIComponent(p.supplier)}/${encodeURIComponent(p.ext)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: false,
    success: [200],
  },
  ...(['all', 'pending', 'imported'] as const).map(
    (list): Endpoint => ({
      name: `GET ${list}-account-import-processes/<code>/`,
      method: 'GET',
      path: (p) => `${DATA_IMPORT}/${list}-account-import-processes/${encodeURIComponent(p.supplier)}/`,
      examples: [],
      payloads: () => [],
      supplier: { in: 'path', param: 'supplier' },
      needs: ['imported-account', 'staged-account'],
      auth: true,
      writes: false,
      success: [200],
    }),
  ),
  {
    // Streamed NDJSON (CSV with Accept: text/csv or ?format=csv), one record per account of the supplier.
    name: 'GET reconciliation/<code>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/reconciliation/${encodeURIComponent(p.supplier)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['imported-account', 'staged-account'],
    auth: true,
    writes: false,
    success: [200],
    ndjson: true,
  },
  {
    // Streamed NDJSON, one line per account of the supplier with its records' digests.
    name: 'GET account-records/<code>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/account-records/${encodeURIComponent(p.supplier)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['imported-account', 'staged-account'],
    auth: true,
    writes: false,
    success: [200],
    ndjson: true,
  },
  {
    name: 'GET account-record/<code>/<ext>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/account-record/${encodeURIComponent(p.supplier)}/${encodeURIComponent(p.ext)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'GET products/<code>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/products/${fixed(p, 'ELEC-FIXE-2025')}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'shared-catalogue' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'GET operations-teams/<name>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/operations-teams/${encodeURIComponent(fixed(p, TEAM))}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'shared-catalogue' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'GET business/<code>/<ext>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/business/${encodeURIComponent(p.supplier)}/${fixed(p, 'BIZ-000123')}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['business-contract'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    // The service's identity, which migrate's journal and verify's summary record.
    name: 'GET service/',
    method: 'GET',
    path: () => `${DATA_IMPORT}/service/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'service-wide' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    // What `import-ledger verify` records on the supplier's stream.
    name: 'POST verifications/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/verifications/`,
    examples: [],
    payloads: (p) => [{ import_supplier: p.supplier, agree: true, summary: { accounts: { identical: 3, missing: 0, extra: 0, different: 0 } } }],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: [],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'GET account-history/<code>/<ext>/',
    method: 'GET',
    path: (p) => `${DATA_IMPORT}/account-history/${encodeURIComponent(p.supplier)}/${encodeURIComponent(p.ext)}/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'path', param: 'supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    // The suppliers of the caller's key.
    name: 'GET import-suppliers/',
    method: 'GET',
    path: () => `${DATA_IMPORT}/import-suppliers/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'caller-scoped' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  ...(
    [
      ['GET import-progress/<code>/', (s: string) => `${DATA_IMPORT}/import-progress/${s}/`],
      ['GET import-failures/<code>/', (s: string) => `${DATA_IMPORT}/import-failures/${s}/`],
      ['GET import-failures/<code>/summary/', (s: string) => `${DATA_IMPORT}/import-failures/${s}/summary/`],
    ] as const
  ).map(
    ([name, path]): Endpoint => ({
      name,
      method: 'GET',
      path: (p) => path(encodeURIComponent(p.supplier)),
      examples: [],
      payloads: () => [],
      supplier: { in: 'path', param: 'supplier' },
      needs: ['imported-account'],
      auth: true,
      writes: false,
      success: [200],
    }),
  ),
  {
    // Filtered to the events of the token's suppliers (JSON page; `Accept: text/event-stream` streams).
    name: 'GET events/',
    method: 'GET',
    path: () => `${DATA_IMPORT}/events/`,
    examples: [],
    payloads: () => [],
    supplier: { in: 'none', why: 'caller-scoped' },
    needs: [],
    auth: true,
    writes: false,
    success: [200],
  },
  {
    name: 'POST notes/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/notes/create/`,
    examples: ['notes.json'],
    payloads: (p) => [example('notes.json', 'import_supplier', p)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'POST transactions/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/transactions/create/`,
    examples: ['transactions.json'],
    payloads: (p) => [example('transactions.json', 'import_supplier', p)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: true,
    success: [201],
    transactionImportError: true,
  },
  {
    name: 'POST historical-statements/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/historical-statements/create/`,
    examples: ['historical-statements.json'],
    payloads: (p) => [example('historical-statements.json', 'import_supplier', p)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['imported-account'],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'POST payment-instruction/create/',
    method: 'POST',
    path: () => `${DATA_IMPORT}/payment-instruction/create/`,
    examples: ['payment-instruction.json'],
    payloads: (p) => [example('payment-instruction.json', 'import_supplier', p)],
    supplier: { in: 'body', field: 'import_supplier' },
    needs: ['imported-account', 'payment-vendor'],
    auth: true,
    writes: true,
    success: [201],
  },
  {
    name: 'POST /v1/graphql/ (obtainToken)',
    method: 'POST',
    path: () => '/v1/graphql/',
    examples: [],
    payloads: (p) => [{ query: obtainTokenQuery, variables: { input: { APIKey: p.apiKey } } }],
    supplier: { in: 'none', why: 'unauthenticated' },
    needs: [],
    auth: false,
    writes: false,
    success: [200],
  },
  ...webhookEndpoints,
];

/** The endpoints that take a token: everything under /v1/data-import/. */
export const authenticatedEndpoints = endpoints.filter((e) => e.auth);
/** Every POST under /v1/data-import/: the ones Idempotency-Key applies to. */
export const dataImportPosts = authenticatedEndpoints.filter((e) => e.method === 'POST');

/** Which account an endpoint works on. */
export function accountFor(endpoint: Endpoint): string {
  return endpoint.needs.includes('imported-account') ? IMPORTED : STAGED;
}

export const ENDPOINT_ACCOUNTS = { imported: IMPORTED, staged: STAGED } as const;
export { SUPPLIER };
