import { getTableName } from 'drizzle-orm';
import { apiKeys } from '../../projections/api-keys.js';
import { importSuppliers } from '../../projections/import-suppliers.js';
import { operationsTeams } from '../../projections/operations-teams.js';
import { serviceConfig } from '../../projections/service-config.js';
import type { AnyRowProjection } from '../../projections/projection.js';

/**
 * The tables whose rows every process keeps in memory behind the read generation
 * (src/queries/generation-cached-reads.ts): a change to one moves the generation, on either store.
 */
export const READ_GENERATION_TABLES: ReadonlySet<string> = new Set(
  [apiKeys, importSuppliers, operationsTeams, serviceConfig].map((table) => getTableName(table)),
);

/** Whether `projection` writes one of those tables. */
export const movesReadGeneration = (projection: AnyRowProjection): boolean => READ_GENERATION_TABLES.has(getTableName(projection.table));
