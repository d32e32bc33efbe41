import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { DomainError } from '../../../src/domain/errors.js';
import { importSupplierDecider, type ImportSupplierCommand } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import { ConcurrencyError, UniqueConstraintError } from '../../../src/store/event-store.js';
import { IDEMPOTENCY_LEASE_MS } from '../../../src/store/idempotency.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { create, created, createSupplier, metadata, pause, settle, statusChanged, type ContractLedger, type LedgerFactory } from './harness.js';

/** The event store's guarantees: appends, the command handler, handleMany, group commit and `beforeCommit`. */
export function eventStoreContract(open: LedgerFactory): void {
  describe('event store', () => {
    let t: ContractLedger;
    beforeEach(async () => {
      t = await open();
    });
    afterEach(() => t.close());
    const version = (code: string) => t.ledger.store.streamVersion(importSupplierStreamId(code));

    it('appends with an expected version, contiguous from 1, and reads the stream back', async () => {
      const stream = importSupplierStreamId('A');
      await t.ledger.store.appendToStream(stream, 0, [created('A')], { metadata });
      await t.ledger.store.appendToStream(stream, 1, [statusChanged('A', 'Ongoing', 'Paused'), statusChanged('A', 'Paused', 'Ongoing')], { metadata });
      const events = await t.ledger.store.readStream(stream);
      expect(events.map((e) => e.streamPosition)).toEqual([1, 2, 3]);
      expect(events.map((e) => e.event.type)).toEqual(['ImportSupplierCreated', 'ImportSupplierStatusChanged', 'ImportSupplierStatusChanged']);
      expect(events[0]?.metadata).toMatchObject({ ...metadata });
      expect(new Set(events.map((e) => e.metadata.eventId)).size).toBe(3);
      expect(await t.ledger.store.streamVersion(stream)).toBe(3);
      expect(events[0]?.recordedAt).toBe(t.clock.now.toISOString());
    });

    it('refuses a stale expected version with a typed ConcurrencyError and writes nothing', async () => {
      const stream = importSupplierStreamId('A');
      await t.ledger.store.appendToStream(stream, 0, [created('A')], { metadata });
      await expect(t.ledger.store.appendToStream(stream, 0, [created('A')], { metadata })).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(t.ledger.store.appendToStream(stream, 5, [created('A')], { metadata })).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await t.ledger.store.streamVersion(stream)).toBe(1);
    });

    it('updates the inline projections in the same transaction as the append', async () => {
      await t.ledger.store.appendToStream(importSupplierStreamId('A'), 0, [created('A'), statusChanged('A', 'Ongoing', 'Paused')], { metadata });
      expect(await t.ledger.read.findImportSupplier('A')).toMatchObject({ code: 'A', status: 'Paused', streamVersion: 2 });
    });

    it('handle: decides on the folded stream and returns the events, the new state and version', async () => {
      const stream = importSupplierStreamId('A');
      const first = await t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata });
      expect(first.events.map((e) => [e.event.type, e.streamPosition])).toEqual([['ImportSupplierCreated', 1]]);
      const second = await t.ledger.store.handle(stream, importSupplierDecider, pause('A').command, { metadata });
      expect(second.streamVersion).toBe(2);
      expect(second.state).toMatchObject({ status: 'Paused' });
    });

    it('handle: a stream read before the write, then moved on, is decided on as it is at the write', async () => {
      const stream = importSupplierStreamId('A');
      await t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata });
      // Read ahead, as process reads its account before its write; then another write moves the stream on.
      expect(await t.ledger.store.readStream(stream)).toHaveLength(1);
      await t.ledger.store.appendToStream(stream, 1, [statusChanged('A', 'Ongoing', 'Paused')], { metadata });
      // On the stream as it is, the supplier is already paused: nothing to append (the stale read would append a change).
      const paused = await t.ledger.store.handle(stream, importSupplierDecider, pause('A').command, { metadata });
      expect(paused.events).toEqual([]);
      expect(paused.state).toMatchObject({ status: 'Paused' });
      // Read ahead and unmoved, it decides as a fresh read would.
      expect(await t.ledger.store.readStream(stream)).toHaveLength(2);
      const resumed = await t.ledger.store.handle(stream, importSupplierDecider, { ...pause('A').command, to: 'Ongoing' as const }, { metadata });
      expect(resumed.events.map((e) => e.event.data)).toMatchObject([{ from: 'Paused', to: 'Ongoing' }]);
      expect(resumed.streamVersion).toBe(3);
    });

    it('handle: a DomainError from decide leaves nothing written', async () => {
      const stream = importSupplierStreamId('A');
      await t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata });
      await expect(t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata })).rejects.toBeInstanceOf(DomainError);
      expect(await t.ledger.store.streamVersion(stream)).toBe(1);
    });

    it('handle: a dry run decides, appends and projects, then rolls everything back', async () => {
      const stream = importSupplierStreamId('A');
      const result = await t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata, dryRun: true });
      expect(result.events).toHaveLength(1);
      expect(await t.ledger.store.streamVersion(stream)).toBe(0);
      expect(await t.ledger.read.findImportSupplier('A')).toBeNull();
      expect(await t.ledger.store.isEmpty()).toBe(true);
      // Positions are not used up by a rolled-back unit: the next event takes the position the dry run had.
      const real = await t.ledger.store.handle(stream, importSupplierDecider, createSupplier('A'), { metadata });
      expect(real.events[0]!.globalPosition).toBe(result.events[0]!.globalPosition);
    });

    it('handle: a guard on another stream that moved on is a ConcurrencyError', async () => {
      await t.ledger.store.appendToStream(importSupplierStreamId('G'), 0, [created('G')], { metadata });
      await expect(
        t.ledger.store.handle(importSupplierStreamId('A'), importSupplierDecider, createSupplier('A'), {
          metadata,
          guards: [{ streamId: importSupplierStreamId('G'), expectedVersion: 0 }],
        }),
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await version('A')).toBe(0);
    });

    it('readAll: the whole log in global order, gapless, from after a position', async () => {
      await t.ledger.store.appendToStream(importSupplierStreamId('A'), 0, [created('A')], { metadata });
      await t.ledger.store.appendToStream(importSupplierStreamId('B'), 0, [created('B'), statusChanged('B', 'Ongoing', 'Paused')], { metadata });
      const all = await t.ledger.store.readAll(0, 10);
      expect(all.map((e) => e.streamId)).toEqual([importSupplierStreamId('A'), importSupplierStreamId('B'), importSupplierStreamId('B')]);
      expect(all.map((e) => e.globalPosition - all[0]!.globalPosition)).toEqual([0, 1, 2]);
      expect(await t.ledger.store.readAll(all[0]!.globalPosition, 10)).toHaveLength(2);
      expect(await t.ledger.store.readAll(0, 2)).toHaveLength(2);
      expect(await t.ledger.store.isEmpty()).toBe(false);
    });

    it('a write that breaks a unique index of a read model is a UniqueConstraintError and writes nothing', async () => {
      const account = (ext: string): LedgerEvent[] => [
        { type: 'AccountStaged', version: 1, data: { importSupplier: 'S', externalAccountNumber: ext, payload: {}, stagedAt: '2026-01-01T00:00:00.000Z' } },
        {
          type: 'AccountProcessed',
          version: 1,
          data: { importSupplier: 'S', externalAccountNumber: ext, platformAccountNumber: 'A-00000001', operationsTeamName: 'T', processedAt: '2026-01-01T00:00:00.000Z' },
        },
      ];
      await t.ledger.store.appendToStream('account-import-process:S:ONE', 0, account('ONE'), { metadata });
      // The same platform account number for another account: the projection's unique index refuses it.
      await expect(t.ledger.store.appendToStream('account-import-process:S:TWO', 0, account('TWO'), { metadata })).rejects.toBeInstanceOf(UniqueConstraintError);
      expect(await t.ledger.store.streamVersion('account-import-process:S:TWO')).toBe(0);
      expect(await t.ledger.read.findAccountImportProcess('S', 'TWO')).toBeNull();
    });

    it('a lookup by a value holding U+0000 (a path parameter) finds nothing, on every store', async () => {
      expect(await t.ledger.store.readStream('import-supplier:A\u0000B')).toEqual([]);
      expect(await t.ledger.store.streamVersion('import-supplier:A\u0000B')).toBe(0);
      expect(await t.ledger.read.findImportSupplier('A\u0000B')).toBeNull();
      expect(await t.ledger.read.findPopulateBatch('a\u0000b')).toBeNull();
      expect(await t.ledger.read.accountListChunk('A\u0000B', 'STAGED', { after: null, through: null }, 100)).toEqual([]);
    });

    describe('handleMany: several streams, one atomic unit', () => {
      it('handles every command on its stream and projects, results in command order', async () => {
        const results = await t.ledger.store.handleMany([create('A'), create('B')], { metadata });
        expect(results.map((r) => [r.streamVersion, r.events.map((e) => e.streamId)])).toEqual([
          [1, [importSupplierStreamId('A')]],
          [1, [importSupplierStreamId('B')]],
        ]);
        expect(await t.ledger.read.findImportSupplier('B')).toMatchObject({ code: 'B', status: 'Ongoing' });
        expect(results[1]?.events[0]?.metadata).toMatchObject(metadata);
      });

      it('a later command on the same stream sees the events of the earlier ones', async () => {
        const results = await t.ledger.store.handleMany([create('A'), pause('A')], { metadata });
        expect(results.map((r) => r.streamVersion)).toEqual([1, 2]);
        expect(await t.ledger.read.findImportSupplier('A')).toMatchObject({ status: 'Paused' });
      });

      it('a DomainError from any decide leaves nothing of any command written', async () => {
        await t.ledger.store.handleMany([create('A')], { metadata });
        // B would be created, then A again is refused: B must not exist afterwards.
        await expect(t.ledger.store.handleMany([create('B'), create('A')], { metadata })).rejects.toBeInstanceOf(DomainError);
        expect([await version('A'), await version('B')]).toEqual([1, 0]);
        expect(await t.ledger.read.findImportSupplier('B')).toBeNull();
      });

      it('a dry run decides, appends and projects everything, then rolls it all back', async () => {
        const results = await t.ledger.store.handleMany([create('A'), create('B')], { metadata, dryRun: true });
        expect(results.map((r) => r.events.length)).toEqual([1, 1]);
        expect(await t.ledger.store.isEmpty()).toBe(true);
        expect(await t.ledger.read.findImportSupplier('A')).toBeNull();
      });

      it('checks the guards first: a guard that moved on is a ConcurrencyError and nothing is written', async () => {
        await t.ledger.store.handleMany([create('G')], { metadata });
        await expect(
          t.ledger.store.handleMany([create('A')], { metadata, guards: [{ streamId: importSupplierStreamId('G'), expectedVersion: 0 }] }),
        ).rejects.toBeInstanceOf(ConcurrencyError);
        expect(await version('A')).toBe(0);
      });

      it('an empty list of commands writes nothing and returns no results', async () => {
        expect(await t.ledger.store.handleMany([], { metadata })).toEqual([]);
        expect(await t.ledger.store.isEmpty()).toBe(true);
      });

      it('does not disturb commands of other callers committed in the same group commit', async () => {
        const [many, single] = await Promise.all([
          settle(t.ledger.store.handleMany([create('B'), create('B')], { metadata })),
          settle(t.ledger.store.handle(importSupplierStreamId('C'), importSupplierDecider, createSupplier('C'), { metadata })),
        ]);
        expect(many.status).toBe('rejected');
        expect(single.status).toBe('fulfilled');
        expect([await version('B'), await version('C')]).toEqual([0, 1]);
      });
    });

    // The hooks a write runs are an Idempotency-Key reservation's (the one kind that crosses to SQLite's
    // writer thread): what a hook did is read back through the key's record.
    describe('beforeCommit: in the same transaction as the events', () => {
      const request = (key: string) => ({ keyId: 'key_test', idempotencyKey: key, fingerprint: `fp-${key}`, requestPath: '/v1/data-import/x/' });
      const hold = async (key: string) => {
        const reservation = await t.ledger.idempotency.reserve(request(key));
        if (!reservation.held) throw new Error(`${key} was expected to be free`);
        return reservation;
      };

      it('runs once per write with the events appended, and not for a dry run', async () => {
        const { beforeCommit: hook } = await hold('seen');
        const stored = await t.ledger.store.appendToStream(importSupplierStreamId('A'), 0, [created('A')], { metadata, beforeCommit: hook });
        const many = await t.ledger.store.handleMany([create('B'), pause('B')], { metadata, beforeCommit: hook });
        await t.ledger.store.handle(importSupplierStreamId('D'), importSupplierDecider, createSupplier('D'), { metadata, beforeCommit: hook, dryRun: true });
        expect((await t.ledger.idempotency.find('key_test', 'seen'))?.eventPositions).toEqual([
          ...stored.map((e) => e.globalPosition),
          ...many.flatMap((r) => r.events.map((e) => e.globalPosition)),
        ]);
      });

      it('a hook that throws rolls its unit back alone and fails the write with its error', async () => {
        // A reservation taken over past its lease: its hook refuses every write with `idempotency_key_in_progress`.
        const { beforeCommit: refuse } = await hold('stale');
        t.clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000 + 1);
        await hold('stale');
        const outcomes = await Promise.all([
          settle(t.ledger.store.handle(importSupplierStreamId('A'), importSupplierDecider, createSupplier('A'), { metadata })),
          settle(t.ledger.store.handle(importSupplierStreamId('B'), importSupplierDecider, createSupplier('B'), { metadata, beforeCommit: refuse })),
          settle(t.ledger.store.appendToStream(importSupplierStreamId('C'), 0, [created('C')], { metadata, beforeCommit: refuse })),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
        expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'idempotency_key_in_progress' });
        expect([await version('A'), await version('B'), await version('C')]).toEqual([1, 0, 0]);
        expect(await t.ledger.read.findImportSupplier('B')).toBeNull();
      });
    });

    describe('group commit', () => {
      const CODES = ['A', 'B', 'C'] as const;
      const commandArb: fc.Arbitrary<ImportSupplierCommand> = fc.oneof(
        fc.record({
          type: fc.constant('CreateImportSupplier' as const),
          code: fc.constantFrom(...CODES),
          status: fc.constantFrom('Ongoing' as const, 'Paused' as const),
          sendEmails: fc.boolean(),
          documentRoot: fc.constant(null),
          now: fc.constant('2026-11-21T10:00:00.000Z'),
        }),
        fc.record({
          type: fc.constant('ChangeImportSupplierStatus' as const),
          code: fc.constantFrom(...CODES),
          to: fc.constantFrom('Ongoing' as const, 'Paused' as const, 'Complete' as const),
          now: fc.constant('2026-11-21T10:00:00.000Z'),
        }),
      );
      /** Commands with the turn of the event loop they are issued in: commands of one turn share a batch. */
      const scheduleArb = fc.array(fc.record({ command: commandArb, turn: fc.nat(3) }), { minLength: 1, maxLength: 30 });
      const outcomeOf = (settled: PromiseSettledResult<unknown>): string => {
        if (settled.status === 'fulfilled') return 'ok';
        if (settled.reason instanceof DomainError) return settled.reason.code;
        throw settled.reason;
      };
      const logOf = async (l: ContractLedger) =>
        (await l.ledger.store.readAll(0, 10_000)).map((e) => ({ stream: e.streamId, position: e.streamPosition, event: e.event }));

      it('concurrent commands (some failing) give the log, outcomes and projections of serial execution in commit order', async () => {
        await fc.assert(
          fc.asyncProperty(scheduleArb, async (schedule) => {
            // The two ledgers open side by side (on SQLite with a writer thread, each start loads the thread's modules).
            const opened = await Promise.allSettled([open(), open()]);
            const [concurrent, serial] = opened.map((o) => (o.status === 'fulfilled' ? o.value : null));
            if (!concurrent || !serial) {
              await Promise.all([concurrent?.close(), serial?.close()]);
              throw opened.find((o): o is PromiseRejectedResult => o.status === 'rejected')!.reason;
            }
            try {
              // Issue every command of a turn without awaiting, then yield to let the batch commit.
              const pending: Promise<PromiseSettledResult<unknown>>[] = [];
              const order: ImportSupplierCommand[] = [];
              for (let turn = 0; turn <= 3; turn++) {
                for (const { command } of schedule.filter((s) => s.turn === turn)) {
                  order.push(command);
                  pending.push(settle(concurrent.ledger.store.handle(importSupplierStreamId(command.code), importSupplierDecider, command, { metadata })));
                }
                await new Promise((resolve) => setImmediate(resolve));
              }
              const concurrentOutcomes = (await Promise.all(pending)).map(outcomeOf);

              const serialOutcomes: string[] = [];
              for (const command of order) {
                serialOutcomes.push(outcomeOf(await settle(serial.ledger.store.handle(importSupplierStreamId(command.code), importSupplierDecider, command, { metadata }))));
              }

              expect(concurrentOutcomes).toEqual(serialOutcomes);
              expect(await logOf(concurrent)).toEqual(await logOf(serial));
              // every acknowledged command that decided events is in the log, every rejected one is not
              const acknowledged = order.filter((_, i) => concurrentOutcomes[i] === 'ok').length;
              expect((await logOf(concurrent)).length).toBeLessThanOrEqual(acknowledged);
              expect(await concurrent.ledger.read.listImportSuppliers()).toEqual(await serial.ledger.read.listImportSuppliers());
            } finally {
              await Promise.all([concurrent.close(), serial.close()]);
            }
          }),
          { numRuns: 60 },
        );
        // 60 pairs of fresh ledgers: on a 2-core machine, longer than the 30 s default when the test files run
        // two at a time (maxWorkers: 2); up to 82 s in a whole run on a slow machine, for the SQLite writer thread.
      }, 300_000);
    });
  });
}
