import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { DomainError } from '../../../src/domain/errors.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import { ConcurrencyError, UniqueConstraintError, type BeforeCommit } from '../../../src/store/event-store.js';
import type { Ledger } from '../../../src/ledger.js';
import type { BatchReport } from '../../../src/store/postgres/pg-group-commit.js';
import { postgresTransaction } from '../../../src/store/postgres/pg-write-unit.js';
import { createTestLedger } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { expectProjectionsVerify, metadata, openInstances, settle, sleep, supplierCommand, tick, WRITE_LOCK_KEY, type SupplierCommandKind } from './instances.js';

type Hook = 'none' | 'throws' | 'refused-in-sql';
type Operation =
  | { readonly kind: 'supplier'; readonly command: SupplierCommandKind; readonly code: string; readonly hook: Hook }
  | { readonly kind: 'account'; readonly ext: string; readonly expected: number; readonly platformNumber: string; readonly hook: Hook };

const hookArb = fc.constantFrom<Hook>('none', 'none', 'throws', 'refused-in-sql');
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('supplier' as const), command: fc.constantFrom<SupplierCommandKind>('create', 'pause', 'resume'), code: fc.constantFrom('A', 'B'), hook: hookArb }),
  fc.record({
    kind: fc.constant('account' as const),
    ext: fc.constantFrom('ONE', 'TWO', 'THREE'),
    expected: fc.constantFrom(0, 0, 2),
    platformNumber: fc.constantFrom('A-00000001', 'A-00000002', 'A-00000003'),
    hook: hookArb,
  }),
);
/** Operations with the turn they are issued in: those of one turn arrive at the writer together (one batch). */
const scheduleArb = fc.array(fc.record({ operation: operationArb, turn: fc.nat(2) }), { minLength: 1, maxLength: 24 });

/**
 * The hook of an operation. `refused-in-sql` fails in PostgreSQL (as the Idempotency-Key check does: a
 * statement sent, not awaited, that aborts the transaction); the SQLite oracle refuses in the hook itself.
 */
function hookOf(hook: Hook): BeforeCommit | undefined {
  if (hook === 'none') return undefined;
  if (hook === 'throws') {
    return () => {
      throw new DomainError('invalid', 'the hook threw');
    };
  }
  return (_appended, tx) => {
    if (tx.store !== 'postgres') throw new DomainError('idempotency_key_in_progress', 'refused');
    const { client, defer } = postgresTransaction(tx);
    defer(client.query("SELECT ledger_refuse('refused')").catch(() => Promise.reject(new DomainError('idempotency_key_in_progress', 'refused'))));
  };
}

const account = (ext: string, platformAccountNumber: string): LedgerEvent[] => [
  { type: 'AccountStaged', version: 1, data: { importSupplier: 'S', externalAccountNumber: ext, payload: {}, stagedAt: '2026-01-01T00:00:00.000Z' } },
  {
    type: 'AccountProcessed',
    version: 1,
    data: { importSupplier: 'S', externalAccountNumber: ext, platformAccountNumber, operationsTeamName: 'T', processedAt: '2026-01-01T00:00:00.000Z' },
  },
];

function run(ledger: Ledger, operation: Operation): Promise<unknown> {
  const beforeCommit = hookOf(operation.hook);
  const options = beforeCommit ? { metadata, beforeCommit } : { metadata };
  if (operation.kind === 'supplier') {
    return ledger.store.handle(importSupplierStreamId(operation.code), importSupplierDecider, supplierCommand(operation.command, operation.code), options);
  }
  return ledger.store.appendToStream(`account-import-process:S:${operation.ext}`, operation.expected, account(operation.ext, operation.platformNumber), options);
}

function outcomeOf(settled: PromiseSettledResult<unknown>): string {
  if (settled.status === 'fulfilled') return 'ok';
  const reason: unknown = settled.reason;
  if (reason instanceof DomainError) return reason.code;
  if (reason instanceof ConcurrencyError) return 'concurrency';
  if (reason instanceof UniqueConstraintError) return 'unique';
  throw reason;
}

async function stateOf(ledger: Ledger) {
  return {
    log: (await ledger.store.readAll(0, 10_000)).map((e) => [e.globalPosition, e.streamId, e.streamPosition, e.event]),
    suppliers: await ledger.read.listImportSuppliers(),
    accounts: await Promise.all(['ONE', 'TWO', 'THREE'].map((ext) => ledger.read.findAccountImportProcess('S', ext))),
  };
}

