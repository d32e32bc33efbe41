import { randomIds } from '../../../src/application/clock-and-ids.js';
import { assembleLedger } from '../../../src/ledger.js';
import { openSqliteLedger, type SqliteLedgerOptions } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { TestClock, tempDatabaseFile } from '../../support/ledger.js';
import { executeOnFile } from '../../support/sqlite.js';
import { contractLedger, templateAnswer } from '../contract/harness.js';
import type { LedgerFactory } from '../contract/index.js';

/** A fresh SQLite ledger on a temp file; `execute` runs on a connection of its own, as a console would. */
export function sqliteFactory(options: Partial<SqliteLedgerOptions> = {}): LedgerFactory {
  return async () => {
    const { file, cleanup } = tempDatabaseFile();
    const clock = new TestClock();
    const openOne = async () =>
      assembleLedger(await openSqliteLedger(file, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, ...options }), { clock: clock.read, ids: randomIds });
    return contractLedger(clock, openOne, (sql) => executeOnFile(file, sql), cleanup);
  };
}
