import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountCreationStreamId } from '../../events/account-creation.js';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { claimAccountCreation, runClaimedCreation, type DueCreation } from '../../src/application/account-creations.js';
import { openLedger, type Ledger } from '../../src/ledger.js';
import { AccountCreationScheduler } from '../../src/scheduler/account-creation-scheduler.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * Scheduled v2 creations live in the log, survive a restart and run
 * exactly once, also with two service instances on one database (two ledgers
 * on the same SQLite file, or the same PostgreSQL database).
 */

const actor = { actor: 'system:scheduler', requestId: null };
const schedulerOn = (ledger: Ledger) => new AccountCreationScheduler({ ctx: ledger, logger: pino({ level: 'silent' }), actor });

let api: TestApi;
let token: string;
const extra: Ledger[] = [];

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});
afterEach(async () => {
  for (const ledger of extra.splice(0)) await ledger.close();
  await api.close();
});

/** A second instance of the service on the same database, on the same (test) clock. */
async function secondInstance(): Promise<Ledger> {
  const ledger = await openLedger(api.location, { clock: api.clock.read });
  extra.push(ledger);
  return ledger;
}

async function scheduleAccount(ext: string, taskParams: Record<string, unknown> = {}): Promise<void> {
  const payload = { ...loadExample('account-domestic.json'), external_account_number: ext, operations_team_name: TEAM };
  const res = await api.post('/v2/data-import/accounts/', { payload, task_params: taskParams }, token);
  expect(res.status, await res.clone().text()).toBe(201);
}

async function countOf(ledger: Ledger, streamId: string, type: string): Promise<number> {
  return (await ledger.store.readStream(streamId)).filter((stored) => stored.event.type === type).length;
}

describe('scheduled creations across restarts and instances', () => {
  it('a creation scheduled before a restart runs after it, once its window opens', async () => {
    await scheduleAccount('LEG-R-1', { schedule_window_start: new Date(api.clock.now.getTime() + 3_600_000).toISOString() });
    // The instance goes away before the window opens; nothing of the schedule was in its memory.
    await api.ledger.close();
    // Closed once here: the test's cleanup (which closes it too) then only gives the database back.
    Object.assign(api.ledger, { close: async () => undefined });
    api.clock.advanceSeconds(3_601);
    const restarted = await secondInstance();
    expect(await schedulerOn(restarted).runDue()).toEqual({ ran: 1 });
    expect(await countOf(restarted, accountImportProcessStreamId(SUPPLIER, 'LEG-R-1'), 'AccountProcessed')).toBe(1);
    expect((await restarted.read.findAccountImportStatus(SUPPLIER, 'LEG-R-1'))?.status).toBe('PROCESSED');
  });

  it('two instances running their schedulers at once run each creation exactly once', async () => {
    const exts = Array.from({ length: 12 }, (_, i) => `LEG-I-${String(i).padStart(3, '0')}`);
    for (const ext of exts) await scheduleAccount(ext);
    const other = await secondInstance();
    const [a, b] = await Promise.all([schedulerOn(api.ledger).runDue(), schedulerOn(other).runDue()]);
    console.info(`two instances: ${a.ran} + ${b.ran} runs for ${exts.length} creations`);
    expect(a.ran + b.ran).toBe(exts.length);
    for (const ext of exts) {
      expect(await countOf(api.ledger, accountImportProcessStreamId(SUPPLIER, ext), 'AccountProcessed')).toBe(1);
      expect(await countOf(api.ledger, accountCreationStreamId(SUPPLIER, ext), 'AccountCreationFinished')).toBe(1);
    }
    expect(await schedulerOn(other).runDue()).toEqual({ ran: 0 });
  });

  it('an instance that died holding a claim: another takes it over when the lease runs out; the late run writes nothing', async () => {
    await scheduleAccount('LEG-D-1');
    const row = await api.ledger.read.findAccountImportStatus(SUPPLIER, 'LEG-D-1');
    const due: DueCreation = { importSupplier: SUPPLIER, externalAccountNumber: 'LEG-D-1', taskId: row?.taskId ?? '', isDryRun: false, operationsTeamName: TEAM };
    const dead = await claimAccountCreation(api.ledger, due, 60_000, actor);
    expect(dead.kind).toBe('claimed');
    const other = await secondInstance();
    expect(await schedulerOn(other).runDue()).toEqual({ ran: 0 });
    api.clock.advanceSeconds(61);
    expect(await schedulerOn(other).runDue()).toEqual({ ran: 1 });
    // The first instance wakes up and tries to finish with its old claim.
    expect(await runClaimedCreation(api.ledger, due, dead.kind === 'claimed' ? dead.claimId : '', actor)).toBe('claim_lost');
    expect(await countOf(api.ledger, accountImportProcessStreamId(SUPPLIER, 'LEG-D-1'), 'AccountProcessed')).toBe(1);
  });
});