/**
 * The PostgreSQL writer runs a batch pipelined (every stream read in one flight, the units decided in
 * memory, the rows loaded in a second, the events, rows, hooks' statements and COMMIT in a third) and,
 * when PostgreSQL refuses anything of it, rolls it back and redoes it unit by unit. Whatever the mix of
 * successes, domain errors, stale versions, unique violations and hooks failing in the client or in
 * PostgreSQL, the outcomes, the log and the projections are those of the same writes made one by one on
 * the SQLite store.
 */
describe('PostgreSQL: pipelined group-commit batches', () => {
  if (skipWithoutPostgres()) return;

  it('give the outcomes, log and projections of serial execution, failing units failing alone', async () => {
    const reports: BatchReport[] = [];
    await fc.assert(
      fc.asyncProperty(scheduleArb, async (schedule) => {
        const instances = await openInstances();
        const batched = await instances.open({ onBatch: (report) => reports.push(report) });
        const serial = await createTestLedger({ store: 'sqlite' });
        try {
          const pending: Promise<PromiseSettledResult<unknown>>[] = [];
          const order: Operation[] = [];
          for (let turn = 0; turn <= 2; turn++) {
            for (const { operation } of schedule.filter((s) => s.turn === turn)) {
              order.push(operation);
              pending.push(settle(run(batched, operation)));
            }
            await tick();
          }
          const outcomes = (await Promise.all(pending)).map(outcomeOf);
          const serialOutcomes: string[] = [];
          for (const operation of order) serialOutcomes.push(outcomeOf(await settle(run(serial.ledger, operation))));
          expect(outcomes).toEqual(serialOutcomes);
          const [mine, theirs] = [await stateOf(batched), await stateOf(serial.ledger)];
          expect(mine).toEqual(theirs);
          await expectProjectionsVerify(batched);
        } finally {
          await serial.close();
          await instances.close();
        }
      }),
      { numRuns: 40 },
    );
    // The property held on both paths: batches of several units ran pipelined, and some were redone.
    expect(reports.some((r) => r.path === 'pipelined' && r.units > 1)).toBe(true);
    expect(reports.some((r) => r.path === 'redone' && r.units > 1)).toBe(true);
  }, 180_000);

  it('a batch whose units build on each other (one stream, several commands) commits in one pipelined transaction', async () => {
    const reports: BatchReport[] = [];
    const instances = await openInstances();
    try {
      const ledger = await instances.open({ onBatch: (report) => reports.push(report) });
      const outcomes = await Promise.all([run(ledger, supplier('create')), run(ledger, supplier('pause')), run(ledger, supplier('resume'))].map(settle));
      expect(outcomes.map(outcomeOf)).toEqual(['ok', 'ok', 'ok']);
      expect(reports.map(({ units, path }) => ({ units, path }))).toEqual([{ units: 3, path: 'pipelined' }]);
      expect((await ledger.store.readStream(importSupplierStreamId('A'))).map((e) => e.streamPosition)).toEqual([1, 2, 3]);
      expect(await ledger.read.findImportSupplier('A')).toMatchObject({ status: 'Ongoing', streamVersion: 3 });
    } finally {
      await instances.close();
    }
  });

  it('commands that arrive while the batch waits for the lock join it, their streams read behind the lock, once it is had', async () => {
    const reports: BatchReport[] = [];
    const instances = await openInstances();
    try {
      const ledger = await instances.open({ onBatch: (report) => reports.push(report) });
      // Another session holds the writers' lock: the first batch (one command) waits for it.
      await instances.sql('SELECT pg_advisory_lock($1, $2)', [...WRITE_LOCK_KEY]);
      const first = settle(run(ledger, supplier('create')));
      await sleep(100);
      // These arrive while it waits: a command on the first one's stream, and one on a stream of its own.
      const later = [settle(run(ledger, supplier('pause'))), settle(run(ledger, { kind: 'supplier', command: 'create', code: 'B', hook: 'none' }))];
      await sleep(100);
      await instances.sql('SELECT pg_advisory_unlock($1, $2)', [...WRITE_LOCK_KEY]);
      expect((await Promise.all([first, ...later])).map(outcomeOf)).toEqual(['ok', 'ok', 'ok']);
      // They joined while it waited: their reads went out behind the lock's statement, not in a flight of their own.
      expect(reports.map(({ units, path, joined }) => ({ units, path, joined }))).toEqual([{ units: 3, path: 'pipelined', joined: { waiting: 2, after: 0 } }]);
      expect(await ledger.read.findImportSupplier('A')).toMatchObject({ status: 'Paused', streamVersion: 2 });
      expect(await ledger.read.findImportSupplier('B')).toMatchObject({ status: 'Ongoing', streamVersion: 1 });
    } finally {
      await instances.close();
    }
  });

  it('a state a unique index refuses is refused even when a later unit of the batch leaves the row valid', async () => {
    const instances = await openInstances();
    try {
      const ledger = await instances.open();
      const op = (ext: string, expected: number, platformNumber: string): Operation => ({ kind: 'account', ext, expected, platformNumber, hook: 'none' });
      // ONE takes TWO's number, then (had that held) would take another: one by one, the first is refused.
      const outcomes = await Promise.all(
        [op('TWO', 0, 'A-00000002'), op('ONE', 0, 'A-00000002'), op('ONE', 2, 'A-00000001'), op('ONE', 0, 'A-00000001')].map((o) => settle(run(ledger, o))),
      );
      expect(outcomes.map(outcomeOf)).toEqual(['ok', 'unique', 'concurrency', 'ok']);
      expect((await ledger.read.findAccountImportProcess('S', 'ONE'))?.platformAccountNumber).toBe('A-00000001');
    } finally {
      await instances.close();
    }
  });

  it('a unit refused by PostgreSQL (a unique index) has its batch redone unit by unit: it fails alone', async () => {
    const reports: BatchReport[] = [];
    const instances = await openInstances();
    try {
      const ledger = await instances.open({ onBatch: (report) => reports.push(report) });
      const accountOp = (ext: string, platformNumber: string): Operation => ({ kind: 'account', ext, expected: 0, platformNumber, hook: 'none' });
      const outcomes = await Promise.all(
        [run(ledger, accountOp('ONE', 'A-00000001')), run(ledger, accountOp('TWO', 'A-00000001')), run(ledger, accountOp('THREE', 'A-00000003'))].map(settle),
      );
      expect(outcomes.map(outcomeOf)).toEqual(['ok', 'unique', 'ok']);
      expect(reports.map(({ units, path }) => ({ units, path }))).toEqual([{ units: 3, path: 'redone' }]);
      expect((await ledger.read.findAccountImportProcess('S', 'TWO'))).toBeNull();
      expect((await ledger.read.findAccountImportProcess('S', 'THREE'))?.platformAccountNumber).toBe('A-00000003');
      await expectProjectionsVerify(ledger);
    } finally {
      await instances.close();
    }
  });
});

