import { userInfo } from 'node:os';
import { InvalidArgumentError } from 'commander';
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

/** Opens the configured ledger for one command, then closes it; a `supplier` that does not exist (a typo) is refused first. */
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
 * `--json` of a listing command: one JSON array of objects with the API's snake_case names (null where
 * absent), for `jq`. Outputs with no bound (`account history --json`, `events tail`) are NDJSON instead.
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

/** Parses an argument or option that must be one of `values` (once `normalise`d). */
export const oneOf =
  <T extends string>(values: readonly T[], normalise = (value: string) => value) =>
  (value: string): T => {
    const normalised = normalise(value);
    if (!(values as readonly string[]).includes(normalised)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return normalised as T;
  };
