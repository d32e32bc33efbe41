import { describe } from 'vitest';
import { storeContract } from '../contract/index.js';
import { sqliteFactory } from './sqlite-factory.js';

// The same contract runs with the log read in a worker (contract-log-worker.test.ts) and with the writes in
// the writer thread (contract-writer-thread.test.ts): files of their own, so vitest's workers share them out.
describe('SQLite store', () => {
  storeContract(sqliteFactory());
});
