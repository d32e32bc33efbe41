import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { fold } from '../../../src/domain/decider.js';
import { ledgerDecider } from '../../../src/domain/ledger/decider.js';
import { notesDecider } from '../../../src/domain/notes/decider.js';
import { statementsDecider } from '../../../src/domain/statements/decider.js';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { GroupCommitRunner } from '../../../src/store/sqlite/group-commit.js';
import { SqliteEventStore } from '../../../src/store/sqlite/sqlite-event-store.js';
import { tempDatabaseFile } from '../../support/ledger.js';
import { metadata } from '../contract/harness.js';

/**
 * The post-import deciders fold only `last_billed_to_date` of the staged payload, so the SQLite store reads
 * only that key of it: whatever the payloads staged, the state a command is decided on equals the fold of
 * the whole stream as a fresh read returns it.
 */

const opened: { database: OpenDatabase; cleanup: () => void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) {
    o.database.close();
    o.cleanup();
  }
});

function store(): SqliteEventStore {
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

describe('SQLite: a decider that folds only some keys of the staged payload', () => {
  it('is decided on the state a fold of the whole stream gives', async () => {
    await fc.assert(
      fc.asyncProperty(payload, fc.array(payload, { maxLength: 3 }), async (first, later) => {
        const s = store();
        const stream = accountImportProcessStreamId(ref.importSupplier, ref.externalAccountNumber);
        const events = [staged('AccountStaged', first), ...later.map((body) => staged('AccountRestaged', body)), processed];
        await s.appendToStream(stream, 0, events, { metadata });
        const none = new Set<string>();
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
        const last = [first, ...later].at(-1)!['last_billed_to_date'];
        expect(statements.state.account.lastBilledToDate).toBe(typeof last === 'string' ? last : null);
      }),
      { numRuns: 60 },
    );
  });
});
