import { relayCursors, webhookRetries } from '../../../src/store/relay-schema.js';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTableColumns, getTableName, is, sql } from 'drizzle-orm';
import {
  getTableConfig as getPgTableConfig,
  PgBigInt53,
  PgBoolean,
  PgDoublePrecision,
  PgTable,
  PgText,
  type PgColumn,
} from 'drizzle-orm/pg-core';
import {
  blob,
  getTableConfig as getSqliteTableConfig,
  index,
  integer,
  numeric,
  primaryKey,
  real,
  sqliteTable,
  text,
  unique,
  uniqueIndex,
  type SQLiteColumn,
  type SQLiteTable,
} from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { idempotencyKeys } from '../../../src/store/idempotency-schema.js';
import * as pgSchema from '../../../src/store/postgres/pg-schema.js';
import { canonicalTable, idempotencyKeysPgOnlyIndexes, pgTablesByName, toPgTable } from '../../../src/store/postgres/pg-schema.js';
import { events, projectionVersions, rateLimitBuckets, rateLimitWindows, serviceSecrets, webhookAttempts, webhookSecrets } from '../../../src/store/schema.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const canonicalTables: SQLiteTable[] = [
  events,
  serviceSecrets,
  projectionVersions,
  idempotencyKeys,
  rateLimitBuckets,
  rateLimitWindows,
  relayCursors,
  webhookRetries,
  webhookSecrets,
  webhookAttempts,
  ...inlineProjections.map((projection) => canonicalTable(projection)),
];

/** The primary key columns: a column-level key or the composite one. */
type KeyedConfig = { columns: { name: string; primary: boolean }[]; primaryKeys: { columns: { name: string }[] }[] };

function keyColumns(config: KeyedConfig) {
  const single = config.columns.filter((c) => c.primary).map((c) => c.name);
  return [single, ...config.primaryKeys.map((pk) => pk.columns.map((c) => c.name))].filter((k) => k.length > 0);
}

type IndexedConfig = { indexes: { config: { name?: string | undefined; unique: boolean; columns: unknown[] } }[] };

function indexes(config: IndexedConfig) {
  return config.indexes.map(({ config: ix }) => ({
    name: ix.name,
    unique: ix.unique,
    columns: ix.columns.map((c) => (c as { name: string }).name),
  }));
}

function expectMapped(canonical: SQLiteColumn, derived: PgColumn) {
  const where = `${canonical.table ? getTableName(canonical.table) : ''}.${canonical.name}`;
  switch (canonical.columnType) {
    case 'SQLiteText':
      expect(is(derived, PgText), where).toBe(true);
      expect(derived.enumValues, where).toEqual(canonical.enumValues);
      break;
    case 'SQLiteTextJson':
      // JSON is stored as text on both stores, byte for byte.
      expect(is(derived, PgText), where).toBe(true);
      expect(derived.getSQLType(), where).toBe('text');
      break;
    case 'SQLiteBoolean':
      expect(is(derived, PgBoolean), where).toBe(true);
      break;
    case 'SQLiteInteger':
      expect(is(derived, PgBigInt53), where).toBe(true);
      expect(derived.getSQLType(), where).toBe('bigint');
      break;
    case 'SQLiteReal':
      expect(is(derived, PgDoublePrecision), where).toBe(true);
      break;
    default:
      throw new Error(`${where}: unexpected canonical column type ${canonical.columnType}`);
  }
}

