import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import { markAccountToSkip, prepareProcess } from '../../src/application/account-import-processes.js';
import { commandMetadata, handle } from '../../src/application/command-handler.js';
import { accountImportProcessDecider } from '../../src/domain/account-import-process/decider.js';
import { ConcurrencyError } from '../../src/store/event-store.js';
import { setImportSupplierConfig, setImportSupplierStatus } from '../../src/application/operator.js';
import { createBusinessWithContract } from '../support/business.js';
import { accessToken, expectErrorBody, type ErrorBody } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/**
 * Spec 4.6 (validate), 4.7 (stage), 4.8 (process) and the lifecycle of 3.2,
 * through the real app over a temp-file SQLite database.
 */

const VALIDATE = '/v1/data-import/validate-account/';
const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const PENDING = `/v1/data-import/pending-account-import-processes/${SUPPLIER}/`;

type Json = Record<string, unknown>;
/** Loosely typed on purpose: the tests break payloads in ways the account type forbids. */
type Payload = any;

const domestic = (): Payload => structuredClone(loadExample('account-domestic.json'));
const business = (): Payload => structuredClone(loadExample('account-business.json'));
const DOMESTIC_EXT = 'LEG-0000001';
const BUSINESS_EXT = 'LEG-B-0000042';


const codesAndAttrs = (body: ErrorBody) => body.errors.map(({ code, attr }) => ({ code, attr }));

const processRequest = (ext: string, extra: Json = {}): Json => ({
  external_account_number: ext,
  import_supplier_code: SUPPLIER,
  operations_team_name: TEAM,
  ...extra,
});


let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api, api.key);
  // The business example links to this contract (spec 1.5): it must exist before the account is validated.
  await createBusinessWithContract(api.ledger);
});

afterEach(() => {
  api.close();
});

async function stage(payload: Payload, expectedStatus?: number): Promise<Response> {
  const res = await api.post(STAGE, payload, token);
  if (expectedStatus !== undefined) expect(res.status).toBe(expectedStatus);
  return res;
}

async function processOk(ext: string): Promise<string> {
  const res = await api.post(PROCESS, processRequest(ext), token);
  expect(res.status).toBe(201);
  const body = (await res.json()) as { platform_account_number: string };
  return body.platform_account_number;
}

