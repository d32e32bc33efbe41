import { templateAnswer } from '../contract/harness.js';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { BeforeCommit, StoredLedgerEvent } from '../../../src/store/event-store.js';
import { assembleLedger, type Ledger } from '../../../src/ledger.js';
import { LOCK_CLASS, WRITE_LOCK } from '../../../src/store/postgres/pg-database.js';
import { CommitOutcomeUnknownError, WriteLockTimeoutError } from '../../../src/store/postgres/pg-batch-transaction.js';
import { postgresTransaction } from '../../../src/store/postgres/pg-write-unit.js';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { openPostgresLedger } from '../../../src/store/postgres/open-postgres-ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { startPgProxy, type PgProxy } from './pg-proxy.js';
import {
  expectLogIsExactlyTheReportedEvents,
  expectProjectionsVerify,
  expectWellFormedLog,
  ledgerBackends,
  logRows,
  metadata,
  openInstances,
  prng,
  settle,
  sleep,
  supplierCommand,
  supplierHandle,
  tick,
  type Instances,
} from './instances.js';

/** Resolves on the first of `poll()`'s truthy answers, polling every few ms, or fails after `tries`. */
async function eventually<T>(poll: () => Promise<T | null | undefined | false>, what: string, tries = 1_000): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await poll();
    if (value) return value;
    await sleep(3);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** What a killed writer may make a caller see: the connection's end, or an outcome PostgreSQL could not tell. */
function isConnectionLoss(reason: unknown): boolean {
  if (reason instanceof CommitOutcomeUnknownError) return true;
  const message = reason instanceof Error ? reason.message : String(reason);
  const code = (reason as { code?: unknown } | null)?.code;
  return code === '57P01' || /terminat|Connection|closed|not queryable|ECONNRESET|EPIPE/i.test(message);
}

/**
 * The writer connection is lost in the middle of a group-commit batch: no
 * caller is told its events were written unless they were, none is told they
 * failed if they were (outcome unknown aside), the next batch gets a new
 * connection, and the projections stay exactly the log's.
 */
