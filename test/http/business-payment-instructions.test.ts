import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { businessStreamId } from '../../events/business.js';
import { createPaymentVendors } from '../../src/adapters/payment-vendors.js';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { createBusinessPaymentInstructionResponseSchema } from '../../src/answers/payment-instructions.js';
import { BUSINESS_PAYMENT_INSTRUCTIONS_PAGE, businessReadResponseSchema } from '../../src/http/routes/catalogue-reads.js';
import { businessPaymentInstructionErrorBodySchema } from '../../src/http/routes/payment-instructions.js';
import { ACCOUNT_EXAMPLE_CONTRACT as BUSINESS_CONTRACT, createBusinessWithContract } from '../support/business.js';
import { instructionBody, startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/**
 * POST business-payment-instruction/create/ (the platform's endpoint) through the real app on
 * the test store, with the payment-vendor adapter against a fake vendor on
 * 127.0.0.1: every status, the vendor asked only when the rules that need no
 * vendor pass, nothing written unless 201.
 */

const PATH = '/v1/data-import/business-payment-instruction/create/';
const BIZ = 'BIZ-000123';
const EXT = 'LEG-0000001';
const example = loadExample('business-payment-instruction.json');
const REFERENCE = example['reference'] as string;
const EXTRAS = ['error_detail', 'external_business_identifier', 'import_supplier_code', 'reference'];

async function importAccount(api: TestApi, ext = EXT, stageOnly = false): Promise<string> {
  const validated = validateAccountPayload({ ...loadExample('account-domestic.json'), external_account_number: ext });
  if (!validated.ok) throw new Error('example must validate');
  await stageAccount(api.ledger, validated.data, operator);
  if (stageOnly) return '';
  return (await processAccount(api.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false }, operator))
    .platformAccountNumber;
}

