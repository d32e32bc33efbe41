import { rebuildAnswer } from '../../../src/answers/recoveries.js';
import { describe } from 'vitest';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { assembleLedger } from '../../../src/ledger.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { sqliteLedger, type SqliteLedgerOptions } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { TestClock, tempDatabaseFile } from '../../support/ledger.js';
import { executeOnFile } from '../../support/sqlite.js';
import { eventLogContract, projectionsContract, storeContract, type LedgerFactory } from '../contract/index.js';

/** A fresh SQLite ledger on a temp file; `execute` runs on a connection of its own, as a console would. */
function sqliteFactory(options: Partial<SqliteLedgerOptions> = {}): LedgerFactory {
  return async () => {
    const { file, cleanup } = tempDatabaseFile();
    const clock = new TestClock();
    const openOne = () => assembleLedger(sqliteLedger(openDatabase(file), { clock: clock.read, newId: randomIds.uuid, rebuildAnswer, ...options }), { clock: clock.read, ids: randomIds });
    let ledger = openOne();
    const others: ReturnType<typeof openOne>[] = [];
    return {
      get ledger() {
        return ledger;
      },
      clock,
      restart: async () => {
        await ledger.close();
        clock.advanceSeconds(1); // a restart takes a moment
        ledger = openOne();
      },
      another: async () => {
        const other = openOne();
        others.push(other);
        return other;
      },
      execute: (sql) => executeOnFile(file, sql),
      close: async () => {
        for (const other of others) await other.close();
        await ledger.close();
        cleanup();
      },
    };
  };
}

describe('SQLite store', () => {
  storeContract(sqliteFactory());
});

// The same log reads and rebuilds with the log read in a worker thread (the default for big logs) and
// replayed in small write transactions, so the batch boundaries of both are crossed.
describe('SQLite store, log read in a worker, rebuild in small batches', () => {
  const worker = sqliteFactory({ workerFromEvents: 0, rebuildBatchSize: 7 });
  eventLogContract(worker);
  projectionsContract(worker);
});
