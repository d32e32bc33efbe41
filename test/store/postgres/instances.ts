import { templateAnswer } from '../contract/harness.js';
import pg from 'pg';
import { expect } from 'vitest';
import { importSupplierStreamId, type ImportSupplierStatus } from '../../../events/import-supplier.js';
import { inlineProjections } from '../../../projections/index.js';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { DomainError } from '../../../src/domain/errors.js';
import { importSupplierDecider, type ImportSupplierCommand } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { HandleResult, StoredLedgerEvent } from '../../../src/store/event-store.js';
import { assembleLedger, type Ledger } from '../../../src/ledger.js';
import { openPostgresLedger, type PostgresLedgerOptions } from '../../../src/store/postgres/open-postgres-ledger.js';
import { LOCK_CLASS, WRITE_LOCK } from '../../../src/store/postgres/pg-database.js';
import { TestClock } from '../../support/ledger.js';
import { createTestDatabase } from '../../support/postgres.js';

/**
 * Several service instances on one test database, as separate processes
 * would be: each `openPostgresLedger` has its own read pool, writer
 * connection, Idempotency-Key holder and rebuild connections. They share one
 * clock (the test moves it). `sql` runs on an outside connection of the test
 * (its application_name is not the ledger's), as an operator's console would.
 */
export interface Instances {
  readonly url: string;
  readonly clock: TestClock;
  readonly a: Ledger;
  readonly b: Ledger;
  /** Opens one more instance on the same database (closed with the others). */
  open(options?: Partial<PostgresLedgerOptions>): Promise<Ledger>;
  /** Closes one instance now (its sessions end, as when a process stops). */
  closeOne(ledger: Ledger): Promise<void>;
  sql<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export async function openInstances(options: Partial<PostgresLedgerOptions> = {}): Promise<Instances> {
  const database = await createTestDatabase();
  const clock = new TestClock();
  const open = new Set<Ledger>();
  const admin = new pg.Client({ connectionString: database.url, application_name: 'ledger-test-console' });
  admin.on('error', () => undefined);
  await admin.connect();
  const openOne = async (extra: Partial<PostgresLedgerOptions> = {}) => {
    const storage = await openPostgresLedger(database.url, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, poolSize: 4, ...options, ...extra });
    const ledger = assembleLedger(storage, { clock: clock.read, ids: randomIds });
    open.add(ledger);
    return ledger;
  };
  const closeOne = async (ledger: Ledger) => {
    if (!open.delete(ledger)) return;
    await ledger.close();
  };
  const a = await openOne();
  const b = await openOne();
  return {
    url: database.url,
    clock,
    a,
    b,
    open: openOne,
    closeOne,
    sql: async <R extends Record<string, unknown>>(text: string, values: unknown[] = []) => (await admin.query(text, values)).rows as R[],
    close: async () => {
      for (const ledger of [...open]) await closeOne(ledger);
      await admin.end().catch(() => undefined);
      await database.drop();
    },
  };
}

/** Attaches the handlers at once, so a rejection the test looks at later is not "unhandled". */
export function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then(
    (value) => ({ status: 'fulfilled', value }) as const,
    (reason: unknown) => ({ status: 'rejected', reason }) as const,
  );
}

/** Lets the writers' batches close: the next commands land in another group-commit batch. */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A small seeded PRNG (mulberry32): the same workload on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const metadata = { actor: 'operator:test', requestId: 'req-1', correlationId: 'req-1', causationId: 'cmd-1' };
const NOW = '2026-11-21T10:00:00.000Z';

export type SupplierCommandKind = 'create' | 'pause' | 'resume';

export function supplierCommand(kind: SupplierCommandKind, code: string): ImportSupplierCommand {
  switch (kind) {
    case 'create':
      return { type: 'CreateImportSupplier', code, status: 'Ongoing', sendEmails: false, documentRoot: null, now: NOW };
    case 'pause':
      return { type: 'ChangeImportSupplierStatus', code, to: 'Paused', now: NOW };
    case 'resume':
      return { type: 'ChangeImportSupplierStatus', code, to: 'Ongoing', now: NOW };
  }
}

export interface SupplierCall {
  readonly instance: string;
  readonly kind: SupplierCommandKind;
  readonly code: string;
  readonly outcome: PromiseSettledResult<HandleResult<StoredLedgerEvent['event'], unknown>>;
}

/** Sends one import-supplier command through `handle` (the decision is taken inside the write lock). */
export function supplierHandle(ledger: Ledger, kind: SupplierCommandKind, code: string) {
  return ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, supplierCommand(kind, code), { metadata });
}

/** The DomainError codes a serial execution of create/pause/resume can give (anything else is a failure). */
export const SERIAL_SUPPLIER_ERRORS = new Set(['import_supplier_already_exists', 'import_supplier_not_found']);

/** Every rejection is a DomainError with one of `codes` (no ConcurrencyError, no driver error); returns the codes seen. */
export function expectOnlyDomainErrors(outcomes: readonly PromiseSettledResult<unknown>[], codes: ReadonlySet<string>): Map<string, number> {
  const seen = new Map<string, number>();
  const unexpected: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') continue;
    const reason = outcome.reason as unknown;
    if (reason instanceof DomainError && codes.has(reason.code)) seen.set(reason.code, (seen.get(reason.code) ?? 0) + 1);
    else unexpected.push(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
  }
  expect(unexpected, 'rejections that serial execution could not give').toEqual([]);
  return seen;
}

