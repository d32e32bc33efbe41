import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes, type ErrorCode } from '../../src/domain/error-codes.js';
import { DomainError } from '../../src/domain/errors.js';
import { statusOf } from '../../src/answers/errors.js';

/**
 * The code-to-status map of src/answers/errors.ts against docs/errors.md, the
 * table the API documents: every code has its documented status, and a code
 * that is not in the list does not compile (habit 5: no silent 400).
 */

const errorsDoc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
/** The text of one `## ` section of docs/errors.md, up to the next one. */
function section(title: string): string {
  const start = errorsDoc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "## ${title}" section`);
  const end = errorsDoc.indexOf('\n## ', start + 1);
  return errorsDoc.slice(start, end < 0 ? undefined : end);
}
const codeTable = section('Every code');
const cliSection = section('Codes the command line prints');

/** `| 400 | \`code\`, \`code\` | when |` rows: the backticked lowercase codes of the code column, with their status. */
function documentedStatuses(): Map<string, number> {
  const statuses = new Map<string, number>();
  for (const row of codeTable.matchAll(/^\| (\d{3}) \| ([^|]+) \|/gm)) {
    for (const code of row[2]!.matchAll(/`([a-z_]+)`/g)) statuses.set(code[1]!, Number(row[1]));
  }
  return statuses;
}

/** The paragraph under the table: "Codes the CLI prints (exit 1): `...`, ...". */
function cliCodes(): string[] {
  const paragraph = cliSection.slice(cliSection.indexOf('Codes the CLI prints'));
  return [...paragraph.slice(0, paragraph.indexOf('\n\n')).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

const isErrorCode = (code: string): code is ErrorCode => (errorCodes as readonly string[]).includes(code);

/** Answered over HTTP but not in the table (docs/errors.md says so): a method a path does not take, and our own failure. */
const UNDOCUMENTED_STATUSES: Readonly<Record<string, number>> = { method_not_allowed: 405, internal_error: 500 };

/** Documented in the table, but as items of `account_failed_validation`'s `errors`, never as a top-level code. */
const ITEM_CODES = ['product_code_does_not_exist', 'product_market_mismatch', 'business_contract_not_found'];

describe('error codes and their HTTP statuses', () => {
  const documented = documentedStatuses();

  it('reads the table of docs/errors.md', () => {
    expect(documented.get('not_authenticated')).toBe(401);
    expect(documented.size).toBeGreaterThan(40);
  });

  it('answers every documented top-level code with its documented status', () => {
    const topLevel = [...documented].filter(([code]) => !ITEM_CODES.includes(code));
    expect(topLevel.filter(([code]) => !isErrorCode(code)).map(([code]) => code)).toEqual([]);
    expect(Object.fromEntries(topLevel.map(([code]) => [code, statusOf(code as ErrorCode)]))).toEqual(Object.fromEntries(topLevel));
  });

  it('keeps item codes out of the top-level list', () => {
    expect(ITEM_CODES.filter(isErrorCode)).toEqual([]);
  });

  it('lists every code the CLI prints', () => {
    expect(cliCodes().length).toBeGreaterThan(5);
    expect(cliCodes().filter((code) => !isErrorCode(code))).toEqual([]);
  });

  it.each(errorCodes.map((code) => [code]))('%s: its documented status; 400 for an undocumented (CLI or worker) rule', (code) => {
    expect(statusOf(code)).toBe(documented.get(code) ?? UNDOCUMENTED_STATUSES[code] ?? 400);
  });

  it('answers account_not_found with 400 on payment-instruction/create/ only (the platform documents no 404 there)', () => {
    expect(statusOf('account_not_found', '/v1/data-import/payment-instruction/create/')).toBe(400);
    expect(statusOf('account_not_found', '/v1/data-import/notes/create/')).toBe(404);
    expect(statusOf('account_not_found')).toBe(404);
  });

  it('lists each code once', () => {
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
  });

  it('does not compile a misspelt code', () => {
    // @ts-expect-error 'acount_not_found' is not an ErrorCode: a typo fails to compile instead of becoming a silent 400.
    const misspelt = new DomainError('acount_not_found', 'No such account.');
    expect(isErrorCode(misspelt.code)).toBe(false);
    // @ts-expect-error statusOf takes an ErrorCode only; nothing maps an unknown string to a default status.
    expect(statusOf('acount_not_found')).toBeUndefined();
  });
});