describe('POST validate-account/ (spec 4.6)', () => {
  it.each([
    ['domestic', domestic],
    ['business', business],
  ])('validates the %s example with 200 and returns it unchanged', async (_name, example) => {
    const res = await api.post(VALIDATE, example(), token);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual(example());
  });

  it('drops unknown fields from the returned data without an error', async () => {
    const payload = domestic();
    payload.legacy_flag = true;
    payload.customers[0].nickname = 'Clo';
    payload.supply_addresses[0].supply_points[0].agreements[0].legacy_tariff = 'OLD';
    payload.payment_preferences[0].instruction_reference_params.extra = 1;
    const res = await api.post(VALIDATE, payload, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual(domestic());
  });

  const broken: readonly [string, () => Payload, string, string][] = [
    [
      'a malformed landline',
      () => {
        const p = domestic();
        p.customers[0].landline = '12345';
        return p;
      },
      'invalid_phone_number',
      'customers.0.landline',
    ],
    [
      'a malformed mobile',
      () => {
        const p = business();
        p.customers[0].mobile = 'abcde';
        return p;
      },
      'invalid_phone_number',
      'customers.0.mobile',
    ],
    [
      'a 4-digit supply postcode',
      () => {
        const p = domestic();
        p.supply_addresses[0].supply_postcode = '7501';
        return p;
      },
      'invalid_postcode',
      'supply_addresses.0.supply_postcode',
    ],
    [
      'a 13-digit PRM',
      () => {
        const p = domestic();
        p.supply_addresses[0].supply_points[0].identifier = '0911164261734';
        return p;
      },
      'invalid_supply_point_identifier',
      'supply_addresses.0.supply_points.0.identifier',
    ],
    [
      'a PCE of GI + 5 digits',
      () => {
        const p = domestic();
        p.supply_addresses[0].supply_points[1].identifier = 'GI12345';
        return p;
      },
      'invalid_supply_point_identifier',
      'supply_addresses.0.supply_points.1.identifier',
    ],
    [
      'a supply point identifier repeated under the same address',
      () => {
        const p = business();
        p.supply_addresses[0].supply_points.push(structuredClone(p.supply_addresses[0].supply_points[0]));
        return p;
      },
      'duplicate_meter_points_provided',
      'supply_addresses.0.supply_points.1.identifier',
    ],
    [
      'overlapping agreements on one supply point',
      () => {
        const p = domestic();
        p.supply_addresses[0].supply_points[0].agreements.push({ tariff_code: 'ELEC-VAR', effective_from: '2026-01-01' });
        return p;
      },
      'gaps_or_overlaps_in_agreement_dates',
      'supply_addresses.0.supply_points.0.agreements.1',
    ],
    [
      'a gas consent name on an electricity supply point',
      () => {
        const p = domestic();
        p.supply_addresses[0].supply_points[0].consent_data.GAS_INDEXES = true;
        return p;
      },
      'invalid_consent_name',
      'supply_addresses.0.supply_points.0.consent_data.GAS_INDEXES',
    ],
    [
      'a PASSIVE payment preference with instruction_reference_params',
      () => {
        const p = domestic();
        p.payment_preferences[1].instruction_reference_params = { vendor_name: 'GOCARDLESS', vendor_reference: 'X' };
        return p;
      },
      'passive_payment_preference_with_instruction_reference_params',
      'payment_preferences.1.instruction_reference_params',
    ],
    [
      'an ACTIVE_NEW preference naming no instruction of its supply point',
      () => {
        const p = domestic();
        p.payment_preferences[0].instruction_reference_params.vendor_reference = 'MD-UNKNOWN';
        return p;
      },
      'active_new_payment_preference_invalid_instruction_identifier',
      'payment_preferences.0.instruction_reference_params',
    ],
    [
      'a BUSINESS account without business',
      () => {
        const p = business();
        delete p.business;
        return p;
      },
      'business_field_required',
      'business',
    ],
    [
      'a SIRET failing the Luhn check',
      () => {
        const p = business();
        p.business.siret = '44306184100048';
        return p;
      },
      'invalid_siret',
      'business.siret',
    ],
    [
      'a domestic account with business',
      () => {
        const p = domestic();
        p.business = business().business;
        return p;
      },
      'business_fields_provided_for_domestic_accounts',
      'business',
    ],
    [
      'missing customers',
      () => {
        const p = domestic();
        delete p.customers;
        return p;
      },
      'required',
      'customers',
    ],
    [
      'a 129-character external_account_number',
      () => {
        const p = domestic();
        p.external_account_number = 'X'.repeat(129);
        return p;
      },
      'max_length',
      'external_account_number',
    ],
    [
      'a date that is not a calendar day (2025-02-29)',
      () => {
        const p = domestic();
        p.customers[0].date_of_birth = '2025-02-29';
        return p;
      },
      'invalid',
      'customers.0.date_of_birth',
    ],
  ];

  it.each(broken)('refuses %s with 400 account_failed_validation', async (_name, payload, code, attr) => {
    const res = await api.post(VALIDATE, payload(), token);
    const body = await expectErrorBody(res, 400, 'account_failed_validation');
    expect(codesAndAttrs(body)).toEqual([{ code, attr }]);
  });

  it('accepts exactly 128 characters of external_account_number', async () => {
    const payload = domestic();
    payload.external_account_number = 'X'.repeat(128);
    const res = await api.post(VALIDATE, payload, token);
    expect(res.status).toBe(200);
  });

  it('stages nothing', async () => {
    expect((await api.post(VALIDATE, domestic(), token)).status).toBe(200);
    expect(await api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT))).toBe(0);
  });
});