export interface LogRow extends Record<string, unknown> {
  global_position: number;
  stream_id: string;
  stream_position: number;
  type: string;
  event_id: string;
  data: string;
}

/** The whole events table, in global order (int8 read as numbers). */
export async function logRows(instances: Instances): Promise<LogRow[]> {
  const rows = await instances.sql<LogRow>(
    'SELECT global_position::int AS global_position, stream_id, stream_position::int AS stream_position, type, event_id, data FROM events ORDER BY global_position',
  );
  return rows;
}

/**
 * The log's shape: global positions gapless 1..N, each stream's positions
 * contiguous 1..n and rising with the global position (commit order).
 * Returns the rows.
 */
export async function expectWellFormedLog(instances: Instances): Promise<LogRow[]> {
  const rows = await logRows(instances);
  const gaps = rows.filter((row, i) => row.global_position !== i + 1).slice(0, 5);
  expect(gaps, 'global positions are 1..N without gaps').toEqual([]);
  const last = new Map<string, number>();
  const broken: string[] = [];
  for (const row of rows) {
    const previous = last.get(row.stream_id) ?? 0;
    if (row.stream_position !== previous + 1) broken.push(`${row.stream_id}: ${previous} then ${row.stream_position} at ${row.global_position}`);
    last.set(row.stream_id, row.stream_position);
  }
  expect(broken.slice(0, 5), 'every stream is contiguous 1..n in global order').toEqual([]);
  return rows;
}

/** Every event a fulfilled call reported is in the log where it said, and the log holds nothing else. */
export function expectLogIsExactlyTheReportedEvents(rows: readonly LogRow[], reported: readonly StoredLedgerEvent[]): void {
  const byPosition = new Map(rows.map((row) => [row.global_position, row]));
  const missing = reported.filter((event) => {
    const row = byPosition.get(event.globalPosition);
    return !row || row.event_id !== event.metadata.eventId || row.stream_id !== event.streamId || row.stream_position !== event.streamPosition;
  });
  expect(
    missing.map((e) => `${e.streamId}@${e.streamPosition} (global ${e.globalPosition})`).slice(0, 5),
    'events reported to a caller are in the log as reported',
  ).toEqual([]);
  const reportedIds = new Set(reported.map((event) => event.metadata.eventId));
  const orphans = rows.filter((row) => !reportedIds.has(row.event_id));
  expect(orphans.map((r) => `${r.stream_id}@${r.stream_position} (global ${r.global_position})`).slice(0, 5), 'events nobody was told about').toEqual([]);
}

/**
 * Each supplier stream is what a serial execution gives: one creation first,
 * then status changes, each from the status the one before left (a decision
 * taken on a stale fold would repeat a change). Returns the final statuses.
 */
export function expectSerialSupplierStreams(rows: readonly LogRow[]): Map<string, ImportSupplierStatus> {
  const status = new Map<string, ImportSupplierStatus>();
  const wrong: string[] = [];
  for (const row of rows) {
    if (!row.stream_id.startsWith('import-supplier:')) continue;
    const data = JSON.parse(row.data) as { code: string; status?: ImportSupplierStatus; from?: ImportSupplierStatus; to?: ImportSupplierStatus };
    const current = status.get(data.code);
    if (row.type === 'ImportSupplierCreated') {
      if (current !== undefined) wrong.push(`${data.code} created twice`);
      status.set(data.code, data.status!);
    } else if (row.type === 'ImportSupplierStatusChanged') {
      if (current === undefined) wrong.push(`${data.code} changed before it was created`);
      else if (data.from !== current || data.to === current) wrong.push(`${data.code}: ${data.from}->${data.to} while ${current}`);
      status.set(data.code, data.to!);
    }
  }
  expect(wrong.slice(0, 5), 'supplier streams as a serial execution writes them').toEqual([]);
  return status;
}

/** `verify` rebuilds every inline projection from the log and finds the live tables identical. */
export async function expectProjectionsVerify(ledger: Ledger): Promise<void> {
  const result = await ledger.projections.verify(inlineProjections);
  expect(result.differences.slice(0, 5)).toEqual([]);
}

/** The backends of the ledger (application_name 'import-ledger', or 'import-ledger/<role>') on this database, and what each runs. */
export async function ledgerBackends(instances: Instances): Promise<{ pid: number; state: string; query: string; holdsWriteLock: boolean }[]> {
  return instances.sql(
    `SELECT a.pid, coalesce(a.state, '') AS state, coalesce(a.query, '') AS query,
            EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
                     AND l.classid = $1::int::oid AND l.objid = $2::int::oid AND l.objsubid = 2) AS "holdsWriteLock"
       FROM pg_stat_activity a
      WHERE a.datname = current_database() AND (a.application_name = 'import-ledger' OR a.application_name LIKE 'import-ledger/%') AND a.pid <> pg_backend_pid()`,
    [WRITE_LOCK_KEY[0], WRITE_LOCK_KEY[1]],
  );
}

export const WRITE_LOCK_KEY = [LOCK_CLASS, WRITE_LOCK] as const;
