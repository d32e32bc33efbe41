import { eq } from 'drizzle-orm';
import { inlineProjections } from '../projections/index.js';
import { randomIds, type Clock, type IdGenerator, type LedgerContext } from './application/context.js';
import { generateTokenSecret } from './application/tokens.js';
import { createSqliteReadModels } from './queries/read-models.js';
import { openDatabase, type OpenDatabase } from './store/database.js';
import { serviceSecrets } from './store/schema.js';
import { IdempotencyRecords } from './store/idempotency-records.js';
import { SqliteEventStore } from './store/sqlite-event-store.js';

export interface Ledger extends LedgerContext {
  readonly database: OpenDatabase;
  /** Idempotency-Key records, written in the same transaction as the events a request appends. */
  readonly idempotency: IdempotencyRecords;
  close(): void;
}

/** Opens the SQLite ledger (file created and migrated if needed) and wires the store and read models. */
export function openLedger(file: string, options: { clock?: Clock; ids?: IdGenerator } = {}): Ledger {
  const database = openDatabase(file);
  const clock = options.clock ?? (() => new Date());
  const ids = options.ids ?? randomIds;
  const idempotency = new IdempotencyRecords(database.sqlite, clock);
  const store = new SqliteEventStore({
    sqlite: database.sqlite,
    projections: inlineProjections,
    clock,
    newId: ids.uuid,
    unitOfWorkHook: idempotency.unitOfWorkHook,
  });
  return { store, read: createSqliteReadModels(database.db), clock, ids, database, idempotency, close: () => database.close() };
}

/**
 * The token signing secret: LEDGER_TOKEN_SECRET when set, else one generated
 * on first use and kept in the database (never in the event log), so tokens
 * survive restarts and are shared by every process on the same file.
 */
export function resolveTokenSecret(ledger: Ledger, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const { db } = ledger.database;
  db.insert(serviceSecrets)
    .values({ name: 'token_secret', value: generateTokenSecret(), createdAt: ledger.clock().toISOString() })
    .onConflictDoNothing()
    .run();
  const row = db.select().from(serviceSecrets).where(eq(serviceSecrets.name, 'token_secret')).get();
  if (!row) throw new Error('token secret could not be stored');
  return row.value;
}

/** A cheap query that proves the database file answers. */
export async function databaseReachable(ledger: Ledger): Promise<boolean> {
  try {
    ledger.database.sqlite.prepare('SELECT 1').get();
    return true;
  } catch {
    return false;
  }
}
