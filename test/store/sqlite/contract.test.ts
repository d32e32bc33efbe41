import { templateAnswer } from '../contract/harness.js';
import { describe } from 'vitest';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { assembleLedger } from '../../../src/ledger.js';
import { openSqliteLedger, type SqliteLedgerOptions } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { TestClock, tempDatabaseFile } from '../../support/ledger.js';
import { executeOnFile } from '../../support/sqlite.js';
import { eventLogContract, projectionsContract, storeContract, type LedgerFactory } from '../contract/index.js';

/** A fresh SQLite ledger on a temp file; `execute` runs on a connection of its own, as a console would. */
function sqliteFactory(options: Partial<SqliteLedgerOptions> = {}): LedgerFactory {
  return async () => {
    const { file, cleanup } = tempDatabaseFile();
    const clock = new TestClock();
    const openOne = async () =>
      assembleLedger(await openSqliteLedger(file, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, ...options }), { clock: clock.read, ids: randomIds });
    let ledger = await openOne();
    const others: Awaited<ReturnType<typeof openOne>>[] = [];
    return {
      get ledger() {
        return ledger;
      },
      clock,
      restart: async () => {
        await ledger.close();
        clock.advanceSeconds(1); // a restart takes a moment
        ledger = await openOne();
      },
      another: async () => {
        const other = await openOne();
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

// The same contract with the writes in the writer thread (LEDGER_SQLITE_WRITER=thread), the test's clock told
// to it at each call, its answer rebuilder the contract's (template-writer.ts).
describe('SQLite store, writes in the writer thread', () => {
  const threaded = sqliteFactory({ writerThread: new URL('./template-writer.ts', import.meta.url) });
  storeContract(threaded);
});
