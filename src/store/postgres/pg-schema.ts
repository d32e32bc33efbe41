import { getTableColumns, getTableName, is, type Table } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTable,
  type PgTableWithColumns,
} from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { inlineProjections } from '../../../projections/index.js';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { idempotencyKeys } from '../idempotency-schema.js';
import { events, projectionVersions, rateLimitBuckets, rateLimitWindows, serviceSecrets, webhookAttempts, webhookSecrets } from '../schema.js';
import { relayCursors, webhookRetries } from '../relay-schema.js';

/**
 * The PostgreSQL tables, derived from the canonical (`sqlite-core`: drizzle has no dialect-neutral schema)
 * definitions by `toPgTable`. JSON stays text, byte for byte; integers become `bigint`; the autoincrement
 * position a plain key (the store assigns positions under the write lock). Anything it does not map throws,
 * so a new construct is translated on purpose. drizzle-kit only sees named exports: one per table below.
 */

/** A derived table: its columns keep the canonical property names (row types come from the canonical `$inferSelect`). */
export type DerivedPgTable<T extends SQLiteTable = SQLiteTable> = PgTableWithColumns<{
  name: T['_']['name'];
  schema: undefined;
  columns: { [K in keyof T['_']['columns']]: PgColumn };
  dialect: 'pg';
}>;

/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1): the database's names would differ from drizzle's. */
const maxIdentifierBytes = 63;

function identifier(tableName: string, name: string, what: string): string {
  if (Buffer.byteLength(name, 'utf8') > maxIdentifierBytes) {
    throw new Error(
      `toPgTable: ${tableName}: ${what} name ${name} is longer than PostgreSQL's ${maxIdentifierBytes}-byte ` +
        'identifiers; give it a shorter name',
    );
  }
  return name;
}

/** The PostgreSQL column for a canonical (SQLite) column, before nullability, key and default. */
function pgColumnType(tableName: string, column: SQLiteColumn) {
  const where = `${tableName}.${column.name}`;
  switch (column.columnType) {
    case 'SQLiteText': {
      const enumValues = column.enumValues;
      return enumValues && enumValues.length > 0
        ? text(column.name, { enum: enumValues as [string, ...string[]] })
        : text(column.name);
    }
    case 'SQLiteTextJson':
      return text(column.name);
    case 'SQLiteBoolean':
      return boolean(column.name);
    case 'SQLiteInteger':
      return bigint(column.name, { mode: 'number' });
    case 'SQLiteReal':
      return doublePrecision(column.name);
    default:
      throw new Error(
        `toPgTable: column ${where} has type ${column.columnType} (${column.getSQLType()}), which has no PostgreSQL mapping; ` +
          'add one to src/store/postgres/pg-schema.ts',
      );
  }
}

/** The default of a canonical column, as the derived column's default. */
function pgDefault(column: SQLiteColumn): unknown {
  const value: unknown = column.default;
  // A json-mode column's default is a JS value; the PostgreSQL column holds its JSON text.
  if (column.columnType === 'SQLiteTextJson' && value !== undefined && typeof value !== 'string') {
    return JSON.stringify(value);
  }
  return value;
}

function pgColumn(tableName: string, column: SQLiteColumn, singleColumnKey: boolean): PgColumnBuilderBase {
  const where = `${tableName}.${identifier(tableName, column.name, 'column')}`;
  if (column.generated) {
    throw new Error(`toPgTable: generated column ${where} is not supported`);
  }
  // The builders' chaining methods return differently-branded types; one loosely-typed builder is enough here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let builder: any = pgColumnType(tableName, column);
  if (column.primary) {
    if (!singleColumnKey) throw new Error(`toPgTable: ${where} is a column primary key beside a composite one`);
    // An autoincrement key becomes a plain bigint key: the store assigns its values (no sequence, no identity).
    builder = builder.primaryKey();
  }
  if (column.notNull) builder = builder.notNull();
  if (column.hasDefault && column.default !== undefined) builder = builder.default(pgDefault(column));
  if (column.defaultFn) builder = builder.$defaultFn(column.defaultFn);
  if (column.onUpdateFn) builder = builder.$onUpdateFn(column.onUpdateFn);
  if (column.isUnique) {
    const name = column.uniqueName ?? `${tableName}_${column.name}_unique`;
    builder = builder.unique(identifier(tableName, name, 'unique constraint'));
  }
  return builder as PgColumnBuilderBase;
}

