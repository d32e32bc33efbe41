import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountCreationStreamId } from '../../events/account-creation.js';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import { refusedAttemptStreamId } from '../../events/import-attempt.js';
import { cancelAccountCreation } from '../../src/application/account-creations.js';
import { setImportSupplierConfig, setImportSupplierStatus } from '../../src/application/operator.js';
import { AccountCreationScheduler } from '../../src/scheduler/account-creation-scheduler.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** The platform's v2 account operations, through the real app, with the scheduler run by hand. */

const VALIDATE = '/v2/data-import/accounts/validate/';
const SCHEDULE = '/v2/data-import/accounts/';
const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const EXT = 'LEG-0000001';
const status = (ext = EXT, supplier = SUPPLIER) => `/v2/data-import/accounts/${supplier}/${ext}/`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;
const domestic = (): Payload => ({ ...structuredClone(loadExample('account-domestic.json')), operations_team_name: TEAM });

let api: TestApi;
let token: string;
let scheduler: AccountCreationScheduler;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
  scheduler = new AccountCreationScheduler({ ctx: api.ledger, logger: pino({ level: 'silent' }), actor: { actor: 'system:scheduler', requestId: null } });
});
afterEach(() => api.close());

const inMinutes = (minutes: number) => new Date(api.clock.now.getTime() + minutes * 60_000).toISOString();
const schedule = (payload: Payload, taskParams?: Record<string, unknown>) =>
  api.post(SCHEDULE, taskParams === undefined ? { payload } : { payload, task_params: taskParams }, token);
async function statusOf(ext = EXT): Promise<Record<string, any>> {
  const res = await api.get(status(ext), token);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}
const streamTypes = async (streamId: string) => (await api.ledger.store.readStream(streamId)).map((s) => s.event.type);

