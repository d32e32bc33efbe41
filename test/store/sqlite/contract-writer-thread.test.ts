import { describe } from 'vitest';
import { storeContract } from '../contract/index.js';
import { sqliteFactory } from './sqlite-factory.js';

// The same contract with the writes in the writer thread (LEDGER_SQLITE_WRITER=thread), the test's clock told
// to it at each call, its answer rebuilder the contract's (template-writer.ts).
describe('SQLite store, writes in the writer thread', () => {
  const threaded = sqliteFactory({ writerThread: new URL('./template-writer.ts', import.meta.url) });
  storeContract(threaded);
});
