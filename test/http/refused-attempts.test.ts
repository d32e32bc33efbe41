import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedAttemptStreamId, type AccountImportAttemptRefused } from '../../events/import-attempt.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** Every refused stage, process or record import is a fact on the account's audit stream, and only that. */

const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const SCHEDULE = '/v2/data-import/accounts/';
const EXT = 'LEG-0000001';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;
const domestic = (): Payload => structuredClone(loadExample('account-domestic.json'));
const badLandline = (): Payload => {
  const p = domestic();
  p.customers[0].landline = '12345';
  return p;
};
const facts = async (api: TestApi, supplier = SUPPLIER, ext = EXT): Promise<AccountImportAttemptRefused['data'][]> =>
  (await api.ledger.store.readStream(refusedAttemptStreamId(supplier, ext))).flatMap((stored) =>
    stored.event.type === 'AccountImportAttemptRefused' ? [stored.event.data] : [],
  );

describe('refused attempts (v1)', () => {
  let api: TestApi;
  let token: string;
  beforeEach(async () => {
    api = await createTestApi();
    token = await accessToken(api);
  });
  afterEach(() => api.close());

  it('a refused stage is recorded with codes and paths; the same refusal back to back once; another one again', async () => {
    await expectErrorBody(await api.post(STAGE, badLandline(), token), 400, 'account_failed_validation');
    await expectErrorBody(await api.post(STAGE, badLandline(), token), 400, 'account_failed_validation');
    expect(await facts(api)).toEqual([
      expect.objectContaining({ operation: 'stage', dryRun: false, code: 'account_failed_validation', errors: [{ code: 'invalid_phone_number', attr: 'customers.0.landline' }], accountStreamVersion: 0 }),
    ]);
    const mobile = domestic();
    mobile.customers[0].mobile = 'abc';
    await expectErrorBody(await api.post(STAGE, mobile, token), 400, 'account_failed_validation');
    await expectErrorBody(await api.post(STAGE, badLandline(), token), 400, 'account_failed_validation');
    expect((await facts(api)).map((f) => f.errors[0]?.attr)).toEqual(['customers.0.landline', 'customers.0.mobile', 'customers.0.landline']);
  });

  it('a refused process is recorded, body refusals included (dry runs flagged), but a successful dry run is not a refusal', async () => {
    await expectErrorBody(await api.post(PROCESS, { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token), 400, 'import_process_does_not_exist');
    expect((await api.post(STAGE, domestic(), token)).status).toBe(201);
    await expectErrorBody(await api.post(PROCESS, { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: 7, dry_run: true }, token), 400, 'validation_error');
    await expectErrorBody(await api.post(PROCESS, { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM, dry_run: true }, token), 400, 'dry_run_rollback');
    expect((await facts(api)).map((f) => [f.operation, f.code, f.dryRun, f.accountStreamVersion, f.errors])).toEqual([
      ['process', 'import_process_does_not_exist', false, 0, [{ code: 'import_process_does_not_exist', attr: 'non_field_errors' }]],
      ['process', 'validation_error', true, 1, [{ code: 'invalid', attr: 'operations_team_name' }]],
    ]);
  });

  it('records nothing for a caller who is not authenticated, or for a supplier the key is not scoped to', async () => {
    const noAuth = await api.app.request(STAGE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(badLandline()) });
    await expectErrorBody(noAuth, 401, 'not_authenticated');
    await expectErrorBody(await api.post(STAGE, badLandline(), 'garbage'), 401, 'authentication_failed');
    await expectErrorBody(await api.post(STAGE, { ...badLandline(), import_supplier: OTHER_SUPPLIER }, token), 403, 'permission_denied');
    await expectErrorBody(
      await api.post(PROCESS, { external_account_number: EXT, import_supplier_code: OTHER_SUPPLIER, operations_team_name: TEAM }, token),
      403,
      'permission_denied',
    );
    expect(await facts(api)).toEqual([]);
    expect(await facts(api, OTHER_SUPPLIER)).toEqual([]);
  });
});