describe('POST /v2/data-import/accounts/validate/', () => {
  it('answers 200 {} for a valid account under payload', async () => {
    const res = await api.post(VALIDATE, { payload: domestic() }, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });

  it('answers 400 account_failed_validation with the path inside the account, and writes nothing', async () => {
    const payload = domestic();
    payload.customers[0].landline = '12345';
    const body = await expectErrorBody(await api.post(VALIDATE, { payload }, token), 400, 'account_failed_validation');
    expect(body.errors).toContainEqual(expect.objectContaining({ code: 'invalid_phone_number', attr: 'customers.0.landline' }));
    expect(await streamTypes(refusedAttemptStreamId(SUPPLIER, EXT))).toEqual([]);
  });

  it('refuses a body without payload (400 validation_error) and another supplier with 403', async () => {
    const missing = await expectErrorBody(await api.post(VALIDATE, { account: domestic() }, token), 400, 'validation_error');
    expect(missing.errors).toContainEqual(expect.objectContaining({ code: 'required', attr: 'payload' }));
    await expectErrorBody(await api.post(VALIDATE, { payload: { ...domestic(), import_supplier: OTHER_SUPPLIER } }, token), 403, 'permission_denied');
  });
});

describe('POST /v2/data-import/accounts/ and the scheduler', () => {
  it('without a window: stages, answers 201 {}, and the scheduler creates the account at once', async () => {
    const res = await schedule(domestic(), { is_dry_run: false });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({});
    const pending = await statusOf();
    expect(pending).toMatchObject({ status: 'PENDING', platform_identifier: null, latest_error: null });
    expect(pending['latest_event']).toMatchObject({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED', data: { is_dry_run: false } });

    expect(await scheduler.runDue()).toEqual({ ran: 1 });
    const done = await statusOf();
    expect(done).toMatchObject({ status: 'PROCESSED', platform_identifier: expect.stringMatching(/^A-[0-9A-F]{8}$/) });
    expect(done['latest_event']).toMatchObject({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED' });
    // The v1 view agrees: the account is imported with the same number.
    const transfer = await api.get(`/v1/data-import/account-transfer-status/${SUPPLIER}/${EXT}/`, token);
    expect(await transfer.json()).toEqual({ status: 'PENDING', platform_account_number: done['platform_identifier'] });
    expect(await scheduler.runDue()).toEqual({ ran: 0 });
    expect((await streamTypes(accountImportProcessStreamId(SUPPLIER, EXT))).filter((t) => t === 'AccountProcessed')).toHaveLength(1);
  });

  it('with a window: nothing runs before it opens, and it runs as soon as it has', async () => {
    expect((await schedule(domestic(), { schedule_window_start: inMinutes(30), schedule_window_end: inMinutes(90) })).status).toBe(201);
    expect(await scheduler.runDue()).toEqual({ ran: 0 });
    api.clock.advanceSeconds(29 * 60);
    expect(await scheduler.runDue()).toEqual({ ran: 0 });
    expect((await statusOf())['status']).toBe('PENDING');
    api.clock.advanceSeconds(60);
    expect(await scheduler.runDue()).toEqual({ ran: 1 });
    expect((await statusOf())['status']).toBe('PROCESSED');
  });

  it('a window that closed before any worker ran it ends ERRORED (schedule_window_elapsed), the account not created', async () => {
    await schedule(domestic(), { schedule_window_end: inMinutes(10) });
    api.clock.advanceSeconds(11 * 60);
    await scheduler.runDue();
    const body = await statusOf();
    expect(body).toMatchObject({ status: 'ERRORED', platform_identifier: null, latest_error: { code: 'schedule_window_elapsed', domain: 'import_process' } });
    expect(await streamTypes(accountImportProcessStreamId(SUPPLIER, EXT))).toEqual(['AccountStaged']);
  });

  it.each([
    ['a start in the past', { schedule_window_start: '2026-11-21T09:59:59Z' }, 'schedule_window_start_in_past', 'task_params.schedule_window_start'],
    ['an end more than 4 days ahead', { schedule_window_end: '2026-11-25T10:00:01Z' }, 'schedule_window_end_too_far_in_future', 'task_params.schedule_window_end'],
    ['a start after the end', { schedule_window_start: '2026-11-22T10:00:00Z', schedule_window_end: '2026-11-22T09:00:00Z' }, 'schedule_window_start__after_end', 'non_field_errors'],
    ['an end already past without a start', { schedule_window_end: '2026-11-21T09:00:00+00:00' }, 'schedule_window_start__after_end', 'non_field_errors'],
  ])('refuses %s with 400 %s, staging nothing', async (_name, params, code, attr) => {
    const body = await expectErrorBody(await schedule(domestic(), params), 400, code);
    expect(body.errors).toEqual([expect.objectContaining({ code, attr })]);
    expect(await streamTypes(accountImportProcessStreamId(SUPPLIER, EXT))).toEqual([]);
    expect(await streamTypes(accountCreationStreamId(SUPPLIER, EXT))).toEqual([]);
  });

  it('accepts a window ending exactly 4 days ahead, with an offset', async () => {
    expect((await schedule(domestic(), { schedule_window_start: '2026-11-21T12:00:00+01:00', schedule_window_end: '2026-11-25T11:00:00+01:00' })).status).toBe(201);
  });

  it('refuses a malformed window date-time with 400 validation_error under task_params', async () => {
    const body = await expectErrorBody(await schedule(domestic(), { schedule_window_start: 'tomorrow' }), 400, 'validation_error');
    expect(body.errors).toEqual([expect.objectContaining({ code: 'invalid', attr: 'task_params.schedule_window_start' })]);
  });

  it('an invalid payload is 400 import_process_failed_validation (domain import_process) and a refused-attempt fact', async () => {
    const payload = domestic();
    payload.customers[0].landline = '12345';
    const body = await expectErrorBody(await schedule(payload), 400, 'import_process_failed_validation', ['domain']);
    expect(body['domain']).toBe('import_process');
    expect(body.errors).toContainEqual(expect.objectContaining({ code: 'invalid_phone_number', attr: 'customers.0.landline' }));
    const facts = await api.ledger.store.readStream(refusedAttemptStreamId(SUPPLIER, EXT));
    expect(facts.map((f) => f.event.data)).toEqual([
      expect.objectContaining({ operation: 'schedule', code: 'import_process_failed_validation', errors: [{ code: 'invalid_phone_number', attr: 'customers.0.landline' }] }),
    ]);
    // Never the payload: the refused value appears nowhere in the fact.
    expect(JSON.stringify(facts)).not.toContain('12345');
    // Never staged: there is no import process to show.
    await expectErrorBody(await api.get(status(), token), 404, 'not_found');
  });

  it('the team: named in the payload, else the supplier default (operator), else 400 operations_team_should_be_provided', async () => {
    const payload = domestic();
    delete payload.operations_team_name;
    const none = await expectErrorBody(await schedule(payload), 400, 'operations_team_should_be_provided');
    expect(none.errors).toEqual([expect.objectContaining({ attr: 'operations_team_name' })]);
    await expectErrorBody(await schedule({ ...payload, operations_team_name: 'Nobody' }), 400, 'operations_team_name_does_not_exist');
    await setImportSupplierConfig(api.ledger, SUPPLIER, { defaultOperationsTeamName: TEAM }, operator);
    expect((await schedule(payload)).status).toBe(201);
    await scheduler.runDue();
    const rows = await api.execute(`SELECT operations_team_name FROM account_import_processes WHERE external_account_number = '${EXT}'`);
    expect(rows).toEqual([{ operations_team_name: TEAM }]);
  });

  it('the default team must exist', async () => {
    await expect(setImportSupplierConfig(api.ledger, SUPPLIER, { defaultOperationsTeamName: 'Nobody' }, operator)).rejects.toMatchObject({
      code: 'operations_team_name_does_not_exist',
    });
  });

  it('an imported account is 400 account_import_process_already_imported with account_id and non_field_errors', async () => {
    await schedule(domestic());
    await scheduler.runDue();
    const number = (await statusOf())['platform_identifier'];
    const body = await expectErrorBody(await schedule(domestic()), 400, 'account_import_process_already_imported', [
      'account_id',
      'non_field_errors',
      'external_account_number',
      'platform_account_number',
    ]);
    expect(body['account_id']).toBe(number);
    expect(body['non_field_errors']).toEqual({ code: 'account_import_process_already_imported', detail: body.detail });
  });

  it('a dry run: DRY_RUN_SUCCEEDED, recorded on the dry-run stream, the account not created', async () => {
    await schedule(domestic(), { is_dry_run: true });
    await scheduler.runDue();
    expect(await statusOf()).toMatchObject({ status: 'DRY_RUN_SUCCEEDED', platform_identifier: null });
    expect(await streamTypes(accountImportProcessStreamId(SUPPLIER, EXT))).toEqual(['AccountStaged']);
    expect(await streamTypes(accountProcessDryRunStreamId(SUPPLIER, EXT))).toEqual(['AccountProcessDryRunSucceeded']);
    // Then the real one.
    await schedule(domestic());
    await scheduler.runDue();
    expect((await statusOf())['status']).toBe('PROCESSED');
  });

  it('a run refused by a rule ends ERRORED with latest_error, and the refusal is a fact (DRY_RUN_ERRORED for a dry run)', async () => {
    await schedule(domestic(), { is_dry_run: true });
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Paused', operator);
    await scheduler.runDue();
    expect(await statusOf()).toMatchObject({ status: 'DRY_RUN_ERRORED', latest_error: { code: 'import_supplier_migration_not_ongoing', domain: 'import_process' } });
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Ongoing', operator);
    await schedule(domestic());
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Paused', operator);
    await scheduler.runDue();
    const body = await statusOf();
    expect(body).toMatchObject({ status: 'ERRORED', latest_error: { code: 'import_supplier_migration_not_ongoing' } });
    expect(body['latest_event']).toMatchObject({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED', data: { code: 'import_supplier_migration_not_ongoing' } });
    const facts = await api.ledger.store.readStream(refusedAttemptStreamId(SUPPLIER, EXT));
    expect(facts.map((f) => f.event.type === 'AccountImportAttemptRefused' && [f.event.data.operation, f.event.data.dryRun])).toEqual([
      ['scheduled_run', true],
      ['scheduled_run', false],
    ]);
  });

  it('a cancelled creation is CANCELLED and never runs; the staged data stays', async () => {
    await schedule(domestic(), { schedule_window_start: inMinutes(5) });
    await cancelAccountCreation(api.ledger, SUPPLIER, EXT, operator);
    expect((await statusOf())['status']).toBe('CANCELLED');
    api.clock.advanceSeconds(600);
    expect(await scheduler.runDue()).toEqual({ ran: 0 });
    expect(await streamTypes(accountImportProcessStreamId(SUPPLIER, EXT))).toEqual(['AccountStaged']);
    await expect(cancelAccountCreation(api.ledger, SUPPLIER, EXT, operator)).rejects.toMatchObject({ code: 'account_creation_not_scheduled' });
  });

  it('is scoped: another supplier is 403 and records nothing; no token is 401', async () => {
    await expectErrorBody(await schedule({ ...domestic(), import_supplier: OTHER_SUPPLIER }), 403, 'permission_denied');
    await expectErrorBody(await api.get(status(EXT, OTHER_SUPPLIER), token), 403, 'permission_denied');
    const noAuth = await api.app.request(SCHEDULE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payload: domestic() }) });
    await expectErrorBody(noAuth, 401, 'not_authenticated');
    expect(await streamTypes(refusedAttemptStreamId(OTHER_SUPPLIER, EXT))).toEqual([]);
    expect(await streamTypes(refusedAttemptStreamId(SUPPLIER, EXT))).toEqual([]);
  });

  it('under an Idempotency-Key a retry gets the stored 201 and schedules nothing more', async () => {
    const headers = { 'idempotency-key': 'v2-schedule-1' };
    const first = await api.post(SCHEDULE, { payload: domestic() }, token, headers);
    const again = await api.post(SCHEDULE, { payload: domestic() }, token, headers);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(await streamTypes(accountCreationStreamId(SUPPLIER, EXT))).toEqual(['AccountCreationScheduled']);
  });
});

describe('GET /v2/data-import/accounts/<code>/<ext>/ for v1-staged accounts', () => {
  it('PENDING once staged, ERRORED with latest_error after a refused process, PROCESSED after a process', async () => {
    expect((await api.post(STAGE, loadExample('account-domestic.json'), token)).status).toBe(201);
    const staged = await statusOf();
    expect(staged).toMatchObject({ status: 'PENDING', platform_identifier: null, latest_error: null, created_at: '2026-11-21T10:00:00.000Z' });
    expect(staged['latest_event']).toMatchObject({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', data: null });

    const request = { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: 'Nobody' };
    await expectErrorBody(await api.post(PROCESS, request, token), 400, 'operations_team_name_does_not_exist');
    expect(await statusOf()).toMatchObject({ status: 'ERRORED', latest_error: { code: 'operations_team_name_does_not_exist', domain: 'import_process' } });

    const ok = await api.post(PROCESS, { ...request, operations_team_name: TEAM }, token);
    expect(ok.status).toBe(201);
    const { platform_account_number: number } = (await ok.json()) as { platform_account_number: string };
    expect(await statusOf()).toMatchObject({ status: 'PROCESSED', platform_identifier: number, latest_error: { code: 'operations_team_name_does_not_exist' } });
  });
});

describe('hostile bodies on the v2 POSTs', () => {
  it('any JSON body, or the example with any field replaced by any JSON value, is answered below 500 in the error shape', async () => {
    const fc = (await import('fast-check')).default;
    const paths = ['payload', 'payload.customers', 'payload.external_account_number', 'payload.import_supplier', 'payload.operations_team_name', 'task_params', 'task_params.is_dry_run', 'task_params.schedule_window_start', 'task_params.schedule_window_end'];
    const mutated = fc.record({ path: fc.constantFrom(...paths), value: fc.jsonValue() }).map(({ path, value }) => {
      const body: Payload = { payload: domestic(), task_params: { is_dry_run: true } };
      const keys = path.split('.');
      let target = body;
      for (const key of keys.slice(0, -1)) target = target[key];
      target[keys.at(-1)!] = value;
      return body;
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), mutated), fc.constantFrom(SCHEDULE, VALIDATE), async (body, path) => {
        const res = await api.post(path, body, token);
        expect(res.status, await res.clone().text()).toBeLessThan(500);
        if (res.status < 400) return;
        const { code } = (await res.clone().json()) as { code: string };
        // The spec-7 shape, with the extras each v2 refusal documents.
        const extras: Record<string, string[]> = {
          import_process_failed_validation: ['domain'],
          account_import_process_already_imported: ['account_id', 'non_field_errors', 'external_account_number', 'platform_account_number'],
        };
        await expectErrorBody(res, res.status, code, extras[code] ?? []);
      }),
      { numRuns: Number(process.env['LEDGER_FUZZ_RUNS'] ?? 200) },
    );
    await scheduler.runDue();
  }, 120_000);
});
