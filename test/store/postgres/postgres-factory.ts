import { randomIds } from '../../../src/application/clock-and-ids.js';
import { assembleLedger } from '../../../src/ledger.js';
import { openPostgresLedger, type PostgresLedgerOptions } from '../../../src/store/postgres/open-postgres-ledger.js';
import { TestClock } from '../../support/ledger.js';
import { createTestDatabase, executeOn } from '../../support/postgres.js';
import { contractLedger, templateAnswer } from '../contract/harness.js';
import type { LedgerFactory } from '../contract/index.js';

/** A fresh PostgreSQL ledger on a database of its own; `execute` runs on a connection of its own, as a console would. */
export function postgresFactory(options: Partial<PostgresLedgerOptions> = {}): LedgerFactory {
  return async () => {
    const database = await createTestDatabase();
    const clock = new TestClock();
    const openOne = async () =>
      assembleLedger(await openPostgresLedger(database.url, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, poolSize: 3, ...options }), { clock: clock.read, ids: randomIds });
    return contractLedger(clock, openOne, (sql) => executeOn(database.url, sql), () => database.drop());
  };
}