/** An index only the PostgreSQL table has: its name and its columns (the canonical table's property names). */
export interface PgOnlyIndex<T extends SQLiteTable> {
  readonly name: string;
  readonly columns: readonly (keyof T['_']['columns'] & string)[];
}

/** The PostgreSQL table of a canonical one, with `pgOnlyIndexes` (an index only this store's queries need) besides its own. */
export function toPgTable<T extends SQLiteTable>(table: T, pgOnlyIndexes: readonly PgOnlyIndex<T>[] = []): DerivedPgTable<T> {
  const config = getTableConfig(table);
  const tableName = identifier(config.name, config.name, 'table');
  if (config.foreignKeys.length > 0) throw new Error(`toPgTable: ${tableName} has foreign keys, which are not supported`);
  if (config.checks.length > 0) throw new Error(`toPgTable: ${tableName} has check constraints, which are not supported`);

  const keyOf = new Map<string, string>();
  for (const [key, column] of Object.entries(getTableColumns(table))) keyOf.set(column.name, key);
  const key = (column: unknown, what: string): string => {
    if (!is(column, SQLiteColumn)) throw new Error(`toPgTable: ${tableName}: ${what} on an expression is not supported`);
    const found = keyOf.get(column.name);
    if (found === undefined) throw new Error(`toPgTable: ${tableName}: ${what} names unknown column ${column.name}`);
    return found;
  };

  const singleColumnKeys = config.columns.filter((c) => c.primary).length;
  if (singleColumnKeys > 1) throw new Error(`toPgTable: ${tableName} marks several columns as primary key`);
  if (singleColumnKeys === 1 && config.primaryKeys.length > 0) {
    throw new Error(`toPgTable: ${tableName} has both a column primary key and a composite one`);
  }

  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const column of config.columns) {
    columns[key(column, 'column')] = pgColumn(tableName, column, singleColumnKeys === 1);
  }

  // Checked here, not in pgTable's callback, which drizzle runs only later: what cannot be translated fails now.
  const primaryKeys = config.primaryKeys.map((pk) => ({
    // drizzle's default name for an unnamed key often exceeds 63 bytes: PostgreSQL's own, as a single-column key's.
    name: identifier(tableName, pk.name ?? `${tableName}_pkey`, 'primary key'),
    keys: pk.columns.map((c) => key(c, 'primary key')),
  }));
  const indexes = config.indexes.map(({ config: ix }) => {
    if (ix.where !== undefined) throw new Error(`toPgTable: ${tableName}: partial index ${ix.name} is not supported`);
    return {
      name: identifier(tableName, ix.name, 'index'),
      unique: ix.unique,
      keys: ix.columns.map((c) => key(c, `index ${ix.name}`)),
    };
  });
  const propertyNames = new Set(keyOf.values());
  for (const ix of pgOnlyIndexes) {
    const unknown = ix.columns.find((k) => !propertyNames.has(k));
    if (unknown !== undefined) throw new Error(`toPgTable: ${tableName}: index ${ix.name} names unknown column ${unknown}`);
    indexes.push({ name: identifier(tableName, ix.name, 'index'), unique: false, keys: [...ix.columns] });
  }
  const uniqueConstraints = config.uniqueConstraints.map((uc) => {
    const keys = uc.columns.map((c) => key(c, 'unique constraint'));
    // Unnamed, sqlite-core and pg-core both name it `${table}_${columns}_unique`.
    const name = uc.getName() ?? `${tableName}_${uc.columns.map((c) => c.name).join('_')}_unique`;
    return { name: identifier(tableName, name, 'unique constraint'), keys };
  });

  const derived = pgTable(tableName, columns, (t) => {
    const on = (keys: string[]) => keys.map((k) => t[k] as PgColumn) as [PgColumn, ...PgColumn[]];
    return [
      ...primaryKeys.map((pk) => primaryKey({ name: pk.name, columns: on(pk.keys) })),
      ...indexes.map((ix) => (ix.unique ? uniqueIndex(ix.name) : index(ix.name)).on(...on(ix.keys))),
      ...uniqueConstraints.map((uc) => unique(uc.name).on(...on(uc.keys))),
    ];
  });
  return derived as unknown as DerivedPgTable<T>;
}

