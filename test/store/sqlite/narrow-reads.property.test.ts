import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { fold } from '../../../src/domain/decider.js';
import { ledgerDecider } from '../../../src/domain/ledger/decider.js';
import { notesDecider } from '../../../src/domain/notes/decider.js';
import { statementsDecider } from '../../../src/domain/statements/decider.js';
import { DomainError } from '../../../src/domain/errors.js';
import { validateImportTransactionsRequest } from '../../../src/domain/ledger/transaction-payload.js';
import { validateImportNotesRequest } from '../../../src/domain/notes/note-payload.js';
import { validateImportHistoricalStatementsRequest } from '../../../src/domain/statements/statement-payload.js';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { GroupCommitRunner } from '../../../src/store/sqlite/group-commit.js';
import { SqliteEventStore } from '../../../src/store/sqlite/sqlite-event-store.js';
import { StreamSnapshots } from '../../../src/store/stream-snapshots.js';
import { tempDatabaseFile } from '../../support/ledger.js';
import { metadata } from '../contract/harness.js';

/**
 * The post-import deciders fold only `last_billed_to_date` of the staged payload and only their own record
 * events of the account stream, so the SQLite store reads only that much of it: whatever the payloads staged
 * and the records imported, the state a command is decided on equals the fold of the whole stream as a fresh
 * read returns it, at the whole stream's version.
 */

const opened: { database: OpenDatabase; cleanup: () => void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) {
    o.database.close();
    o.cleanup();
  }
});

function store(snapshots?: StreamSnapshots): SqliteEventStore {
  const { file, cleanup } = tempDatabaseFile();
  const database = openDatabase(file);
  opened.push({ database, cleanup });
  let n = 0;
  return new SqliteEventStore({
    sqlite: database.sqlite,
    projections: [],
    clock: () => new Date('2026-01-01T00:00:00Z'),
    newId: () => `id-${++n}`,
    runner: new GroupCommitRunner(database.sqlite),
    ...(snapshots ? { snapshots } : {}),
  });
}

const ref = { importSupplier: 'S', externalAccountNumber: 'A' };

/** A payload of arbitrary keys (quotes, dots and `$` in them), its `last_billed_to_date` anything JSON holds, or absent. */
const payload = fc.record(
  {
    last_billed_to_date: fc.oneof(fc.constantFrom('2025-06-30', "2025-07-01'"), fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.jsonValue()),
    extra: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
    history: fc.string({ maxLength: 3000 }),
  },
  { requiredKeys: [] },
).map(({ extra, ...rest }) => ({ ...extra, ...rest }) as Record<string, unknown>);

const staged = (type: 'AccountStaged' | 'AccountRestaged', body: Record<string, unknown>): LedgerEvent =>
  ({ type, version: 1, data: { ...ref, payload: body, stagedAt: '2026-01-01T00:00:00Z' } }) as LedgerEvent;
const processed: LedgerEvent = {
  type: 'AccountProcessed',
  version: 1,
  data: { ...ref, platformAccountNumber: 'P-1', operationsTeamName: 'T', processedAt: '2026-01-01T00:00:00Z' },
} as LedgerEvent;
const base = { ...ref, now: '2026-01-02T00:00:00Z', supplierStatus: 'Ongoing' as const };
const none = new Set<string>();

/** Each post-import decider's command that adds nothing is decided on the fold of the whole stream as a fresh read returns it, at its version. */
async function expectDecidedOnWholeStream(s: SqliteEventStore, stream: string) {
  const notes = await s.handle(stream, notesDecider, { ...base, type: 'ImportNotes', notes: [], existingDocumentPaths: none }, { metadata });
  const ledger = await s.handle(
    stream,
    ledgerDecider,
    { ...base, type: 'ImportTransactions', transactions: [], checkPreviouslyAdded: true, forceAddToCurrentStatement: true, existingProductCodes: none },
    { metadata },
  );
  const statements = await s.handle(stream, statementsDecider, { ...base, type: 'ImportHistoricalStatements', statements: [], existingDocumentPaths: none }, { metadata });
  const whole = (await s.readStream(stream)).map((stored) => stored.event);
  expect(notes.state).toEqual(fold(notesDecider, whole));
  expect(ledger.state).toEqual(fold(ledgerDecider, whole));
  expect(statements.state).toEqual(fold(statementsDecider, whole));
  expect([notes.streamVersion, ledger.streamVersion, statements.streamVersion]).toEqual([whole.length, whole.length, whole.length]);
  return { statements };
}

