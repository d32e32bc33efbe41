import { describe } from 'vitest';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { storeContract } from '../contract/index.js';
import { postgresFactory } from './postgres-factory.js';

// The rebuilds run once more in small batches (contract-small-batches.test.ts): a file of its own, so
// vitest's workers share them out.
describe('PostgreSQL store', () => {
  if (skipWithoutPostgres()) return;
  storeContract(postgresFactory());
});
