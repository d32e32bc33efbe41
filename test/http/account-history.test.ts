import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';
import { runCli } from '../cli/run-cli.js';

interface Entry {
  position: number;
  stream_position: number;
  type: string;
  schema_version: number;
  recorded_at: string;
  actor: string;
  request_id: string | null;
  data: Record<string, unknown>;
}

let api: TestApi;
let token: string;
beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});
afterEach(() => api.close());

const HISTORY = `/v1/data-import/account-history/${SUPPLIER}/LEG-0000001/`;

async function stage(overrides: Record<string, unknown> = {}) {
  const res = await api.post('/v1/data-import/account-import-process/create-or-update/', { ...loadExample('account-domestic.json'), ...overrides }, token, {
    'x-request-id': `stage-${api.clock.now.getTime()}`,
  });
  expect([200, 201]).toContain(res.status);
}

async function history(query = ''): Promise<{ events: Entry[]; next_after: number | null }> {
  const res = await api.get(`${HISTORY}${query}`, token);
  expect(res.status).toBe(200);
  return (await res.json()) as { events: Entry[]; next_after: number | null };
}

describe('GET account-history/<code>/<ext>/', () => {
  it('lists every event of the account in order with position, type, version, time, actor, request id and data', async () => {
    await stage();
    api.clock.advanceSeconds(60);
    await stage({ sales_channel: 'PHONE' });
    api.clock.advanceSeconds(60);
    const processed = await api.post('/v1/data-import/account-import-process/process/', {
      external_account_number: 'LEG-0000001', import_supplier_code: SUPPLIER, operations_team_name: TEAM,
    }, token);
    expect(processed.status).toBe(201);
    const { events } = await history();
    expect(events.slice(0, 3).map((e) => [e.type, e.stream_position])).toEqual([
      ['AccountStaged', 1],
      ['AccountRestaged', 2],
      ['AccountProcessed', 3],
    ]);
    expect(events[0]).toMatchObject({ schema_version: 1, actor: api.keyId, request_id: expect.stringMatching(/^stage-/) });
    expect(events[1]!.data['payload']).toMatchObject({ sales_channel: 'PHONE' });
    const positions = events.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('pages with after and limit', async () => {
    await stage();
    await stage({ sales_channel: 'A' });
    await stage({ sales_channel: 'B' });
    const first = await history('?limit=2');
    expect(first.events).toHaveLength(2);
    const rest = await history(`?after=${first.next_after}&limit=2`);
    expect(rest.events.map((e) => e.stream_position)).toEqual([3]);
    expect(rest.next_after).toBeNull();
  });

  it('as_of folds the events recorded up to that instant: before and after a re-stage, after process', async () => {
    await stage();
    const afterStage = api.clock.now.toISOString();
    api.clock.advanceSeconds(60);
    await stage({ sales_channel: 'PHONE' });
    const afterRestage = api.clock.now.toISOString();
    api.clock.advanceSeconds(60);
    await api.post('/v1/data-import/account-import-process/process/', {
      external_account_number: 'LEG-0000001', import_supplier_code: SUPPLIER, operations_team_name: TEAM,
    }, token);

    const at = async (instant: string) => {
      const res = await api.get(`${HISTORY}?as_of=${encodeURIComponent(instant)}`, token);
      expect(res.status).toBe(200);
      return (await res.json()) as { state: Record<string, unknown>; events: Entry[] };
    };
    const one = await at(afterStage);
    expect(one.state).toMatchObject({ import_state: 'staged', stage_count: 1, platform_account_number: null, transfer_status: 'UNKNOWN' });
    expect((one.state['staged_payload'] as Record<string, unknown>)['sales_channel']).toBe('DIRECT');
    expect(one.events).toHaveLength(1);
    const two = await at(afterRestage);
    expect(two.state).toMatchObject({ stage_count: 2 });
    expect((two.state['staged_payload'] as Record<string, unknown>)['sales_channel']).toBe('PHONE');
    const afterProcess = api.clock.now.toISOString();
    const now = await at(afterProcess);
    expect(now.state).toMatchObject({ import_state: 'imported', transfer_status: 'PENDING', balance: '0.00' });
    expect(now.state['platform_account_number']).toMatch(/^A-[0-9A-F]{8}$/);

    // after transactions: a charge of 120.50 and a payment of 20.00 leave 100.50 owed
    api.clock.advanceSeconds(60);
    const tx = await api.post('/v1/data-import/transactions/create/', {
      import_supplier: SUPPLIER,
      external_account_number: 'LEG-0000001',
      transactions: [
        { transaction_id: 'TX-1', transaction_date: '2026-11-01', amount: 120.5, type: 'CHARGE', reason: 'IMPORTED_CHARGE' },
        { transaction_id: 'TX-2', transaction_date: '2026-11-02', amount: 20, type: 'PAYMENT' },
      ],
    }, token);
    expect(tx.status).toBe(201);
    const later = await at(api.clock.now.toISOString());
    expect(later.state).toMatchObject({ balance: '100.50' });
    expect((later.state['transactions'] as unknown[]).length).toBe(2);
    expect((await at(afterProcess)).state).toMatchObject({ balance: '0.00', transactions: [] });
  });

  it('lists process dry runs from their audit streams (a refused one as a refused attempt), in order; as_of shows them but folds no state from them', async () => {
    await stage();
    api.clock.advanceSeconds(60);
    const dryRun = (team: string) =>
      api.post('/v1/data-import/account-import-process/process/', {
        external_account_number: 'LEG-0000001', import_supplier_code: SUPPLIER, operations_team_name: team, dry_run: true,
      }, token, { 'x-request-id': `dry-${team}` });
    await expectErrorBody(await dryRun(TEAM), 400, 'dry_run_rollback');
    await expectErrorBody(await dryRun('Nobody'), 400, 'operations_team_name_does_not_exist');
    const afterDryRun = api.clock.now.toISOString();
    api.clock.advanceSeconds(60);
    await stage({ sales_channel: 'PHONE' });

    const { events } = await history();
    expect(events.map((e) => [e.type, e.stream_position])).toEqual([
      ['AccountStaged', 1],
      ['AccountProcessDryRunSucceeded', 1],
      ['AccountImportAttemptRefused', 1],
      ['AccountRestaged', 2],
    ]);
    expect(events[2]).toMatchObject({ request_id: 'dry-Nobody', data: { operation: 'process', dryRun: true, code: 'operations_team_name_does_not_exist' } });
    expect(events[1]).toMatchObject({
      schema_version: 1,
      actor: api.keyId,
      request_id: `dry-${TEAM}`,
      data: { importSupplier: SUPPLIER, externalAccountNumber: 'LEG-0000001', operationsTeamName: TEAM, accountStreamVersion: 1 },
    });
    expect(events[1]!.data['platformAccountNumber']).toMatch(/^A-[0-9A-F]{8}$/);
    const page = await history(`?after=${events[0]!.position}&limit=1`);
    expect(page.events.map((e) => e.type)).toEqual(['AccountProcessDryRunSucceeded']);

    const res = await api.get(`${HISTORY}?as_of=${encodeURIComponent(afterDryRun)}`, token);
    expect(res.status).toBe(200);
    const asOf = (await res.json()) as { state: Record<string, unknown>; events: Entry[] };
    expect(asOf.events.map((e) => e.type)).toEqual(['AccountStaged', 'AccountProcessDryRunSucceeded', 'AccountImportAttemptRefused']);
    expect(asOf.state).toMatchObject({
      import_state: 'staged',
      stage_count: 1,
      platform_account_number: null,
      account_created_at: null,
      operations_team_name: null,
      transfer_status: 'UNKNOWN',
    });
  });

  it('is scoped like the rest: another supplier’s key gets 403, an unknown account 404, a bad as_of 400', async () => {
    await stage();
    await expectErrorBody(await api.get(HISTORY, await accessToken(api, api.otherKey)), 403, 'permission_denied');
    await expectErrorBody(await api.get(`/v1/data-import/account-history/${SUPPLIER}/NOPE/`, token), 404, 'account_not_found');
    await expectErrorBody(await api.get(`/v1/data-import/account-history/${OTHER_SUPPLIER}/LEG-0000001/`, token), 403, 'permission_denied');
    await expectErrorBody(await api.get(`${HISTORY}?as_of=yesterday`, token), 400, 'invalid_query_parameter');
    await expectErrorBody(await api.get(`${HISTORY}?after=1&after=2`, token), 400, 'invalid_query_parameter');
  });

  it('the CLI prints a timeline, JSON lines, the state as of an instant, and the payload diff between stagings', async () => {
    await stage();
    api.clock.advanceSeconds(60);
    await stage({ sales_channel: 'PHONE' });
    const timeline = await runCli(api.location, ['account', 'history', SUPPLIER, 'LEG-0000001', '--diff']);
    expect(timeline.code).toBe(0);
    expect(timeline.stdout).toMatch(/AccountStaged/);
    expect(timeline.stdout).toMatch(/~ sales_channel: "DIRECT" -> "PHONE"/);
    const json = await runCli(api.location, ['account', 'history', SUPPLIER, 'LEG-0000001', '--json', '--as-of', api.clock.now.toISOString()]);
    const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ state: { import_state: 'staged', stage_count: 2 } });
    expect(lines.slice(1).map((l) => l['type'])).toEqual(['AccountStaged', 'AccountRestaged']);
  });
});