describe('POST business-payment-instruction/create/', () => {
  let fake: FakeVendor;
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    fake = await startFakeVendor();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    api = await createTestApi({ paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: fake.url }, timeoutMs: 300 }) });
    token = await accessToken(api);
    fake.hits.length = 0;
  });
  afterEach(() => api.close());

  const events = async () => (await api.ledger.store.readStream(businessStreamId(SUPPLIER, BIZ))).map((stored) => stored.event.type);
  const instructionEvents = async () => (await events()).filter((type) => type === 'BusinessPaymentInstructionCreated');

  async function expectRefused(body: unknown, status: number, code: string): Promise<Record<string, unknown>> {
    const error = await expectErrorBody(await api.post(PATH, body, token), status, code, EXTRAS);
    businessPaymentInstructionErrorBodySchema.parse(error);
    return error;
  }

  it('201 {reference, external_business_identifier}: the vendor is asked once, the instruction recorded for the business and its accounts', async () => {
    await createBusinessWithContract(api.ledger);
    const platformAccountNumber = await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    const res = await api.post(PATH, example, token);
    expect(res.status).toBe(201);
    expect(createBusinessPaymentInstructionResponseSchema.strict().parse(await res.json())).toEqual({ reference: REFERENCE, external_business_identifier: BIZ });
    expect(fake.hits).toEqual([{ reference: REFERENCE, accept: 'application/json', method: 'GET' }]);
    const rows = await api.ledger.read.listBusinessPaymentInstructions(SUPPLIER, BIZ);
    expect(rows).toEqual([
      {
        importSupplier: SUPPLIER,
        externalBusinessIdentifier: BIZ,
        reference: REFERENCE,
        vendor: 'STRIPE',
        type: 'DIRECT_DEBIT',
        validFrom: '2025-07-01',
        accounts: [{ externalAccountNumber: EXT, platformAccountNumber }],
        vendorStatus: 'active',
        vendorDetails: instructionBody(REFERENCE),
        createdAt: api.clock.now.toISOString(),
      },
    ]);
    // The event feed tells downstream systems of the business, its contract and the instruction, without the vendor's details.
    const feed = (await (await api.get('/v1/data-import/events/?after=0&limit=1000', token)).json()) as { events: { type: string; data: unknown }[] };
    const business = { import_supplier: SUPPLIER, external_business_identifier: BIZ };
    expect(feed.events.filter((event) => event.type.startsWith('data_import.business')).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'data_import.business.created-v1', data: business },
      { type: 'data_import.business_contract.added-v1', data: { ...business, business_contract_identifier: BUSINESS_CONTRACT } },
      {
        type: 'data_import.business_payment_instruction.created-v1',
        data: {
          ...business,
          vendor: 'STRIPE',
          reference: REFERENCE,
          instruction_type: 'DIRECT_DEBIT',
          accounts: [{ external_account_number: EXT, platform_account_number: platformAccountNumber }],
        },
      },
    ]);
  });

  it('the same reference again: 201, nothing appended, the vendor not asked again', async () => {
    await createBusinessWithContract(api.ledger);
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    expect((await api.post(PATH, example, token)).status).toBe(201);
    const res = await api.post(PATH, { ...example, vendor: 'ANOTHER' }, token);
    expect(res.status).toBe(201);
    expect(fake.hits).toHaveLength(1);
    expect(await instructionEvents()).toHaveLength(1);
  });

  it('without accounts and valid_from: recorded for the business alone', async () => {
    await createBusinessWithContract(api.ledger);
    fake.script(REFERENCE, { kind: 'found' });
    const { accounts: _a, valid_from: _v, ...bare } = example;
    expect((await api.post(PATH, bare, token)).status).toBe(201);
    expect(await api.ledger.read.listBusinessPaymentInstructions(SUPPLIER, BIZ)).toMatchObject([{ accounts: [], validFrom: null }]);
  });

  it('404 business_not_found for a business never created; the vendor is not asked', async () => {
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    await expectRefused(example, 404, 'business_not_found');
    expect(fake.hits).toEqual([]);
  });

  it('400 account_not_found for an account that is unknown or only staged (attr accounts.N.external_account_number); the vendor is not asked', async () => {
    await createBusinessWithContract(api.ledger);
    await importAccount(api);
    await importAccount(api, 'LEG-STAGED', true);
    fake.script(REFERENCE, { kind: 'found' });
    const body = { ...example, accounts: [{ external_account_number: EXT }, { external_account_number: 'LEG-STAGED' }, { external_account_number: 'NOPE' }] };
    const error = await expectRefused(body, 400, 'account_not_found');
    expect((error['errors'] as { attr: string }[]).map((item) => item.attr)).toEqual(['accounts.1.external_account_number', 'accounts.2.external_account_number']);
    expect(fake.hits).toEqual([]);
    expect(await instructionEvents()).toEqual([]);
  });

  it('400 validation_error for a broken body: reference, type, valid_from, a repeated account', async () => {
    await createBusinessWithContract(api.ledger);
    const { reference: _r, ...noReference } = example;
    const error = await expectErrorBody(
      await api.post(PATH, { ...noReference, type: 'CHEQUE', valid_from: '2025-02-30', accounts: [{ external_account_number: EXT }, { external_account_number: EXT }] }, token),
      400,
      'validation_error',
    );
    // No reference: optional in the platform's schema, but the vendor is asked by it, so the platform's code for a missing reference.
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'invalid_choice', attr: 'type' },
      { code: 'invalid', attr: 'valid_from' },
      { code: 'children_with_duplicate_values', attr: 'accounts.1.external_account_number' },
      { code: 'mutually_exclusive_field_required', attr: 'reference' },
    ]);
  });

  it('without a reference (optional on the platform): 400 mutually_exclusive_field_required at reference, the vendor not asked, nothing written', async () => {
    await createBusinessWithContract(api.ledger);
    const { reference: _r, ...noReference } = example;
    const error = await expectErrorBody(await api.post(PATH, noReference, token), 400, 'validation_error');
    expect(error.errors).toEqual([{ code: 'mutually_exclusive_field_required', attr: 'reference', detail: expect.stringContaining('vendor') }]);
    expect(fake.hits).toEqual([]);
    expect(await instructionEvents()).toEqual([]);
  });

  it.each(['Paused', 'Complete'] as const)('400 import_supplier_migration_not_ongoing while the supplier is %s; the vendor is not asked', async (status) => {
    await createBusinessWithContract(api.ledger);
    await importAccount(api);
    await setImportSupplierStatus(api.ledger, SUPPLIER, status, operator);
    await expectRefused(example, 400, 'import_supplier_migration_not_ongoing');
    expect(fake.hits).toEqual([]);
  });

  it('400 invalid_vendor (attr vendor) for a vendor not configured; 400 payment_instruction_rejected when the vendor says no; 500 payment_vendor_unavailable when it fails; nothing written', async () => {
    await createBusinessWithContract(api.ledger);
    await importAccount(api);
    const unknown = await expectRefused({ ...example, vendor: 'NOBODY' }, 400, 'invalid_vendor');
    expect(unknown['errors']).toEqual([{ code: 'invalid_vendor', detail: unknown['detail'], attr: 'vendor' }]);
    fake.script(REFERENCE, { kind: 'not-found', message: 'No such mandate' });
    const rejected = await expectRefused(example, 400, 'payment_instruction_rejected');
    expect(rejected['error_detail']).toBe('No such mandate');
    fake.script(REFERENCE, { kind: 'status', status: 503 });
    await expectRefused(example, 500, 'payment_vendor_unavailable');
    expect(await instructionEvents()).toEqual([]);
    fake.script(REFERENCE, { kind: 'found' });
    expect((await api.post(PATH, example, token)).status).toBe(201);
  });

  it('403 permission_denied for a key of another supplier, before the body is looked at', async () => {
    await expectErrorBody(await api.post(PATH, { ...example, import_supplier_code: OTHER_SUPPLIER, type: 42 }, token), 403, 'permission_denied');
  });
});