/** A projection's canonical table, which must be a SQLite-builder table. */
export function canonicalTable(projection: Pick<AnyRowProjection, 'name' | 'table'>): SQLiteTable {
  const table: Table = projection.table;
  if (!is(table, SQLiteTable)) {
    throw new Error(`projection ${projection.name}: its table is not a canonical (sqlite-core) table`);
  }
  return table;
}

export const pgEvents = toPgTable(events);
export const pgServiceSecrets = toPgTable(serviceSecrets);
export const pgProjectionVersions = toPgTable(projectionVersions);
/** PostgreSQL purges expired keys by `created_at`; SQLite purges by rowid, sparing each keyed write this index's page. */
export const idempotencyKeysPgOnlyIndexes: readonly PgOnlyIndex<typeof idempotencyKeys>[] = [{ name: 'idempotency_keys_created_at_idx', columns: ['createdAt'] }];
export const pgIdempotencyKeys = toPgTable(idempotencyKeys, idempotencyKeysPgOnlyIndexes);
export const pgRateLimitBuckets = toPgTable(rateLimitBuckets);
export const pgRateLimitWindows = toPgTable(rateLimitWindows);
export const pgRelayCursors = toPgTable(relayCursors);
export const pgWebhookRetries = toPgTable(webhookRetries);
/** The delivery log's `id` is an identity column on PostgreSQL: its migration adds it (the derived key is a plain bigint). */
export const pgWebhookSecrets = toPgTable(webhookSecrets);
export const pgWebhookAttempts = toPgTable(webhookAttempts);

/** The derived table of every inline projection, by table name. */
const projectionTables = new Map<string, DerivedPgTable>();
for (const projection of inlineProjections) {
  const table = canonicalTable(projection);
  const name = getTableName(table);
  if (projectionTables.has(name)) throw new Error(`two inline projections share the table ${name}`);
  projectionTables.set(name, toPgTable(table));
}

function projectionTable(name: string): DerivedPgTable {
  const table = projectionTables.get(name);
  if (table === undefined) throw new Error(`pg-schema: no inline projection has the table ${name}`);
  return table;
}

// One named export per inline projection table, for drizzle-kit (the test checks the list is complete).
export const pgImportSuppliers = projectionTable('import_suppliers');
export const pgOperationsTeams = projectionTable('operations_teams');
export const pgApiKeys = projectionTable('api_keys');
export const pgAccountImportProcesses = projectionTable('account_import_processes');
export const pgAccountImportStatuses = projectionTable('account_import_statuses');
export const pgProducts = projectionTable('products');
export const pgServiceConfig = projectionTable('service_config');
export const pgSupplyPointPopulateBatches = projectionTable('supply_point_populate_batches');
export const pgSupplyPointPopulateRequests = projectionTable('supply_point_populate_requests');
export const pgSupplyPoints = projectionTable('supply_points');
export const pgBusinesses = projectionTable('businesses');
export const pgBusinessContracts = projectionTable('business_contracts');
export const pgBusinessPaymentInstructions = projectionTable('business_payment_instructions');
export const pgPaymentInstructions = projectionTable('payment_instructions');
export const pgCustomerEmails = projectionTable('customer_emails');
export const pgAccountNotes = projectionTable('account_notes');
export const pgAccountLedgerTransactions = projectionTable('account_ledger_transactions');
export const pgAccountLedgers = projectionTable('account_ledgers');
export const pgAccountImportProgress = projectionTable('account_import_progress');
export const pgImportProgressCounts = projectionTable('import_progress_counts');
export const pgImportFailureSummary = projectionTable('import_failure_summary');
export const pgImportThroughput = projectionTable('import_throughput');
export const pgImportActivity = projectionTable('import_activity');
export const pgAccountHistoricalStatements = projectionTable('account_historical_statements');
export const pgWebhookEndpoints = projectionTable('webhook_endpoints');

/** Every derived table by its SQL name: the store's tables and every inline projection's. */
export const pgTablesByName: Record<string, PgTable> = {
  ...Object.fromEntries(
    [pgEvents, pgServiceSecrets, pgProjectionVersions, pgIdempotencyKeys, pgRateLimitBuckets, pgRateLimitWindows, pgRelayCursors, pgWebhookRetries, pgWebhookSecrets, pgWebhookAttempts].map((t) => [getTableName(t), t]),
  ),
  ...Object.fromEntries(projectionTables),
};
