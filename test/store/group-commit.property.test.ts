import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../events/import-supplier.js';
import {
  importSupplierDecider,
  type ImportSupplierCommand,
} from '../../src/domain/import-supplier/import-supplier-decider.js';
import { DomainError } from '../../src/domain/errors.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

const metadata = { actor: 'operator:test', requestId: null, correlationId: null, causationId: null };
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

type Outcome = 'ok' | string;

async function logOf(t: TestLedger) {
  return (await t.ledger.store.readAll(0, 10_000)).map((e) => ({ stream: e.streamId, position: e.streamPosition, event: e.event }));
}

/** Attaches the handlers at once, so a command rejected before the test looks at it is not "unhandled". */
function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then(
    (value) => ({ status: 'fulfilled', value }) as const,
    (reason: unknown) => ({ status: 'rejected', reason }) as const,
  );
}

function outcomeOf(settled: PromiseSettledResult<unknown>): Outcome {
  if (settled.status === 'fulfilled') return 'ok';
  if (settled.reason instanceof DomainError) return settled.reason.code;
  throw settled.reason;
}

describe('group commit', () => {
  it('concurrent commands (some failing) give the log and outcomes of serial execution in commit order', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb, async (schedule) => {
        const concurrent = createTestLedger();
        const serial = createTestLedger();
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

          const serialOutcomes: Outcome[] = [];
          for (const command of order) {
            const [settled] = await Promise.allSettled([
              serial.ledger.store.handle(importSupplierStreamId(command.code), importSupplierDecider, command, { metadata }),
            ]);
            serialOutcomes.push(outcomeOf(settled!));
          }

          expect(concurrentOutcomes).toEqual(serialOutcomes);
          expect(await logOf(concurrent)).toEqual(await logOf(serial));
          // every acknowledged command that decided events is in the log, every rejected one is not
          const acknowledged = order.filter((_, i) => concurrentOutcomes[i] === 'ok').length;
          expect((await logOf(concurrent)).length).toBeLessThanOrEqual(acknowledged);
          expect(await concurrent.ledger.read.listImportSuppliers()).toEqual(await serial.ledger.read.listImportSuppliers());
        } finally {
          concurrent.close();
          serial.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('commits commands that arrive together in one transaction, and a failing one alone rolls back', async () => {
    const t = createTestLedger();
    try {
      const { sqlite } = t.ledger.database;
      let commits = 0;
      const exec = sqlite.exec.bind(sqlite);
      sqlite.exec = ((sql: string) => {
        if (sql === 'COMMIT') commits++;
        return exec(sql);
      }) as typeof sqlite.exec;
      const create = (code: string) =>
        settle(
          t.ledger.store.handle(
            importSupplierStreamId(code),
            importSupplierDecider,
            { type: 'CreateImportSupplier', code, status: 'Ongoing', sendEmails: false, documentRoot: null, now: 'x' },
            { metadata },
          ),
        );
      const results = await Promise.all([...Array.from({ length: 10 }, (_, i) => create(`S${i}`)), create('S3'), create('S10')]);
      expect(commits).toBe(1);
      expect(results.map((r) => r.status)).toEqual([...Array(10).fill('fulfilled'), 'rejected', 'fulfilled']);
      expect((await t.ledger.store.readAll(0, 100)).map((e) => e.streamId)).toEqual(
        [...Array.from({ length: 10 }, (_, i) => `S${i}`), 'S10'].map(importSupplierStreamId),
      );
    } finally {
      t.close();
    }
  });
});
