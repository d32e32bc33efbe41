import { importSupplierStreamId } from '../../../events/import-supplier.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { importSupplierDecider, type ImportSupplierCommand } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { Ledger } from '../../../src/ledger.js';
import type { AnswerRebuilder, StoredResponse } from '../../../src/store/idempotency.js';
import type { TestClock } from '../../support/ledger.js';

/**
 * What the store contract suite needs from a store: a fresh, empty, migrated
 * ledger with a clock the test moves, and a way to run one SQL statement on
 * its database from outside the store (to tamper with a table, to simulate a
 * crash), the way an operator with a database console would.
 */
export interface ContractLedger {
  /** The ledger of the current process (a new one after `restart`). */
  readonly ledger: Ledger;
  readonly clock: TestClock;
  /** Runs one statement on a connection of its own; returns the rows it read (none for a write). */
  execute(sql: string): Promise<Record<string, unknown>[]>;
  /** The service process stops (its ledger closed, nothing more completed) and a new one opens the same database. */
  restart(): Promise<void>;
  /** A second service process on the same database, running beside this one (closed by `close`). */
  another(): Promise<Ledger>;
  close(): Promise<void>;
}

export type LedgerFactory = () => Promise<ContractLedger>;

/**
 * The contract's ledger over one database of a store: `openOne` opens a service process's ledger on it
 * (the current one, a restart's, `another`'s); `dispose` removes the database once every ledger is closed.
 */
export async function contractLedger(
  clock: TestClock,
  openOne: () => Promise<Ledger>,
  execute: ContractLedger['execute'],
  dispose: () => void | Promise<void>,
): Promise<ContractLedger> {
  let ledger = await openOne();
  const others: Ledger[] = [];
  return {
    get ledger() {
      return ledger;
    },
    clock,
    execute,
    restart: async () => {
      await ledger.close();
      clock.advanceSeconds(1); // a restart takes a moment
      ledger = await openOne();
    },
    another: async () => {
      const other = await openOne();
      others.push(other);
      return other;
    },
    close: async () => {
      for (const other of others) await other.close();
      await ledger.close();
      await dispose();
    },
  };
}

export const metadata = { actor: 'operator:test', requestId: 'req-1', correlationId: 'req-1', causationId: 'cmd-1' };

export const created = (code: string): LedgerEvent => ({
  type: 'ImportSupplierCreated',
  version: 1,
  data: { code, status: 'Ongoing', sendEmails: false, documentRoot: null, createdAt: '2026-01-01T00:00:00.000Z' },
});

export const statusChanged = (code: string, from: 'Ongoing' | 'Paused', to: 'Ongoing' | 'Paused'): LedgerEvent => ({
  type: 'ImportSupplierStatusChanged',
  version: 1,
  data: { code, from, to, changedAt: '2026-01-02T00:00:00.000Z' },
});

export const createSupplier = (code: string): ImportSupplierCommand => ({
  type: 'CreateImportSupplier',
  code,
  status: 'Ongoing',
  sendEmails: false,
  documentRoot: null,
  now: '2026-11-21T10:00:00.000Z',
});

/** A handleMany command creating a supplier, and one pausing it. */
export const create = (code: string) => ({ streamId: importSupplierStreamId(code), decider: importSupplierDecider, command: createSupplier(code) });
export const pause = (code: string) => ({
  streamId: importSupplierStreamId(code),
  decider: importSupplierDecider,
  command: { type: 'ChangeImportSupplierStatus' as const, code, to: 'Paused' as const, now: '2026-11-21T10:00:00.000Z' },
});

/** Attaches the handlers at once, so a command rejected before the test looks at it is not "unhandled". */
export function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then(
    (value) => ({ status: 'fulfilled', value }) as const,
    (reason: unknown) => ({ status: 'rejected', reason }) as const,
  );
}

/** Every row of the projection tables, each table's rows sorted: what "identical tables" is checked on. */
export async function dumpTables(t: ContractLedger, tables: readonly string[]): Promise<Record<string, string[]>> {
  const dump: Record<string, string[]> = {};
  for (const table of tables) dump[table] = (await t.execute(`SELECT * FROM ${table}`)).map((row) => JSON.stringify(row)).sort();
  return dump;
}

/**
 * The contract's answer rebuilder (the stores' `rebuildAnswer`): a keyed request whose body is an answer
 * (`{ status, body, contentType }`) gets it back, each `#` in its body replaced by the number of events
 * recorded with its key so far; any other body has none.
 */
export const templateAnswer: AnswerRebuilder = (_path, body, events) => {
  const template = body as Partial<StoredResponse> | undefined;
  if (typeof template?.status !== 'number' || typeof template.body !== 'string') return null;
  return { status: template.status, body: template.body.replaceAll('#', String(events.length)), contentType: template.contentType ?? null };
};