describe('the PostgreSQL schema derived from the canonical tables', () => {
  it('derives one table per canonical table, and nothing else', () => {
    expect(Object.keys(pgTablesByName).sort()).toEqual(canonicalTables.map((t) => getTableName(t)).sort());
    expect(new Set(canonicalTables.map((t) => getTableName(t))).size).toBe(canonicalTables.length);
  });

  for (const canonical of canonicalTables) {
    const name = getTableName(canonical);
    it(`${name}: same name, columns, nullability, defaults, keys and indexes`, () => {
      const derived = pgTablesByName[name];
      expect(derived && is(derived, PgTable)).toBe(true);
      const source = getSqliteTableConfig(canonical);
      const target = getPgTableConfig(derived!);

      expect(target.name).toBe(source.name);
      expect(target.schema).toBeUndefined();
      expect(target.columns.map((c) => c.name)).toEqual(source.columns.map((c) => c.name));
      expect(target.columns.map((c) => c.notNull)).toEqual(source.columns.map((c) => c.notNull));
      // A SQLite integer primary key has an implicit default (the rowid); the derived bigint key has none.
      expect(target.columns.map((c) => [c.hasDefault, c.default])).toEqual(
        source.columns.map((c) => [
          c.hasDefault && !(c.primary && c.columnType === 'SQLiteInteger'),
          c.columnType === 'SQLiteTextJson' && c.default !== undefined ? JSON.stringify(c.default) : c.default,
        ]),
      );
      expect(target.columns.map((c) => c.isUnique)).toEqual(source.columns.map((c) => c.isUnique));
      source.columns.forEach((column, i) => expectMapped(column, target.columns[i]!));

      expect(keyColumns(target)).toEqual(keyColumns(source));
      expect(keyColumns(target)).toHaveLength(1);
      for (const pk of target.primaryKeys) expect(pk.getName()).toBe(`${name}_pkey`);
      // Besides the canonical table's, the indexes only PostgreSQL's queries need (its purge of expired keys).
      const pgOnly = name === getTableName(idempotencyKeys) ? idempotencyKeysPgOnlyIndexes : [];
      const columnName = (key: string) => (getTableColumns(canonical)[key] as { name: string }).name;
      expect(indexes(target)).toEqual([...indexes(source), ...pgOnly.map((ix) => ({ name: ix.name, unique: false, columns: ix.columns.map(columnName) }))]);
      expect(target.uniqueConstraints).toHaveLength(source.uniqueConstraints.length);
      expect(target.foreignKeys).toHaveLength(0);
      expect(target.checks).toHaveLength(0);

      // The derived table keeps the canonical property names, so rows read the same on both stores.
      expect(Object.keys(derived!)).toEqual(expect.arrayContaining(Object.keys(canonical)));
    });
  }

  it('events.global_position is a plain bigint primary key: no sequence, no identity', () => {
    const column = getPgTableConfig(pgSchema.pgEvents).columns.find((c) => c.name === 'global_position')!;
    expect(is(column, PgBigInt53)).toBe(true);
    expect(column.primary).toBe(true);
    expect(column.getSQLType()).toBe('bigint');
    expect(column.hasDefault).toBe(false);
    expect(column.generatedIdentity).toBeUndefined();
  });

  it('exports each derived table by name, so drizzle-kit sees it: one named export per inline projection', () => {
    const exported = Object.entries(pgSchema).filter(([, value]) => is(value, PgTable)) as [string, PgTable][];
    const exportedTables = exported.map(([, table]) => table);
    // Every derived table is a named export, and every exported table is in the map.
    expect(new Set(exportedTables)).toEqual(new Set(Object.values(pgTablesByName)));
    expect(exportedTables).toHaveLength(Object.keys(pgTablesByName).length);
    for (const projection of inlineProjections) {
      const tableName = getTableName(projection.table);
      const named = exported.filter(([, table]) => getTableName(table) === tableName);
      expect(named.map(([exportName]) => exportName), `projection ${projection.name}`).toHaveLength(1);
      expect(named[0]![1]).toBe(pgTablesByName[tableName]);
    }
    expect(pgSchema.pgEvents).toBe(pgTablesByName.events);
    expect(pgSchema.pgServiceSecrets).toBe(pgTablesByName.service_secrets);
    expect(pgSchema.pgProjectionVersions).toBe(pgTablesByName.projection_versions);
    expect(pgSchema.pgIdempotencyKeys).toBe(pgTablesByName.idempotency_keys);
  });

  it('refuses a projection whose table is not a canonical sqlite-core table', () => {
    expect(() => canonicalTable({ name: 'odd', table: pgSchema.pgEvents })).toThrow(
      /not a canonical \(sqlite-core\) table/,
    );
  });
});