describe('PostgreSQL: the writer connection is killed mid-batch', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  const create = (ledger: Ledger, code: string, beforeCommit?: BeforeCommit) =>
    ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, supplierCommand('create', code), { metadata, ...(beforeCommit ? { beforeCommit } : {}) });

  it('killed while a unit of the batch runs: the whole batch fails, nothing of it is written, the next batch works on a new connection', async () => {
    let writerPid = 0;
    let reached!: () => void;
    const atHook = new Promise<void>((resolve) => (reached = resolve));
    let proceed!: () => void;
    const released = new Promise<void>((resolve) => (proceed = resolve));
    // Unit 20 of a batch of 40 stops in its beforeCommit until the test has killed the writer.
    const pausing: BeforeCommit = async (_appended, tx) => {
      writerPid = (await postgresTransaction(tx).client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      reached();
      await released;
    };
    const batch = Array.from({ length: 40 }, (_, i) => settle(create(t.a, `KILLED-${i}`, i === 20 ? pausing : undefined)));
    await atHook;
    await t.sql('SELECT pg_terminate_backend($1)', [writerPid]);
    await eventually(async () => (await t.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [writerPid])).length === 0, 'the backend to end');
    // Commands arriving meanwhile wait for the next batch.
    const next = Array.from({ length: 10 }, (_, i) => settle(create(t.a, `NEXT-${i}`)));
    proceed();

    const outcomes = await Promise.all(batch);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(0);
    for (const o of outcomes) expect(isConnectionLoss((o as PromiseRejectedResult).reason), String((o as PromiseRejectedResult).reason)).toBe(true);
    const after = await Promise.all(next);
    expect(after.map((o) => o.status)).toEqual(Array(10).fill('fulfilled'));

    const rows = await expectWellFormedLog(t);
    expect(rows.map((r) => r.stream_id)).toEqual(Array.from({ length: 10 }, (_, i) => `import-supplier:NEXT-${i}`));
    expectLogIsExactlyTheReportedEvents(
      rows,
      after.flatMap((o) => (o.status === 'fulfilled' ? o.value.events : [])),
    );
    // A new writer connection, and the other instance was never disturbed.
    const backends = await ledgerBackends(t);
    expect(backends.map((b) => b.pid)).not.toContain(writerPid);
    await supplierHandle(t.b, 'create', 'OTHER');
    await expectProjectionsVerify(t.a);
  });

  it('killed while idle between batches: the next batch reconnects and succeeds', async () => {
    await create(t.a, 'FIRST');
    const [writer] = (await ledgerBackends(t)).filter((b) => b.state === 'idle' && /^COMMIT/i.test(b.query));
    expect(writer).toBeDefined();
    await t.sql('SELECT pg_terminate_backend($1)', [writer!.pid]);
    await eventually(async () => (await t.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [writer!.pid])).length === 0, 'the backend to end');
    const outcomes = await Promise.all(['SECOND', 'THIRD'].map((code) => settle(create(t.a, code))));
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok']);
    expect((await expectWellFormedLog(t)).map((r) => r.stream_id)).toEqual(['FIRST', 'SECOND', 'THIRD'].map(importSupplierStreamId));
  });

  it('killed during COMMIT (a deferred trigger holds the commit): the batch is reported failed and nothing of it is written', async () => {
    // A test-only constraint trigger that sleeps at COMMIT for one stream: the kill lands inside the COMMIT.
    await t.sql(`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$`);
    await t.sql(
      `CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
         FOR EACH ROW WHEN (NEW.stream_id = 'import-supplier:SLOW') EXECUTE FUNCTION slow_commit()`,
    );
    const batch = [settle(create(t.a, 'BEFORE-SLOW')), settle(create(t.a, 'SLOW')), settle(create(t.a, 'AFTER-SLOW'))];
    const committing = await eventually(
      async () => (await ledgerBackends(t)).find((b) => b.holdsWriteLock && /^COMMIT/i.test(b.query) && b.state === 'active'),
      'the writer to be in COMMIT',
    );
    await t.sql('SELECT pg_terminate_backend($1)', [committing.pid]);
    const outcomes = await Promise.all(batch);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // pg_xact_status said aborted (or could not tell): never reported as written.
    for (const o of outcomes) expect(isConnectionLoss((o as PromiseRejectedResult).reason), String((o as PromiseRejectedResult).reason)).toBe(true);
    expect(await logRows(t)).toEqual([]);
    await t.sql('DROP TRIGGER slow_commit ON events');
    await create(t.a, 'AFTER');
    await expectWellFormedLog(t);
    await expectProjectionsVerify(t.b);
  });

  /** An instance whose every connection goes through a proxy of the test's (see pg-proxy.ts). */
  async function behindProxy(test: (proxy: PgProxy, behind: Ledger) => Promise<void>): Promise<void> {
    const target = new URL(t.url);
    const proxy = await startPgProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const behind = assembleLedger(await openPostgresLedger(proxy.url(t.url), { clock: t.clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, poolSize: 2 }), { clock: t.clock.read, ids: randomIds });
    try {
      await test(proxy, behind);
    } finally {
      await behind.close();
      await proxy.close();
    }
  }

  it('the answer to COMMIT is lost although the commit happened: pg_xact_status says committed, the callers are told it was written', async () => {
    await behindProxy(async (proxy, behind) => {
      await create(behind, 'FIRST');
      const lost = proxy.loseNextCommitAnswer();
      const batch = ['LOST-1', 'LOST-2', 'LOST-3'].map((code) => settle(create(behind, code)));
      await lost;
      const outcomes = await Promise.all(batch);
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      const rows = await expectWellFormedLog(t);
      expect(rows.map((r) => r.stream_id)).toEqual(['FIRST', 'LOST-1', 'LOST-2', 'LOST-3'].map(importSupplierStreamId));
      expectLogIsExactlyTheReportedEvents(
        rows.slice(1),
        outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.events : [])),
      );
      // The next batch runs on a new connection.
      await create(behind, 'NEXT');
      await expectProjectionsVerify(t.a);
    });
  });

  it('the connection breaks as COMMIT is sent and PostgreSQL never gets it (its session left open in the transaction): the outcome is established, not unknown, and nothing is written', async () => {
    await behindProxy(async (proxy, behind) => {
      await create(behind, 'FIRST');
      const withheld = proxy.withholdNextCommit();
      const batch = ['HELD-1', 'HELD-2', 'HELD-3'].map((code) => settle(create(behind, code)));
      await withheld;
      const outcomes = await Promise.all(batch);
      // Still in progress when asked: its session (holding the writers' lock) is ended, the transaction aborts, and the callers are told.
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).not.toContain('CommitOutcomeUnknownError');
      }
      const rows = await expectWellFormedLog(t);
      expect(rows.map((r) => r.stream_id)).toEqual([importSupplierStreamId('FIRST')]);
      // The lock is free again: both instances write.
      await create(behind, 'NEXT');
      await create(t.a, 'OTHER');
      await expectProjectionsVerify(t.a);
    });
  });

  it('killed repeatedly under load from both instances: fulfilled ⇒ in the log as reported, rejected ⇒ absent; the ledger keeps working', async () => {
    const random = prng(3);
    const calls: { code: string; outcome: Promise<PromiseSettledResult<{ events: readonly StoredLedgerEvent[] }>> }[] = [];
    let sending = true;
    let done = 0;
    const load = (async () => {
      for (let i = 0; i < 300; i++) {
        const code = `LOAD-${i}`;
        const outcome = settle(create(i % 2 === 0 ? t.a : t.b, code));
        void outcome.then(() => done++);
        calls.push({ code, outcome });
        if (i % 6 === 5) await tick();
        if (i % 60 === 59) await sleep(5);
      }
      sending = false;
    })();
    const killed: number[] = [];
    for (let polls = 0; polls < 5_000 && killed.length < 4; polls++) {
      if (!sending && done === calls.length) break;
      const writer = (await ledgerBackends(t)).find((b) => b.holdsWriteLock);
      if (!writer) {
        await sleep(1);
        continue;
      }
      await t.sql('SELECT pg_terminate_backend($1)', [writer.pid]);
      killed.push(writer.pid);
      await sleep(5 + Math.floor(random() * 20));
    }
    await load;
    const settled = await Promise.all(calls.map(async (c) => ({ code: c.code, outcome: await c.outcome })));
    expect(killed.length).toBeGreaterThan(0);

    const rows = await expectWellFormedLog(t);
    const streams = new Set(rows.map((r) => r.stream_id));
    const unexpected = settled.filter((s) => s.outcome.status === 'rejected' && !isConnectionLoss(s.outcome.reason));
    expect(unexpected.map((s) => String((s.outcome as PromiseRejectedResult).reason)).slice(0, 5)).toEqual([]);
    const unknown = settled.filter((s) => s.outcome.status === 'rejected' && s.outcome.reason instanceof CommitOutcomeUnknownError);
    // Rejected (outcome known) ⇒ nothing written.
    const written = settled.filter(
      (s) => s.outcome.status === 'rejected' && !(s.outcome.reason instanceof CommitOutcomeUnknownError) && streams.has(importSupplierStreamId(s.code)),
    );
    expect(written.map((s) => s.code)).toEqual([]);
    // Fulfilled ⇒ in the log as reported; the log holds nothing else (but what an unknown outcome may have committed).
    const fulfilled = settled.flatMap((s) => (s.outcome.status === 'fulfilled' ? s.outcome.value.events : []));
    const unknownStreams = new Set(unknown.map((s) => importSupplierStreamId(s.code)));
    expectLogIsExactlyTheReportedEvents(
      rows.filter((r) => !unknownStreams.has(r.stream_id)),
      fulfilled,
    );

    // Both instances write again (fresh writer connections) and the projections are the log's.
    await supplierHandle(t.a, 'create', 'AFTER-A');
    await supplierHandle(t.b, 'create', 'AFTER-B');
    await expectWellFormedLog(t);
    await expectProjectionsVerify(t.a);
  });

  it('another session holds the write lock longer than lockTimeoutMs: the write fails with WriteLockTimeoutError, writes nothing, and works once it is released', async () => {
    const impatient = await t.open({ lockTimeoutMs: 300 });
    const blocker = new pg.Client({ connectionString: t.url, application_name: 'ledger-test-blocker' });
    blocker.on('error', () => undefined);
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, WRITE_LOCK]);
      const outcome = await settle(create(impatient, 'BLOCKED'));
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(WriteLockTimeoutError);
      // Reads need no lock; the patient instance (10 s) waits instead of failing.
      expect(await impatient.read.listImportSuppliers()).toEqual([]);
      const waiting = settle(create(t.a, 'WAITED'));
      await sleep(400);
      expect(await logRows(t)).toEqual([]);
      await blocker.query('COMMIT');
      expect((await waiting).status).toBe('fulfilled');
    } finally {
      await blocker.end().catch(() => undefined);
    }
    await create(impatient, 'BLOCKED');
    const rows = await expectWellFormedLog(t);
    expect(rows.map((r) => r.stream_id)).toEqual(['import-supplier:WAITED', 'import-supplier:BLOCKED']);
    await expectProjectionsVerify(impatient);
  });
});
