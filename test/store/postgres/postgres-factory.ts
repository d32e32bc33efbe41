import { randomIds } from '../../../src/application/clock-and-ids.js';
import { assembleLedger } from '../../../src/ledger.js';
import { openPostgresLedger, type PostgresLedgerOptions } from '../../../src/store/postgres/open-postgres-ledger.js';
import { TestClock } from '../../support/ledger.js';
import { createTestDatabase, executeOn } from '../../support/postgres.js';
import { templateAnswer } from '../contract/harness.js';
import type { LedgerFactory } from '../contract/index.js';

/** A fresh PostgreSQL ledger on a database of its own; `execute` runs on a connection of its own, as a console would. */
export function postgresFactory(options: Partial<PostgresLedgerOptions> = {}): LedgerFactory {
  return async () => {
    const database = await createTestDatabase();
    const clock = new TestClock();
    const openOne = async () =>
      assembleLedger(await openPostgresLedger(database.url, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, poolSize: 3, ...options }), { clock: clock.read, ids: randomIds });
    let ledger = await openOne();
    const others: Awaited<ReturnType<typeof openOne>>[] = [];
    return {
      get ledger() {
        return ledger;
      },
      clock,
      execute: (sql) => executeOn(database.url, sql),
      restart: async () => {
        await ledger.close();
        clock.advanceSeconds(1);
        ledger = await openOne();
      },
      another: async () => {
        const other = await openOne();
        others.push(other);
        return other;
      },
      close: async () => {
        for (const other of others) await other.close();
        await ledger.close();
        await database.drop();
      },
    };
  };
}
