import { describe } from 'vitest';
import { eventLogContract, projectionsContract } from '../contract/index.js';
import { sqliteFactory } from './sqlite-factory.js';

// The same log reads and rebuilds with the log read in a worker thread (the default for big logs) and
// replayed in small write transactions, so the batch boundaries of both are crossed.
describe('SQLite store, log read in a worker, rebuild in small batches', () => {
  const worker = sqliteFactory({ workerFromEvents: 0, rebuildBatchSize: 7 });
  eventLogContract(worker);
  projectionsContract(worker);
});
