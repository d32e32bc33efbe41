import { describe } from 'vitest';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { projectionsContract } from '../contract/index.js';
import { postgresFactory } from './postgres-factory.js';

// The rebuilds of the store contract replayed in small write transactions, so their batch boundaries are crossed.
describe('PostgreSQL store, rebuild in small batches', () => {
  if (skipWithoutPostgres()) return;
  projectionsContract(postgresFactory({ rebuildBatchSize: 7 }));
});