describe('PostgreSQL: a key claimed with its writes, in a batch redone unit by unit', () => {
  if (skipWithoutPostgres()) return;
  it('the redo writes the key\'s row, once: its request is not refused as in progress, and a retry gets its record', async () => {
    const reports: BatchReport[] = [];
    const instances = await openInstances();
    try {
      const ledger = await instances.open({ onBatch: (report) => reports.push(report) });
      const request = { keyId: 'key_test', idempotencyKey: 'redo', fingerprint: 'fp-redo', requestPath: '/v1/data-import/x/' };
      const held = await ledger.idempotency.reserve(request, { claim: 'with-writes', answerFrom: { body: undefined } });
      if (!held.held) throw new Error('the key was expected to be free');
      const keyed = ledger.store.appendToStream('account-import-process:S:ONE', 0, account('ONE', 'A-00000001'), { metadata, beforeCommit: held.beforeCommit });
      // In the same batch, a unit PostgreSQL refuses (the same platform account number): the pipelined batch is rolled back and redone.
      const outcomes = await Promise.all([keyed, run(ledger, { kind: 'account', ext: 'TWO', expected: 0, platformNumber: 'A-00000001', hook: 'none' })].map(settle));
      expect(outcomes.map(outcomeOf)).toEqual(['ok', 'unique']);
      expect(reports.map(({ units, path }) => ({ units, path }))).toEqual([{ units: 2, path: 'redone' }]);
      const positions = (await keyed).map((stored) => stored.globalPosition);
      // A second write of the same request records on the row the redo wrote.
      const more = await ledger.store.appendToStream('account-import-process:S:THREE', 0, account('THREE', 'A-00000003'), { metadata, beforeCommit: held.beforeCommit });
      await held.keepRecorded();
      expect(await ledger.idempotency.find('key_test', 'redo')).toMatchObject({ eventPositions: [...positions, ...more.map((stored) => stored.globalPosition)] });
      expect(await ledger.idempotency.reserve(request, { claim: 'with-writes' })).toMatchObject({ held: false, record: { fingerprint: 'fp-redo' } });
    } finally {
      await instances.close();
    }
  });
});

const supplier = (command: SupplierCommandKind): Operation => ({ kind: 'supplier', command, code: 'A', hook: 'none' });