describe('POST account-import-process/create-or-update/ (spec 4.7)', () => {
  it('answers 201 on first staging and 200 on re-staging, with {import_supplier, external_account_number}', async () => {
    const first = await stage(domestic(), 201);
    expect(await first.json()).toStrictEqual({ import_supplier: SUPPLIER, import_supplier_code: SUPPLIER, external_account_number: DOMESTIC_EXT });
    const second = await stage(domestic(), 200);
    expect(await second.json()).toStrictEqual({ import_supplier: SUPPLIER, import_supplier_code: SUPPLIER, external_account_number: DOMESTIC_EXT });
  });

  it('stages the business example too', async () => {
    const res = await stage(business(), 201);
    expect(await res.json()).toStrictEqual({ import_supplier: SUPPLIER, import_supplier_code: SUPPLIER, external_account_number: BUSINESS_EXT });
  });

  it('replaces the data on re-stage and keeps both versions in the event log', async () => {
    await stage(domestic(), 201);
    const changed = domestic();
    changed.billing_address1 = '14 rue de la Roquette';
    changed.unknown_field = 'dropped';
    await stage(changed, 200);

    const stream = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT));
    expect(stream.map((stored) => stored.event.type)).toEqual(['AccountStaged', 'AccountRestaged']);
    expect(stream.map((stored) => stored.streamPosition)).toEqual([1, 2]);
    const payloads = stream.map((stored) => (stored.event.data as { payload: Json }).payload);
    expect(payloads[0]).toStrictEqual(domestic());
    const expectedSecond = domestic();
    expectedSecond.billing_address1 = '14 rue de la Roquette';
    expect(payloads[1]).toStrictEqual(expectedSecond);
  });

  it('refuses an invalid payload with 400 account_failed_validation and stages nothing', async () => {
    const payload = domestic();
    payload.billing_postcode = '7501';
    const body = await expectErrorBody(await stage(payload), 400, 'account_failed_validation');
    expect(codesAndAttrs(body)).toEqual([{ code: 'invalid_postcode', attr: 'billing_postcode' }]);
    expect(await api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT))).toBe(0);
  });

  it('refuses to stage an imported account: 400 account_import_process_already_imported with both account numbers', async () => {
    await stage(domestic(), 201);
    const platformAccountNumber = await processOk(DOMESTIC_EXT);
    const body = await expectErrorBody(await stage(domestic()), 400, 'account_import_process_already_imported', [
      'external_account_number',
      'platform_account_number',
      'non_field_errors',
    ]);
    expect(body['non_field_errors']).toEqual([body.detail]);
    expect(body['external_account_number']).toBe(DOMESTIC_EXT);
    expect(body['platform_account_number']).toBe(platformAccountNumber);
  });

  it('refuses to stage an account marked to skip: 400 account_marked_to_skip', async () => {
    await stage(domestic(), 201);
    await markAccountToSkip(api.ledger, SUPPLIER, DOMESTIC_EXT, operator);
    await expectErrorBody(await stage(domestic()), 400, 'account_marked_to_skip');
  });

  it.each(['Paused', 'Complete'] as const)(
    'refuses to stage while the supplier is %s: 400 import_supplier_migration_not_ongoing',
    async (status) => {
      await setImportSupplierStatus(api.ledger, SUPPLIER, status, operator);
      await expectErrorBody(await stage(domestic()), 400, 'import_supplier_migration_not_ongoing');
      expect(await api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT))).toBe(0);
    },
  );

  it.each(['Paused', 'Complete'] as const)(
    'refuses to re-stage a staged account while the supplier is %s',
    async (status) => {
      await stage(domestic(), 201);
      await setImportSupplierStatus(api.ledger, SUPPLIER, status, operator);
      await expectErrorBody(await stage(domestic()), 400, 'import_supplier_migration_not_ongoing');
      expect(await api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT))).toBe(1);
    },
  );
});

