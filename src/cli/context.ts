import { userInfo } from 'node:os';
import type { Actor } from '../application/context.js';
import { loadConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { ledgerLocation, openLedger, type Ledger } from '../ledger.js';

/** Every CLI change is recorded with actor `operator:<os user>`. */
export function operatorActor(): Actor {
  let user = process.env['USER'] ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // Some containers have no passwd entry for the uid: fall back to $USER.
  }
  return { actor: `operator:${user}`, requestId: null };
}

/**
 * Opens the ledger the configuration names for one command and closes it afterwards. With `supplier`, a code
 * that names no import supplier (a typo) is refused first: the command would otherwise report its accounts
 * as missing.
 */
export async function withLedger<T>(work: (ledger: Ledger) => Promise<T>, supplier?: string): Promise<T> {
  const ledger = await openLedger(ledgerLocation(loadConfig()));
  try {
    if (supplier !== undefined && !(await ledger.read.findImportSupplier(supplier))) {
      throw new DomainError('import_supplier_not_found', `Import supplier ${supplier} does not exist.`, { attr: 'import_supplier' });
    }
    return await work(ledger);
  } finally {
    await ledger.close();
  }
}

/** Plain-text output on stdout (results) — logs and errors go to stderr. */
export function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/**
 * `--json` of a listing command: one JSON document, an array of objects with the API's snake_case field
 * names (null where a value is absent), so a script pipes it to `jq` whole. NDJSON is kept for outputs
 * with no bound (`account history --json`, `events tail`), whose help says so.
 */
export const JSON_OPTION_HELP = 'print one JSON document (an array of objects) instead of a table';

export function printJson(rows: readonly object[]): void {
  out(JSON.stringify(rows, null, 2));
}

export function info(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function table(rows: readonly Record<string, string>[]): string {
  if (rows.length === 0) return '';
  const headers = Object.keys(rows[0] ?? {});
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => (r[h] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), ...rows.map((r) => line(headers.map((h) => r[h] ?? '')))].join('\n');
}

/** Bad usage found after parsing (e.g. an unknown projection name): printed, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
