import { randomIds, type Clock, type IdGenerator } from './application/context.js';
import type { LedgerConfig } from './config.js';
import type { Ledger } from './store/ledger.js';
import { openSqliteLedger } from './store/sqlite/open-sqlite-ledger.js';

export type { Ledger } from './store/ledger.js';

/** Where the ledger lives: what the configuration says (LEDGER_DATABASE). */
export interface LedgerLocation {
  /** The SQLite file (created and migrated if needed). */
  readonly sqliteFile: string;
}

/** The location the configuration names. */
export function ledgerLocation(config: Pick<LedgerConfig, 'LEDGER_DATABASE'>): LedgerLocation {
  return { sqliteFile: config.LEDGER_DATABASE };
}

export interface OpenLedgerOptions {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
}

/**
 * The composition root of the storage: the one place that knows which
 * adapter runs. The server, the CLI and the tests open the ledger here and
 * see only the ports. Asynchronous: a store may have to connect and migrate.
 */
export async function openLedger(location: LedgerLocation, options: OpenLedgerOptions = {}): Promise<Ledger> {
  return openSqliteLedger(location.sqliteFile, { clock: options.clock ?? (() => new Date()), ids: options.ids ?? randomIds });
}