describe('toPgTable', () => {
  it('adds the PostgreSQL-only indexes it is given, and throws on one naming a column the table lacks', () => {
    const table = sqliteTable('with_extra', { a: text('a'), b: text('b') });
    expect(indexes(getPgTableConfig(toPgTable(table, [{ name: 'with_extra_b_idx', columns: ['b'] }])))).toEqual([{ name: 'with_extra_b_idx', unique: false, columns: ['b'] }]);
    expect(() => toPgTable(table, [{ name: 'with_extra_c_idx', columns: ['c' as 'a'] }])).toThrow(/with_extra: index with_extra_c_idx names unknown column c/);
  });

  it('throws on a column type it has no mapping for', () => {
    expect(() => toPgTable(sqliteTable('with_blob', { payload: blob('payload') }))).toThrow(
      /with_blob\.payload has type SQLiteBlob\w* .*no PostgreSQL mapping/,
    );
    expect(() => toPgTable(sqliteTable('with_numeric', { amount: numeric('amount') }))).toThrow(
      /no PostgreSQL mapping/,
    );
    expect(() => toPgTable(sqliteTable('with_timestamp', { at: integer('at', { mode: 'timestamp' }) }))).toThrow(
      /SQLiteTimestamp.*no PostgreSQL mapping/,
    );
  });

  it('maps real, defaults and unique columns, and keeps explicit key names', () => {
    const canonical = sqliteTable(
      'sample',
      {
        a: text('a').notNull(),
        b: integer('b').notNull(),
        ratio: real('ratio').default(0.5),
        flag: integer('flag', { mode: 'boolean' }).notNull().default(false),
        tags: text('tags', { mode: 'json' }).$type<string[]>().notNull().default(['x']),
        code: text('code').unique(),
        created: text('created').default(sql`'now'`),
      },
      (t) => [
        primaryKey({ name: 'sample_key', columns: [t.a, t.b] }),
        index('sample_ratio_idx').on(t.ratio, t.a),
        unique().on(t.b, t.code),
      ],
    );
    const config = getPgTableConfig(toPgTable(canonical));
    const column = (name: string) => config.columns.find((c) => c.name === name)!;
    expect(is(column('ratio'), PgDoublePrecision)).toBe(true);
    expect(column('ratio').default).toBe(0.5);
    expect(column('flag').default).toBe(false);
    expect(column('tags').default).toBe('["x"]');
    expect(column('code').isUnique).toBe(true);
    expect(column('code').uniqueName).toBe('sample_code_unique');
    expect(column('created').hasDefault).toBe(true);
    expect(config.primaryKeys.map((pk) => pk.getName())).toEqual(['sample_key']);
    expect(indexes(config)).toEqual([{ name: 'sample_ratio_idx', unique: false, columns: ['ratio', 'a'] }]);
    expect(config.uniqueConstraints.map((uc) => [uc.getName(), uc.columns.map((c) => c.name)])).toEqual([
      ['sample_b_code_unique', ['b', 'code']],
    ]);
  });

  it('throws on names PostgreSQL would truncate, and on partial indexes', () => {
    const long = 'x'.repeat(64);
    expect(() => toPgTable(sqliteTable('t', { a: text('a') }, (t) => [index(long).on(t.a)]))).toThrow(/63-byte/);
    expect(() => toPgTable(sqliteTable('t', { [long]: text(long) }))).toThrow(/63-byte/);
    const partial = sqliteTable('t', { a: text('a') }, (t) => [
      uniqueIndex('t_a_unique').on(t.a).where(sql`a is not null`),
    ]);
    expect(() => toPgTable(partial)).toThrow(/partial index/);
  });
});

describe('drizzle-pg/', () => {
  it('is up to date: drizzle-kit generate with drizzle.pg.config.ts finds no schema changes', () => {
    // Generate into a copy of drizzle-pg/ (drizzle-kit needs a relative `out`), so a stale folder is reported,
    // not silently fixed by the test.
    const dir = mkdtempSync(join(tmpdir(), 'pg-schema-check-'));
    try {
      const out = join(dir, 'migrations');
      cpSync(join(repoRoot, 'drizzle-pg'), out, { recursive: true });
      const before = readdirSync(out, { recursive: true }).sort();
      const config = join(dir, 'drizzle.config.ts');
      writeFileSync(
        config,
        `import base from ${JSON.stringify(join(repoRoot, 'drizzle.pg.config.ts'))};\n` +
          `export default { ...base, out: ${JSON.stringify(relative(repoRoot, out))} };\n`,
      );
      const drizzleKit = join(repoRoot, 'node_modules/drizzle-kit/bin.cjs');
      const run = spawnSync(process.execPath, [drizzleKit, 'generate', '--config', config], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.status, output).toBe(0);
      expect(output).toContain(`${Object.keys(pgTablesByName).length} tables`);
      expect(output).toContain('No schema changes');
      expect(readdirSync(out, { recursive: true }).sort()).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
