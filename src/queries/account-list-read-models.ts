import { and, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { accountHistoricalStatements } from '../../projections/account-historical-statements.js';
import { accountImportProcesses, type ImportProcessState } from '../../projections/account-import-processes.js';
import { accountLedgers } from '../../projections/account-ledgers.js';
import { accountNotes } from '../../projections/account-notes.js';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { ProjectionQueries, SelectedRow, SelectFields } from '../store/projection-queries.js';

/** A place in the lists' order, set once when an account is first staged: a keyset read never shows an account twice. */
export interface ListPosition {
  readonly firstStagedAt: string;
  readonly externalAccountNumber: string;
}

/** The rows of one keyset read: after `after` (excluded) and up to `through` (included); null: from the start, to the end. */
export interface KeysetRange {
  readonly after: ListPosition | null;
  readonly through: ListPosition | null;
}

const t = accountImportProcesses;

const listFields = {
  firstStagedAt: t.firstStagedAt,
  externalAccountNumber: t.externalAccountNumber,
  platformAccountNumber: t.platformAccountNumber,
  accountCreatedAt: t.accountCreatedAt,
} satisfies SelectFields;
/** What a list item (spec 2.7) is made of, and its place in the order. */
export type AccountListRow = SelectedRow<typeof listFields>;

type AccountColumns = { importSupplier: AnySQLiteColumn; externalAccountNumber: AnySQLiteColumn };

/** A record table's rows of the account import process `t` is on (its primary key's prefix). */
const sameAccount = (table: AccountColumns) =>
  sql`${table.importSupplier} = ${t.importSupplier} AND ${table.externalAccountNumber} = ${t.externalAccountNumber}`;

/** A table's rows of one account (its primary key's prefix); the values may be placeholders. */
export const ofAccount = (table: AccountColumns, importSupplier: string | SQLWrapper, externalAccountNumber: string | SQLWrapper): SQL =>
  and(eq(table.importSupplier, importSupplier), eq(table.externalAccountNumber, externalAccountNumber))!;

const reconciliationFields = {
  firstStagedAt: t.firstStagedAt,
  externalAccountNumber: t.externalAccountNumber,
  state: t.state,
  platformAccountNumber: t.platformAccountNumber,
  transferStatus: t.transferStatus,
  accountCreatedAt: t.accountCreatedAt,
  // Counted on each projection's primary key prefix (supplier, account): one index range per account.
  noteCount: sql<number>`(SELECT count(*) FROM ${accountNotes} WHERE ${sameAccount(accountNotes)})`,
  historicalStatementCount: sql<number>`(SELECT count(*) FROM ${accountHistoricalStatements} WHERE ${sameAccount(accountHistoricalStatements)})`,
  transactionCount: sql<number>`coalesce(${accountLedgers.transactionCount}, 0)`,
  balanceCents: sql<number>`coalesce(${accountLedgers.balanceCents}, 0)`,
} satisfies SelectFields;
/** One account of the reconciliation export. */
export type ReconciliationRow = SelectedRow<typeof reconciliationFields>;

const positionFields = { firstStagedAt: t.firstStagedAt, externalAccountNumber: t.externalAccountNumber } satisfies SelectFields;

export interface AccountListReadModels {
  /** At most `limit` accounts of the supplier in `range` and `state` (null: any), in the lists' order: one index range. */
  accountListChunk(importSupplier: string, state: ImportProcessState | null, range: KeysetRange, limit: number): Promise<AccountListRow[]>;
  /** The last account of the page of `limit` accounts after `after` when more follow it, else null (the page runs to the end). */
  accountListPageEnd(importSupplier: string, state: ImportProcessState | null, after: ListPosition | null, limit: number): Promise<ListPosition | null>;
  /** At most `limit` accounts of the supplier in `range`, in the lists' order, with what the reconciliation export shows. */
  reconciliationChunk(importSupplier: string, range: KeysetRange, limit: number): Promise<ReconciliationRow[]>;
  /** How many accounts the supplier has (every state). */
  countAccountImportProcesses(importSupplier: string): Promise<number>;
}

type Shape = { readonly state: boolean; readonly after: boolean; readonly through: boolean };

/** The WHERE of a keyset read: the supplier, the state when given, the range's ends when given (placeholders). */
function keysetWhere(shape: Shape): SQL {
  const position = sql`(${t.firstStagedAt}, ${t.externalAccountNumber})`;
  const conditions: SQL[] = [eq(t.importSupplier, sql.placeholder('supplier'))];
  if (shape.state) conditions.push(eq(t.state, sql.placeholder('state')));
  if (shape.after) conditions.push(sql`${position} > (${sql.placeholder('afterAt')}, ${sql.placeholder('afterExt')})`);
  if (shape.through) conditions.push(sql`${position} <= (${sql.placeholder('throughAt')}, ${sql.placeholder('throughExt')})`);
  return and(...conditions)!;
}

const orderBy = sql`ORDER BY ${t.firstStagedAt}, ${t.externalAccountNumber}`;

/**
 * A keyset read of the supplier's accounts (`rest` is its statement after the fields, given the WHERE):
 * one prepared statement per shape of read (state or not, each end or not), made on first use. `extra`
 * holds the values of `rest`'s own placeholders.
 */
function keysetRead<F extends SelectFields>(q: ProjectionQueries, fields: F, rest: (where: SQL) => SQL) {
  const prepared = new Map<string, (params: Record<string, unknown>) => Promise<SelectedRow<F>[]>>();
  return (importSupplier: string, state: ImportProcessState | null, range: KeysetRange, extra: Record<string, unknown> = {}) => {
    const shape: Shape = { state: state !== null, after: range.after !== null, through: range.through !== null };
    const id = `${shape.state}/${shape.after}/${shape.through}`;
    let statement = prepared.get(id);
    if (!statement) prepared.set(id, (statement = q.prepareSelect(fields, rest(keysetWhere(shape)))));
    return statement({
      supplier: importSupplier,
      ...(state === null ? {} : { state }),
      ...(range.after ? { afterAt: range.after.firstStagedAt, afterExt: range.after.externalAccountNumber } : {}),
      ...(range.through ? { throughAt: range.through.firstStagedAt, throughExt: range.through.externalAccountNumber } : {}),
      ...extra,
    });
  };
}

export function createAccountListReadModels(q: ProjectionQueries): AccountListReadModels {
  const listChunk = keysetRead(q, listFields, (where) => sql`FROM ${t} WHERE ${where} ${orderBy} LIMIT ${sql.placeholder('limit')}`);
  const reconciliation = keysetRead(
    q,
    reconciliationFields,
    (where) => sql`FROM ${t} LEFT JOIN ${accountLedgers} ON ${sameAccount(accountLedgers)} WHERE ${where} ${orderBy} LIMIT ${sql.placeholder('limit')}`,
  );
  // The page's last account and the one after it, if any: a walk along the index, no row read.
  const pageEnd = keysetRead(q, positionFields, (where) => sql`FROM ${t} WHERE ${where} ${orderBy} LIMIT 2 OFFSET ${sql.placeholder('skip')}`);
  const count = q.prepareSelect({ n: sql<number>`count(*)` }, sql`FROM ${t} WHERE ${eq(t.importSupplier, sql.placeholder('supplier'))}`);

  return {
    accountListChunk: (importSupplier, state, range, limit) => listChunk(importSupplier, state, range, { limit }),
    async accountListPageEnd(importSupplier, state, after, limit) {
      const rows = await pageEnd(importSupplier, state, { after, through: null }, { skip: limit - 1 });
      return rows.length === 2 ? rows[0]! : null;
    },
    reconciliationChunk: (importSupplier, range, limit) => reconciliation(importSupplier, null, range, { limit }),
    countAccountImportProcesses: async (importSupplier) => Number((await count({ supplier: importSupplier }))[0]?.n ?? 0),
  };
}