/**
 * GET business/<supplier>/<ext>/ carries the business's payment instructions under the create body's names,
 * a bounded page at a time (what `import-ledger verify` compares businesses/payment-instructions.ndjson with).
 */
describe('GET business/<supplier>/<ext>/: its payment instructions', () => {
  let fake: FakeVendor;
  let api: TestApi;
  let token: string;
  const READ = `/v1/data-import/business/${SUPPLIER}/${BIZ}/`;

  beforeAll(async () => {
    fake = await startFakeVendor();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    api = await createTestApi({ paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: fake.url }, timeoutMs: 300 }) });
    token = await accessToken(api);
  });
  afterEach(() => api.close());

  async function read(path = READ) {
    const res = await api.get(path, token);
    expect(res.status).toBe(200);
    return businessReadResponseSchema.strict().parse(await res.json());
  }

  async function addInstruction(body: Record<string, unknown>): Promise<void> {
    fake.script(body['reference'] as string, { kind: 'found' });
    expect((await api.post(PATH, body, token)).status).toBe(201);
  }

  it('a business without any: an empty list and no next page', async () => {
    await createBusinessWithContract(api.ledger);
    expect(await read()).toEqual({
      external_business_identifier: BIZ,
      business_type: 'EURL',
      company_name: 'Boulangerie Martin EURL',
      siret: '44306184100047',
      contracts: [{ identifier: BUSINESS_CONTRACT, valid_from_date: '2025-01-01' }],
      payment_instructions: [],
      payment_instructions_next: null,
    });
  });

  it('each instruction as the create body gave it (reference, vendor, type, valid_from, accounts), by reference', async () => {
    await createBusinessWithContract(api.ledger);
    await importAccount(api);
    await importAccount(api, 'LEG-0000002');
    const { accounts: _a, valid_from: _v, ...bare } = example;
    await addInstruction({ ...example, reference: 'pm_b', accounts: [{ external_account_number: 'LEG-0000002' }, { external_account_number: EXT }] });
    await addInstruction({ ...bare, reference: 'pm_a', type: 'CARD' });
    const business = await read();
    expect(business.payment_instructions).toEqual([
      { reference: 'pm_a', vendor: 'STRIPE', type: 'CARD', valid_from: null, accounts: [] },
      { reference: 'pm_b', vendor: 'STRIPE', type: 'DIRECT_DEBIT', valid_from: '2025-07-01', accounts: [{ external_account_number: 'LEG-0000002' }, { external_account_number: EXT }] },
    ]);
    expect(business.payment_instructions_next).toBeNull();
    // A reference sent again with other facts is already recorded: the read shows what was recorded.
    await addInstruction({ ...bare, reference: 'pm_a', type: 'DIRECT_DEBIT' });
    expect((await read()).payment_instructions[0]).toMatchObject({ reference: 'pm_a', type: 'CARD' });
  });

  it(`${BUSINESS_PAYMENT_INSTRUCTIONS_PAGE} at most an answer: payment_instructions_next reads the rest, each once`, async () => {
    await createBusinessWithContract(api.ledger);
    const { accounts: _a, ...noAccounts } = example;
    const references = Array.from({ length: BUSINESS_PAYMENT_INSTRUCTIONS_PAGE + 3 }, (_, i) => `pm_${String(i).padStart(4, '0')}`);
    for (const reference of references) await addInstruction({ ...noAccounts, reference });
    const first = await read();
    expect(first.payment_instructions).toHaveLength(BUSINESS_PAYMENT_INSTRUCTIONS_PAGE);
    expect(first.payment_instructions_next).toBe(`${READ}?payment_instructions_after=${references[BUSINESS_PAYMENT_INSTRUCTIONS_PAGE - 1]}`);
    const second = await read(first.payment_instructions_next!);
    expect(second.company_name).toBe(first.company_name);
    expect(second.payment_instructions_next).toBeNull();
    expect([...first.payment_instructions, ...second.payment_instructions].map((p) => p.reference)).toEqual(references);
  });

  it('400 invalid_query_parameter for an empty or repeated payment_instructions_after; 404 business_not_found for a business never created', async () => {
    await createBusinessWithContract(api.ledger);
    const empty = await expectErrorBody(await api.get(`${READ}?payment_instructions_after=`, token), 400, 'invalid_query_parameter');
    expect(empty.errors.map((e) => e.attr)).toEqual(['payment_instructions_after']);
    await expectErrorBody(await api.get(`${READ}?payment_instructions_after=a&payment_instructions_after=b`, token), 400, 'invalid_query_parameter');
    await expectErrorBody(await api.get(`/v1/data-import/business/${SUPPLIER}/BIZ-NEVER/`, token), 404, 'business_not_found');
  });

  it('403 permission_denied for a key of another supplier', async () => {
    await expectErrorBody(await api.get(`/v1/data-import/business/${OTHER_SUPPLIER}/${BIZ}/`, token), 403, 'permission_denied');
  });
});