describe('refused record imports', () => {
  let api: TestApi;
  let token: string;
  beforeEach(async () => {
    api = await createTestApi();
    token = await accessToken(api);
  });
  afterEach(() => api.close());

  const TRANSACTIONS = '/v1/data-import/transactions/create/';
  const futureCharge = { transaction_id: 'TX-F', transaction_date: '2099-01-01', amount: 1, type: 'CHARGE', reason: 'IMPORTED_CHARGE' };
  /** What the account's import shows: the v2 status, the progress counters, the failures list. */
  const importView = async () => ({
    status: await (await api.get(`/v2/data-import/accounts/${SUPPLIER}/${EXT}/`, token)).json(),
    progress: ((await (await api.get(`/v1/data-import/import-progress/${SUPPLIER}/`, token)).json()) as { accounts: unknown }).accounts,
    failures: await (await api.get(`/v1/data-import/import-failures/${SUPPLIER}/`, token)).json(),
  });

  it('a refused transactions request records one fact naming the operation; the account\'s import status, progress and failures are unchanged', async () => {
    expect((await api.post(STAGE, domestic(), token)).status).toBe(201);
    expect((await api.post(PROCESS, { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token)).status).toBe(201);
    const before = await importView();
    const last = (await api.ledger.store.readAll(0, 100_000)).at(-1)!.globalPosition;

    const body = { import_supplier: SUPPLIER, external_account_number: EXT, transactions: [futureCharge] };
    await expectErrorBody(await api.post(TRANSACTIONS, body, token), 400, 'transactions_failed_validation');
    const added = await api.ledger.store.readAll(last, 100_000);
    expect(added.map((stored) => [stored.streamId, stored.event.type])).toEqual([[refusedAttemptStreamId(SUPPLIER, EXT), 'AccountImportAttemptRefused']]);
    expect(await facts(api)).toEqual([
      expect.objectContaining({
        operation: 'transactions',
        dryRun: false,
        code: 'transactions_failed_validation',
        errors: [{ code: 'transaction_in_future', attr: 'transactions.0.transaction_date' }],
      }),
    ]);
    // A dry run is flagged; the alias account_number names the account too.
    const { external_account_number: _ext, ...aliased } = body;
    await expectErrorBody(await api.post(TRANSACTIONS, { ...aliased, account_number: EXT, dry_run: true }, token), 400, 'transactions_failed_validation');
    expect((await facts(api)).map((f) => [f.operation, f.dryRun])).toEqual([['transactions', false], ['transactions', true]]);
    expect(await importView()).toEqual(before);
  });

  it('a refused record import of an account never staged is recorded, and adds no account to the migration', async () => {
    const before = await importView();
    await expectErrorBody(await api.post('/v1/data-import/notes/create/', { ...loadExample('notes.json'), external_account_number: EXT }, token), 404, 'account_not_found');
    const recorded = await facts(api);
    expect(recorded.map((f) => f.operation)).toEqual(['notes']);
    expect(await importView()).toEqual(before);
  });
});

/**
 * The property: whatever the sequence of stages, processes, v2 schedules and
 * supplier changes, a refused one appends nothing to the log but its fact on
 * the account's audit stream (at most one event, none when it repeats the
 * last refusal), and that fact names the answered code.
 */
type Step =
  | { kind: 'stage'; valid: boolean }
  | { kind: 'process'; team: string; dryRun: boolean }
  | { kind: 'schedule'; valid: boolean; window: 'none' | 'past' | 'far' }
  | { kind: 'supplier'; to: 'Ongoing' | 'Paused' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('stage' as const), valid: fc.boolean() }),
  fc.record({ kind: fc.constant('process' as const), team: fc.constantFrom(TEAM, 'Nobody'), dryRun: fc.boolean() }),
  fc.record({ kind: fc.constant('schedule' as const), valid: fc.boolean(), window: fc.constantFrom('none' as const, 'past' as const, 'far' as const) }),
  fc.record({ kind: fc.constant('supplier' as const), to: fc.constantFrom('Ongoing' as const, 'Paused' as const) }),
);

describe('property: a refused attempt leaves the log unchanged apart from its audit fact', () => {
  it('holds for arbitrary sequences of attempts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const api = await createTestApi();
        try {
          const token = await accessToken(api);
          for (const s of steps) {
            if (s.kind === 'supplier') {
              await setImportSupplierStatus(api.ledger, SUPPLIER, s.to, operator);
              continue;
            }
            const before = await api.ledger.store.readAll(0, 100_000);
            const last = before.at(-1)?.globalPosition ?? 0;
            const res = await send(api, token, s);
            const body = (await res.json()) as { code?: string };
            const added = await api.ledger.store.readAll(last, 100_000);
            if (res.status < 400 || body.code === 'dry_run_rollback') continue;
            expect(added.length).toBeLessThanOrEqual(1);
            for (const stored of added) {
              expect(stored.streamId).toBe(refusedAttemptStreamId(SUPPLIER, EXT));
              expect(stored.event.type === 'AccountImportAttemptRefused' && stored.event.data.code).toBe(body.code);
            }
            if (added.length === 0) {
              const previous = before.filter((stored) => stored.streamId === refusedAttemptStreamId(SUPPLIER, EXT)).at(-1);
              expect(previous?.event.type === 'AccountImportAttemptRefused' && previous.event.data.code).toBe(body.code);
            }
          }
        } finally {
          await api.close();
        }
      }),
      { numRuns: Number(process.env['LEDGER_PROPERTY_RUNS'] ?? 15) },
    );
  }, 240_000);
});

function send(api: TestApi, token: string, s: Exclude<Step, { kind: 'supplier' }>): Promise<Response> {
  switch (s.kind) {
    case 'stage':
      return api.post(STAGE, s.valid ? domestic() : badLandline(), token);
    case 'process':
      return api.post(PROCESS, { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: s.team, dry_run: s.dryRun }, token);
    case 'schedule': {
      const window =
        s.window === 'past' ? { schedule_window_start: '2020-01-01T00:00:00Z' } : s.window === 'far' ? { schedule_window_end: '2030-01-01T00:00:00Z' } : {};
      return api.post(SCHEDULE, { payload: { ...(s.valid ? domestic() : badLandline()), operations_team_name: TEAM }, task_params: window }, token);
    }
  }
}