describe('POST account-import-process/process/ (spec 4.8)', () => {
  const streamId = accountImportProcessStreamId(SUPPLIER, DOMESTIC_EXT);
  const dryRunStreamId = accountProcessDryRunStreamId(SUPPLIER, DOMESTIC_EXT);

  it('answers a staged payload that no longer validates with 400 account_failed_validation and its field errors', async () => {
    // Stored as if staged under looser rules: the process validates it (once) and refuses it.
    const payload = { ...domestic(), customers: [] };
    const data = { importSupplier: SUPPLIER, externalAccountNumber: DOMESTIC_EXT, payload, stagedAt: '2026-11-21T10:00:00.000Z' };
    await api.ledger.store.appendToStream(streamId, 0, [{ type: 'AccountStaged', version: 1, data }], { metadata: commandMetadata(api.ledger, operator) });
    const body = await expectErrorBody(await api.post(PROCESS, processRequest(DOMESTIC_EXT), token), 400, 'account_failed_validation');
    expect(body.errors).toEqual([{ code: 'empty', attr: 'customers', detail: expect.any(String) }]);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
  });

  it('validates the staged payload once a request, and the guard on the account stream keeps that validation current', async () => {
    await stage(domestic(), 201);
    const request = { importSupplier: SUPPLIER, externalAccountNumber: DOMESTIC_EXT, operationsTeamName: TEAM };
    const prepared = await prepareProcess(api.ledger, request);
    expect(prepared.command.stagedValidation?.ok).toBe(true);
    expect(prepared.guards).toContainEqual({ streamId, expectedVersion: 1 });
    // Re-staged (with data that no longer validates) after the validation was made: the write it was made for is refused.
    const data = { importSupplier: SUPPLIER, externalAccountNumber: DOMESTIC_EXT, payload: { ...domestic(), customers: [] }, stagedAt: '2026-11-21T10:00:01.000Z' };
    await api.ledger.store.appendToStream(streamId, 1, [{ type: 'AccountRestaged', version: 1, data }], { metadata: commandMetadata(api.ledger, operator) });
    const write = handle(api.ledger, operator, accountImportProcessDecider, prepared.streamId, prepared.command, { guards: prepared.guards });
    await expect(write).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(2);
    // The request itself retries afresh: the new payload is validated and refused.
    await expectErrorBody(await api.post(PROCESS, processRequest(DOMESTIC_EXT), token), 400, 'account_failed_validation');
  });

  it('answers 201 {external_account_number, platform_account_number} and the transfer status becomes PENDING', async () => {
    await stage(domestic(), 201);
    const res = await api.post(PROCESS, loadExample('process.json'), token);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(['external_account_number', 'platform_account_number']);
    expect(body['external_account_number']).toBe(DOMESTIC_EXT);
    expect(body['platform_account_number']).toMatch(/^A-[0-9A-F]{8}$/);

    const status = await api.get(`/v1/data-import/account-transfer-status/${SUPPLIER}/${DOMESTIC_EXT}/`, token);
    expect(status.status).toBe(200);
    expect(await status.json()).toStrictEqual({ status: 'PENDING', platform_account_number: body['platform_account_number'] });
  });

  it('gives every imported account its own platform account number', async () => {
    await stage(domestic(), 201);
    await stage(business(), 201);
    const first = await processOk(DOMESTIC_EXT);
    const second = await processOk(BUSINESS_EXT);
    expect(first).not.toBe(second);
  });

  it('answers 400 import_process_does_not_exist when nothing was staged (the platform documents no 404 there)', async () => {
    const body = await expectErrorBody(await api.post(PROCESS, processRequest('NEVER-STAGED'), token), 400, 'import_process_does_not_exist');
    expect(codesAndAttrs(body)).toEqual([{ code: 'import_process_does_not_exist', attr: 'non_field_errors' }]);
  });

  it('without operations_team_name (optional, as on the platform): the supplier\'s default team, else 400 operations_team_should_be_provided', async () => {
    await stage(domestic(), 201);
    const { operations_team_name: _named, ...withoutTeam } = processRequest(DOMESTIC_EXT);
    const refused = await expectErrorBody(await api.post(PROCESS, withoutTeam, token), 400, 'operations_team_should_be_provided');
    expect(codesAndAttrs(refused)).toEqual([{ code: 'operations_team_should_be_provided', attr: 'operations_team_name' }]);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
    await setImportSupplierConfig(api.ledger, SUPPLIER, { defaultOperationsTeamName: TEAM }, operator);
    const res = await api.post(PROCESS, withoutTeam, token);
    expect(res.status, await res.clone().text()).toBe(201);
    const events = await api.ledger.store.readStream(streamId);
    expect(events.find((stored) => stored.event.type === 'AccountProcessed')?.event).toMatchObject({ data: { operationsTeamName: TEAM } });
  });

  it('answers 400 operations_team_name_does_not_exist at attr operations_team_name for an unknown team', async () => {
    await stage(domestic(), 201);
    const res = await api.post(PROCESS, processRequest(DOMESTIC_EXT, { operations_team_name: 'Nobody' }), token);
    const body = await expectErrorBody(res, 400, 'operations_team_name_does_not_exist');
    expect(codesAndAttrs(body)).toEqual([{ code: 'operations_team_name_does_not_exist', attr: 'operations_team_name' }]);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
  });

  it('answers 400 account_import_process_already_imported with both account numbers on a second process', async () => {
    await stage(domestic(), 201);
    const platformAccountNumber = await processOk(DOMESTIC_EXT);
    // Processing appends AccountProcessed and the records the staged payload brings; the refused second process appends nothing.
    const versionAfterProcess = await api.ledger.store.streamVersion(streamId);
    const res = await api.post(PROCESS, processRequest(DOMESTIC_EXT), token);
    const body = await expectErrorBody(res, 400, 'account_import_process_already_imported', [
      'external_account_number',
      'platform_account_number',
      'non_field_errors',
    ]);
    expect(body['non_field_errors']).toEqual([body.detail]);
    expect(body['external_account_number']).toBe(DOMESTIC_EXT);
    expect(body['platform_account_number']).toBe(platformAccountNumber);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(versionAfterProcess);
  });

  it.each(['Paused', 'Complete'] as const)(
    'answers 400 import_supplier_migration_not_ongoing while the supplier is %s',
    async (status) => {
      await stage(domestic(), 201);
      await setImportSupplierStatus(api.ledger, SUPPLIER, status, operator);
      await expectErrorBody(await api.post(PROCESS, processRequest(DOMESTIC_EXT), token), 400, 'import_supplier_migration_not_ongoing');
      expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
    },
  );

  it('answers 400 account_marked_to_skip for a skipped account', async () => {
    await stage(domestic(), 201);
    await markAccountToSkip(api.ledger, SUPPLIER, DOMESTIC_EXT, operator);
    await expectErrorBody(await api.post(PROCESS, processRequest(DOMESTIC_EXT), token), 400, 'account_marked_to_skip');
  });

  it('with dry_run true answers 400 dry_run_rollback, leaves the account untouched and records the run on its audit stream', async () => {
    await stage(domestic(), 201);
    const before = await api.ledger.store.streamVersion(streamId);
    const res = await api.post(PROCESS, processRequest(DOMESTIC_EXT, { dry_run: true }), token);
    const body = await expectErrorBody(res, 400, 'dry_run_rollback');
    expect(body.detail).toMatch(/would .*import/i);
    expect(body.detail).toMatch(/roll(ed)? ?back/i);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(before);

    const audit = await api.ledger.store.readStream(dryRunStreamId);
    expect(audit.map((stored) => stored.event)).toEqual([
      {
        type: 'AccountProcessDryRunSucceeded',
        version: 1,
        data: {
          importSupplier: SUPPLIER,
          externalAccountNumber: DOMESTIC_EXT,
          operationsTeamName: TEAM,
          platformAccountNumber: expect.stringMatching(/^A-[0-9A-F]{8}$/),
          accountStreamVersion: before,
          ranAt: api.clock.read().toISOString(),
        },
      },
    ]);
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(audit[0]!.metadata).toMatchObject({ actor: api.keyId, requestId: res.headers.get('x-request-id') });

    const pending = await api.get(PENDING, token);
    expect(await pending.json()).toStrictEqual([
      { external_account_number: DOMESTIC_EXT, platform_account_number: null, account_created_at: null },
    ]);
    const status = await api.get(`/v1/data-import/account-transfer-status/${SUPPLIER}/${DOMESTIC_EXT}/`, token);
    expect(await status.json()).toStrictEqual({ status: 'UNKNOWN', platform_account_number: '' });

    // The account still imports for real afterwards; the real run is not a dry run.
    await processOk(DOMESTIC_EXT);
    expect(await api.ledger.store.streamVersion(dryRunStreamId)).toBe(1);
  });

  it('with dry_run true still reports the errors a real run would (unknown team), and records no dry run', async () => {
    await stage(domestic(), 201);
    const res = await api.post(PROCESS, processRequest(DOMESTIC_EXT, { dry_run: true, operations_team_name: 'Nobody' }), token);
    await expectErrorBody(res, 400, 'operations_team_name_does_not_exist');
    expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
    expect(await api.ledger.store.streamVersion(dryRunStreamId)).toBe(0);
  });

  it('answers 400 when dry_run is not a boolean, and processes nothing', async () => {
    await stage(domestic(), 201);
    const res = await api.post(PROCESS, processRequest(DOMESTIC_EXT, { dry_run: 'yes' }), token);
    const body = await expectErrorBody(res, 400, expect.any(String));
    expect(codesAndAttrs(body)).toEqual([{ code: 'invalid', attr: 'dry_run' }]);
    expect(await api.ledger.store.streamVersion(streamId)).toBe(1);
  });
});
