import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { createPopulateBatch } from '../../src/application/supply-point-populate.js';
import { setImportSupplierConfig } from '../../src/application/operator.js';
import { createWebhookEndpoint } from '../../src/application/webhook-endpoints.js';
import { PUBLIC_ONLY } from '../../src/relay/webhooks/destination.js';
import type { PaymentVendors } from '../../src/adapters/payment-vendors.js';
import type { IdempotencyRecords } from '../../src/store/idempotency.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { populateRequestSchema } from '../../src/domain/supply-point/populate-request.js';
import { EXAMPLE_DOCUMENTS, tempDocumentStore, type TempDocumentStore } from './account-records.js';
import { createBusinessWithContract } from './business.js';
import { accessToken } from './http.js';
import { accountFor, ENDPOINT_ACCOUNTS, type Endpoint, type EndpointParams } from './endpoints.js';
import { createTestApi, loadExample, operator, OTHER_SUPPLIER, SUPPLIER, TEAM, type TestApi } from './ledger.js';

/** A payment vendor that knows every reference (no network). */
export const knowingVendors: PaymentVendors = {
  names: ['STRIPE'],
  fetchInstruction: async (_vendor, reference) => ({ kind: 'found', details: { reference, type: 'CARD', status: 'active' } }),
};

const documentRoot = (supplier: string) => supplier.toLowerCase().replace(/_/g, '-');

export interface EndpointRequest {
  readonly body?: unknown;
  /** The raw body text, sent as is (overrides `body`). */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  /** `null`: no Authorization header. Default: a token of `as`'s key. */
  readonly authorization?: string | null;
  /** Whose key the default token belongs to (default SUPPLIER). */
  readonly as?: string;
  /** Whose resources the path names (default: `as`). */
  readonly params?: EndpointParams;
  readonly query?: string;
}

export interface EndpointWorld {
  readonly api: TestApi;
  /** A token of the key scoped to `supplier` only. */
  token(supplier?: string): Promise<string>;
  /** The path and payload parameters of `supplier`'s resources for `endpoint`. */
  params(endpoint: Endpoint, supplier?: string): EndpointParams;
  request(endpoint: Endpoint, options?: EndpointRequest): Promise<Response>;
  /** Number of events in the log, counted on a connection of its own (no application code in between). */
  eventCount(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The real app (a test ledger on the test store, temp document store, an in-process payment
 * vendor) with, for both SUPPLIER and OTHER_SUPPLIER, everything an endpoint
 * of the table may need (see test/support/endpoints.ts).
 */
export async function createEndpointWorld(
  options: { maxBodyBytes?: number; paymentVendors?: PaymentVendors; idempotency?: (records: IdempotencyRecords) => IdempotencyRecords } = {},
): Promise<EndpointWorld> {
  const documents: TempDocumentStore = tempDocumentStore([]);
  const api = await createTestApi({
    documents: documents.store,
    paymentVendors: options.paymentVendors ?? knowingVendors,
    maxBodyBytes: options.maxBodyBytes,
    idempotency: options.idempotency,
  });
  const keys: Record<string, string> = { [SUPPLIER]: api.key, [OTHER_SUPPLIER]: api.otherKey };
  const tokens: Record<string, string> = {};
  const batches: Record<string, string> = {};
  const webhooks: Record<string, string> = {};
  for (const supplier of [SUPPLIER, OTHER_SUPPLIER]) {
    for (const path of EXAMPLE_DOCUMENTS) documents.add(path, documentRoot(supplier));
    await setImportSupplierConfig(api.ledger, supplier, { documentRoot: documentRoot(supplier) }, operator);
    await createBusinessWithContract(api.ledger, { supplier });
    // The imported account has no staged statements, so historical-statements.json adds its two.
    await importAccount(api, supplier, ENDPOINT_ACCOUNTS.imported, { statements: undefined });
    await stage(api, supplier, ENDPOINT_ACCOUNTS.staged);
    const { batchId } = await createPopulateBatch(
      api.ledger,
      { request: populateRequestSchema.parse(loadExample('supply-point-populate.json')), importSuppliers: [supplier] },
      { actor: `key-of-${supplier}`, requestId: null },
    );
    batches[supplier] = batchId;
    const webhook = await createWebhookEndpoint(
      { ...api.ledger, webhookDestinations: PUBLIC_ONLY },
      { importSupplier: supplier, url: 'https://93.184.215.14/hooks/world', eventTypes: [], description: null },
      operator,
    );
    webhooks[supplier] = webhook.endpointId;
    tokens[supplier] = await accessToken(api, keys[supplier]);
  }

  const params = (endpoint: Endpoint, supplier = SUPPLIER): EndpointParams => ({
    supplier,
    ext: accountFor(endpoint),
    batchId: batches[supplier] ?? 'no-batch',
    apiKey: keys[supplier] ?? 'no-key',
    webhookId: webhooks[supplier] ?? 'no-webhook',
  });

  return {
    api,
    token: async (supplier = SUPPLIER) => tokens[supplier] ?? (await accessToken(api, keys[supplier])),
    params,
    async request(endpoint, options = {}) {
      const as = options.as ?? SUPPLIER;
      const p = options.params ?? params(endpoint, as);
      const headers: Record<string, string> = {};
      if (endpoint.method === 'POST') headers['content-type'] = 'application/json';
      if (endpoint.auth && options.authorization !== null) {
        headers['authorization'] = options.authorization ?? `Token ${tokens[as] ?? ''}`;
      }
      Object.assign(headers, options.headers ?? {});
      const init: RequestInit = { method: endpoint.method, headers };
      if (endpoint.method === 'POST') {
        init.body = options.raw ?? JSON.stringify(options.body === undefined ? endpoint.payloads(p)[0] : options.body);
      }
      return api.app.request(endpoint.path(p) + (options.query ?? ''), init);
    },
    eventCount: async () => Number((await api.execute('SELECT COUNT(*) AS n FROM events'))[0]?.['n'] ?? 0),
    close: async () => {
      try {
        await api.close();
      } finally {
        documents.cleanup();
      }
    },
  };
}

async function stage(api: TestApi, supplier: string, ext: string, overrides: Record<string, unknown> = {}): Promise<void> {
  const validated = validateAccountPayload({ ...loadExample('account-domestic.json'), import_supplier: supplier, external_account_number: ext, ...overrides });
  if (!validated.ok) throw new Error(`example account must validate: ${JSON.stringify(validated.errors)}`);
  await stageAccount(api.ledger, validated.data, operator);
}

async function importAccount(api: TestApi, supplier: string, ext: string, overrides: Record<string, unknown>): Promise<void> {
  await stage(api, supplier, ext, overrides);
  await processAccount(api.ledger, { importSupplier: supplier, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false }, operator);
}
