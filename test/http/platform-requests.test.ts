import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentVendors } from '../../src/adapters/payment-vendors.js';
import { importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { createBusinessWithContract } from '../support/business.js';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, createTestApi, type TestApi } from '../support/ledger.js';
import { loadPlatformContract, requestArbitrary, requestExamples, requestSchemaName, type PlatformContract, type Tightening } from '../support/platform-contract.js';

/**
 * What a client written against the platform sends, we accept: the request
 * examples of both captures, and requests generated from their request
 * schemas (valid against them, checked with ajv), sent to the real app once
 * an account is imported, a business created and a vendor answers. Each is
 * answered with a success or an error our OpenAPI document lists for the
 * operation, and never with a generic field code (`required`, `null`,
 * `invalid`, `invalid_choice`, `not_a_list`, `unknown_field`, `empty`) that
 * would mean we refuse a value the platform allows. Rule codes (the platform's
 * `mutually_exclusive_field_required`, `note_body_or_document_path_not_found`,
 * `path_does_not_exist_in_file_store`, ...) and our bounds (`max_length`,
 * `blank`, `max_decimal_places`, `max_whole_digits`) are answers, not refusals
 * of the platform's shape.
 */

const V1 = '/v1/data-import';
const EXT = 'LEG-0000001';
const BUSINESS = 'BIZ-000123';
const GENERIC = new Set(['required', 'null', 'invalid', 'invalid_choice', 'not_a_list', 'unknown_field', 'empty']);

/** The operations whose request bodies we share with the platform (the account's own shape is market-specific). */
const OPERATIONS = [
  '/v1/data-import/notes/create/',
  '/v1/data-import/transactions/create/',
  '/v1/data-import/historical-statements/create/',
  '/v1/data-import/payment-instruction/create/',
  '/v1/data-import/business-payment-instruction/create/',
];

/** Where our spec asks more than the captures' schemas (docs/account-records.md): a generated request gives it. */
const OUR_SPEC: Tightening = {
  required: {
    // CHARGE and CREDIT carry a reason (EDF requires it; Origin's schemas do not).
    AusCharge: ['reason'],
    Credit: ['reason'],
    // The request names its transactions.
    Transactions: ['transactions'],
    // A line item names its rate band.
    LineItem: ['rate_band'],
    OriginLineItem: ['rate_band'],
  },
  minItems: {
    AccountNote: { notes: 1 },
    Transactions: { transactions: 1 },
    HistoricalStatements: { statements: 1 },
    EnergySupplyCharge: { line_items: 1 },
    OriginSupplyCharge: { line_items: 1 },
  },
};

/** Our OpenAPI document's error codes per operation and status (every `code` enum in the answer's schema, its branches included). */
const ours = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, { post: { responses: Record<string, unknown> } }> };
function documentedCodes(path: string, status: number): string[] {
  const codes: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'code' && typeof value === 'object' && value !== null && Array.isArray((value as { enum?: unknown }).enum)) codes.push(...(value as { enum: string[] }).enum);
        else walk(value);
      }
    }
  };
  walk(ours.paths[path]?.post.responses[String(status)]);
  return codes;
}

/** Our tenant's names for the account, supplier and business the capture's request names. */
function ourAccount(path: string, body: Record<string, unknown>): Record<string, unknown> {
  const request: Record<string, unknown> = { ...body };
  if (path.includes('business-payment-instruction')) {
    request['import_supplier_code'] = SUPPLIER;
    request['external_business_identifier'] = BUSINESS;
    if (Array.isArray(request['accounts'])) request['accounts'] = request['accounts'].map(() => ({ external_account_number: EXT }));
    return request;
  }
  request['import_supplier'] = SUPPLIER;
  if ('external_account_number' in request || !('account_number' in request)) request['external_account_number'] = EXT;
  if ('account_number' in request) request['account_number'] = EXT;
  return request;
}

const contracts: PlatformContract[] = [loadPlatformContract('edf'), loadPlatformContract('origin')];

describe('the platform\'s own requests, sent to us', () => {
  let fake: FakeVendor;
  let api: TestApi;
  let token: string;
  let documents: TempDocumentStore;

  beforeAll(async () => {
    fake = await startFakeVendor();
    fake.script('THIS-IS-A-FAKE-REFERENCE', { kind: 'found' });
    documents = tempDocumentStore();
    api = await createTestApi({
      documents: documents.store,
      paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: fake.url, WESTPAC: fake.url }, timeoutMs: 500 }),
    });
    await importedExampleAccount(api.ledger);
    await createBusinessWithContract(api.ledger, { externalBusinessIdentifier: BUSINESS });
    token = await accessToken(api);
  });
  afterAll(async () => {
    api.close();
    documents.cleanup();
    await fake.close();
  });

  /** Why the answer is a refusal of what the platform allows, or null when it is an answer a platform client expects. */
  async function refusal(path: string, body: Record<string, unknown>): Promise<string | null> {
    const res = await api.post(path, body, token);
    if (res.status === 200 || res.status === 201) return null;
    const answer = (await res.json()) as { code?: string; errors?: { code: string; attr: string | null }[] };
    const where = `${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(answer)}`;
    if (![400, 500].includes(res.status)) return `status: ${where}`;
    if (!documentedCodes(path, res.status).includes(String(answer.code))) return `undocumented code: ${where}`;
    const generic = (answer.errors ?? []).filter((error) => GENERIC.has(error.code));
    return generic.length > 0 ? `generic ${JSON.stringify(generic)}: ${where}` : null;
  }

  it('their request examples: a success or a documented error, never a generic refusal', async () => {
    const examples = contracts.flatMap((contract) => requestExamples(contract)).filter(([path]) => OPERATIONS.includes(path));
    expect(new Set(examples.map(([path]) => path)).size).toBe(OPERATIONS.length);
    const refusals: string[] = [];
    for (const [path, example] of examples) {
      const refused = await refusal(path, ourAccount(path, example));
      if (refused) refusals.push(refused);
    }
    expect(refusals).toEqual([]);
  });

  it.each(contracts.flatMap((contract) => OPERATIONS.filter((path) => requestSchemaName(contract, path)).map((path) => [contract.name, path, contract] as const)))(
    '%s %s: requests generated from the request schema are a success or a documented error',
    async (_name, path, contract) => {
      const schemaName = requestSchemaName(contract, path) ?? '';
      const valid = contract.validator({ $ref: `#/components/schemas/${schemaName}` });
      await fc.assert(
        fc.asyncProperty(requestArbitrary(contract, schemaName, OUR_SPEC), async (generated) => {
          const request = ourAccount(path, generated);
          expect(valid(request), JSON.stringify(valid.errors)).toBe(true);
          expect(await refusal(path, request)).toBeNull();
        }),
        { numRuns: 25 },
      );
    },
  );
});
