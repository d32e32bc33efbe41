import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { refusedAttemptStreamId } from '../../events/import-attempt.js';
import { createPaymentVendors } from '../../src/adapters/payment-vendors.js';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { createPaymentInstructionResponseSchema } from '../../src/answers/payment-instructions.js';
import { paymentInstructionErrorBodySchema } from '../../src/http/routes/payment-instructions.js';
import { instructionBody, startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { createTestApi, loadExample, operator, OTHER_SUPPLIER, SUPPLIER, TEAM, type TestApi } from '../support/ledger.js';

const PATH = '/v1/data-import/payment-instruction/create/';
const EXT = 'LEG-0000001';
const example = loadExample('payment-instruction.json');
const REFERENCE = example['reference'] as string;
const VENDOR_ERROR_EXTRAS = ['error_detail', 'external_account_number', 'import_supplier', 'reference'];

async function stage(api: TestApi, supplier = SUPPLIER, ext = EXT): Promise<void> {
  const validated = validateAccountPayload({ ...loadExample('account-domestic.json'), import_supplier: supplier, external_account_number: ext });
  if (!validated.ok) throw new Error('example must validate');
  await stageAccount(api.ledger, validated.data, operator);
}

async function importAccount(api: TestApi, supplier = SUPPLIER, ext = EXT): Promise<string> {
  await stage(api, supplier, ext);
  const result = await processAccount(
    api.ledger,
    { importSupplier: supplier, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false },
    operator,
  );
  return result.platformAccountNumber;
}

describe('POST payment-instruction/create/ (spec 4.12)', () => {
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
    api = await createTestApi({
      paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: fake.url }, timeoutMs: 300 }),
    });
    token = await accessToken(api);
    fake.hits.length = 0;
  });
  afterEach(() => api.close());

  const accountEvents = async (supplier = SUPPLIER, ext = EXT) =>
    (await api.ledger.store.readStream(accountImportProcessStreamId(supplier, ext))).map((stored) => stored.event);
  /** The refusals recorded on the account's audit stream: the operation and code of each. */
  const refusals = async () =>
    (await api.ledger.store.readStream(refusedAttemptStreamId(SUPPLIER, EXT))).map(({ event }) => event.type === 'AccountImportAttemptRefused' && [event.data.operation, event.data.code]);

  it('201 with the example: the vendor is asked, the instruction recorded with its details as given', async () => {
    const platformAccountNumber = await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    const res = await api.post(PATH, example, token);
    expect(res.status).toBe(201);
    const body = createPaymentInstructionResponseSchema.strict().parse(await res.json());
    expect(body).toEqual({ platform_account_number: platformAccountNumber, reference: REFERENCE });
    expect(fake.hits).toEqual([{ reference: REFERENCE, accept: 'application/json', method: 'GET' }]);
    const created = (await accountEvents()).filter((event) => event.type === 'PaymentInstructionCreated');
    expect(created).toEqual([
      {
        type: 'PaymentInstructionCreated',
        version: 1,
        data: {
          importSupplier: SUPPLIER,
          externalAccountNumber: EXT,
          platformAccountNumber,
          vendor: 'STRIPE',
          reference: REFERENCE,
          type: 'CARD',
          vendorDetails: instructionBody(REFERENCE),
          createdAt: api.clock.now.toISOString(),
        },
      },
    ]);
    const rows = await api.ledger.read.listPaymentInstructions(SUPPLIER, EXT);
    expect(rows).toMatchObject([{ reference: REFERENCE, vendor: 'STRIPE', type: 'CARD', vendorStatus: 'active', platformAccountNumber }]);
  });

  it('the same reference twice is idempotent: 201 again, nothing appended, the vendor not asked again', async () => {
    const platformAccountNumber = await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    expect((await api.post(PATH, example, token)).status).toBe(201);
    const before = await accountEvents();
    fake.script(REFERENCE, { kind: 'status', status: 503 });
    const again = await api.post(PATH, { ...example, type: 'DIRECT_DEBIT' }, token);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual({ platform_account_number: platformAccountNumber, reference: REFERENCE });
    expect(await accountEvents()).toEqual(before);
    expect(fake.hits).toHaveLength(1);
  });

  it('vendor says not found: 400 payment_instruction_rejected with the platform fields, nothing written', async () => {
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'not-found', message: `No such payment_method: '${REFERENCE}'` });
    const before = await accountEvents();
    const res = await api.post(PATH, example, token);
    const body = await expectErrorBody(res, 400, 'payment_instruction_rejected', VENDOR_ERROR_EXTRAS);
    paymentInstructionErrorBodySchema.parse(body);
    expect(body).toMatchObject({
      error_detail: `No such payment_method: '${REFERENCE}'`,
      external_account_number: EXT,
      import_supplier: SUPPLIER,
      reference: REFERENCE,
    });
    expect(await accountEvents()).toEqual(before);
    // The refusal is a fact of the account's audit stream.
    expect(await refusals()).toEqual([['payment_instruction', 'payment_instruction_rejected']]);
  });

  it('vendor answers 503: 500 payment_vendor_unavailable in the spec-7 shape, nothing written; a retry as is succeeds', async () => {
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'status', status: 503, body: { message: 'maintenance' } });
    const before = await accountEvents();
    const body = await expectErrorBody(await api.post(PATH, example, token), 500, 'payment_vendor_unavailable', VENDOR_ERROR_EXTRAS);
    expect(body.error_detail).toBe('Payment vendor STRIPE answered HTTP 503: maintenance');
    expect(await accountEvents()).toEqual(before);
    expect(await api.ledger.read.listPaymentInstructions(SUPPLIER, EXT)).toEqual([]);
    // A vendor that cannot be reached refused nothing: no refusal is recorded.
    expect(await refusals()).toEqual([]);

    fake.script(REFERENCE, { kind: 'found' });
    expect((await api.post(PATH, example, token)).status).toBe(201);
  });

  it('vendor hangs past the timeout: 500 payment_vendor_unavailable, nothing written', async () => {
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'hang' });
    const before = await accountEvents();
    const body = await expectErrorBody(await api.post(PATH, example, token), 500, 'payment_vendor_unavailable', VENDOR_ERROR_EXTRAS);
    expect(body.error_detail).toMatch(/did not answer within 300 ms/);
    expect(await accountEvents()).toEqual(before);
  });

  it('a vendor not configured: 400 invalid_vendor at attr vendor, no call', async () => {
    await importAccount(api);
    const body = await expectErrorBody(
      await api.post(PATH, { ...example, vendor: 'GOCARDLESS' }, token),
      400,
      'invalid_vendor',
      VENDOR_ERROR_EXTRAS,
    );
    expect(body.errors).toEqual([{ code: 'invalid_vendor', detail: body.detail, attr: 'vendor' }]);
    expect(fake.hits).toEqual([]);
  });

  it('400 account_not_found (the platform documents no 404 here) for an unknown account, a staged-only account, or a wrong supplier code; the vendor is not asked', async () => {
    fake.script(REFERENCE, { kind: 'found' });
    await expectErrorBody(await api.post(PATH, example, token), 400, 'account_not_found', VENDOR_ERROR_EXTRAS);
    await stage(api);
    await expectErrorBody(await api.post(PATH, example, token), 400, 'account_not_found', VENDOR_ERROR_EXTRAS);
    await importAccount(api, OTHER_SUPPLIER, 'LEG-0000002');
    const otherToken = await accessToken(api, api.otherKey);
    await expectErrorBody(await api.post(PATH, { ...example, import_supplier: OTHER_SUPPLIER }, otherToken), 400, 'account_not_found', VENDOR_ERROR_EXTRAS);
    expect(fake.hits).toEqual([]);
  });

  it('400 import_supplier_migration_not_ongoing when the supplier is Paused or Complete; the vendor is not asked', async () => {
    await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    for (const status of ['Paused', 'Complete'] as const) {
      await setImportSupplierStatus(api.ledger, SUPPLIER, status, operator);
      await expectErrorBody(await api.post(PATH, example, token), 400, 'import_supplier_migration_not_ongoing', VENDOR_ERROR_EXTRAS);
    }
    expect(fake.hits).toEqual([]);
  });

  it('403 for a supplier the key is not scoped to, before the body is validated; 401 without a token', async () => {
    await importAccount(api);
    await expectErrorBody(await api.post(PATH, { ...example, import_supplier: OTHER_SUPPLIER, type: 'NOPE' }, token), 403, 'permission_denied');
    const res = await api.app.request(PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example) });
    await expectErrorBody(res, 401, 'not_authenticated');
  });

  it.each([
    ['reference missing (and no instruction_reference)', { reference: undefined }, 'reference', 'mutually_exclusive_field_required'],
    ['both reference and instruction_reference', { instruction_reference: 'pm_other' }, 'reference', 'mutually_exclusive_field_required'],
    ['instruction_reference too long (the platform\'s 128)', { reference: undefined, instruction_reference: 'x'.repeat(129) }, 'instruction_reference', 'max_length'],
    ['reference blank', { reference: '  ' }, 'reference', 'blank'],
    ['reference too long', { reference: 'x'.repeat(513) }, 'reference', 'max_length'],
    ['type unknown', { type: 'BITCOIN' }, 'type', 'invalid_choice'],
    ['vendor missing', { vendor: undefined }, 'vendor', 'required'],
    ['external_account_number null', { external_account_number: null }, 'external_account_number', 'null'],
  ])('400 validation_error: %s', async (_name, change, attr, code) => {
    await importAccount(api);
    const body = await expectErrorBody(await api.post(PATH, { ...example, ...change }, token), 400, 'validation_error');
    expect(body.errors).toContainEqual(expect.objectContaining({ attr, code }));
    expect(fake.hits).toEqual([]);
  });

  it('the platform\'s deprecated instruction_reference stands for reference: the vendor is asked for it and the answer names it as reference', async () => {
    const platformAccountNumber = await importAccount(api);
    fake.script(REFERENCE, { kind: 'found' });
    const { reference: _r, ...noReference } = example;
    const res = await api.post(PATH, { ...noReference, instruction_reference: REFERENCE }, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toEqual({ platform_account_number: platformAccountNumber, reference: REFERENCE });
    expect(fake.hits).toEqual([{ reference: REFERENCE, accept: 'application/json', method: 'GET' }]);
  });

  it('400 parse_error for malformed JSON', async () => {
    await expectErrorBody(await api.post(PATH, '{"import_supplier":', token), 400, 'parse_error');
  });
});