describe('SQLite: a decider that folds only some keys of the staged payload', () => {
  it('is decided on the state a fold of the whole stream gives', async () => {
    await fc.assert(
      fc.asyncProperty(payload, fc.array(payload, { maxLength: 3 }), async (first, later) => {
        const s = store();
        const stream = accountImportProcessStreamId(ref.importSupplier, ref.externalAccountNumber);
        const events = [staged('AccountStaged', first), ...later.map((body) => staged('AccountRestaged', body)), processed];
        await s.appendToStream(stream, 0, events, { metadata });
        const { statements } = await expectDecidedOnWholeStream(s, stream);
        const last = [first, ...later].at(-1)!['last_billed_to_date'];
        expect(statements.state.account.lastBilledToDate).toBe(typeof last === 'string' ? last : null);
      }),
      { numRuns: 60 },
    );
  });
});

const envelope = { import_supplier: ref.importSupplier, external_account_number: ref.externalAccountNumber };

/** One records request of each decider, as the application builds its command from a valid request (null when it is not valid). */
const command = fc.oneof(
  fc.array(fc.record({ body: fc.constantFrom('a', 'b', 'Call back'), created_at: fc.constantFrom('2025-07-01T10:00:00Z', '2025-07-02T08:00:00Z') }), { minLength: 1, maxLength: 3 }).map((notes) => {
    const v = validateImportNotesRequest({ ...envelope, notes });
    return v.ok ? { decider: notesDecider, command: { ...base, type: 'ImportNotes' as const, notes: v.data.notes, existingDocumentPaths: none } } : null;
  }),
  fc
    .uniqueArray(
      fc.record({
        transaction_id: fc.constantFrom('T1', 'T2', 'T3', 'T4'),
        transaction_date: fc.constantFrom('2025-05-15', '2025-07-20'),
        amount: fc.integer({ min: 1, max: 5000 }).map((cents) => cents / 100),
        type: fc.constantFrom('CHARGE', 'CREDIT', 'PAYMENT'),
        reason: fc.constant('IMPORTED'),
      }),
      { minLength: 1, maxLength: 3, selector: (tx) => tx.transaction_id },
    )
    .map((transactions) => {
      const v = validateImportTransactionsRequest({ ...envelope, transactions });
      const fields = { checkPreviouslyAdded: true, forceAddToCurrentStatement: false, existingProductCodes: none };
      return v.ok ? { decider: ledgerDecider, command: { ...base, type: 'ImportTransactions' as const, transactions: v.data.transactions, ...fields } } : null;
    }),
  fc.record({ statement_id: fc.constantFrom('ST-A', 'ST-B'), bill_period_from_date: fc.constant('2025-06-01'), bill_period_to_date: fc.constantFrom('2025-06-10', '2025-06-30') }).map((statement) => {
    const v = validateImportHistoricalStatementsRequest({ ...envelope, statements: [statement] });
    return v.ok ? { decider: statementsDecider, command: { ...base, type: 'ImportHistoricalStatements' as const, statements: v.data.statements, existingDocumentPaths: none } } : null;
  }),
);

describe('SQLite: a decider that folds only some event types of its stream', () => {
  it('is decided on the state a fold of the whole stream gives, at its version', async () => {
    await fc.assert(
      // Each step reads the stream afterwards or not (the next command then starts from what was read ahead, or reads it itself);
      // with snapshots of every stream, commands read only what came after the last one's state.
      fc.asyncProperty(fc.array(fc.tuple(command, fc.boolean()), { minLength: 1, maxLength: 10 }), fc.boolean(), async (steps, snapshotted) => {
        const s = store(snapshotted ? new StreamSnapshots({ minEvents: 1 }) : undefined);
        const stream = accountImportProcessStreamId(ref.importSupplier, ref.externalAccountNumber);
        await s.appendToStream(stream, 0, [staged('AccountStaged', { last_billed_to_date: '2025-06-30' }), processed], { metadata });
        for (const [step, readAfter] of steps) {
          if (step === null) continue;
          const { decider, command } = step as { decider: typeof notesDecider; command: Parameters<typeof notesDecider.decide>[0] };
          const result = await s.handle(stream, decider, command, { metadata }).catch((error: unknown) => {
            if (error instanceof DomainError) return null;
            throw error;
          });
          if (result === null || !readAfter) continue;
          const whole = (await s.readStream(stream)).map((stored) => stored.event);
          expect(result.streamVersion).toBe(whole.length);
          expect(result.state).toEqual(fold(decider, whole));
        }
        await expectDecidedOnWholeStream(s, stream);
      }),
      { numRuns: 60 },
    );
  });
});
