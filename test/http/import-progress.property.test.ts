import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeTransferStatus, markAccountToSkip } from '../../src/application/account-import-processes.js';
import { DomainError } from '../../src/domain/errors.js';
import type { StoredLedgerEvent } from '../../src/store/event-store.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/**
 * The progress invariant: whatever the sequence of stages, processes (dry runs
 * too), refusals, skips, transfer changes and transaction imports (accepted or
 * refused) over a few accounts, the
 * progress counters, the failures list and the summary the endpoints answer
 * (kept inline by tallies) equal a recount of the log by an independent fold
 * written here.
 */

const BASE = '/v1/data-import';
const ACCOUNTS = ['P-1', 'P-2', 'P-3'] as const;

type Step =
  | { kind: 'stage'; ext: string; payload: 'valid' | 'landline' | 'both' }
  | { kind: 'process'; ext: string; team: string; dryRun: boolean }
  | { kind: 'skip'; ext: string }
  | { kind: 'transfer'; ext: string; to: 'IN_PROGRESS' | 'COMPLETED' | 'REJECTED' }
  | { kind: 'transactions'; ext: string; valid: boolean };

const ext = fc.constantFrom(...ACCOUNTS);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('stage' as const), ext, payload: fc.constantFrom('valid' as const, 'landline' as const, 'both' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('process' as const), ext, team: fc.constantFrom(TEAM, 'Nobody'), dryRun: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('skip' as const), ext }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transfer' as const), ext, to: fc.constantFrom('IN_PROGRESS' as const, 'COMPLETED' as const, 'REJECTED' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transactions' as const), ext, valid: fc.boolean() }) },
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;
function payload(ext: string, kind: 'valid' | 'landline' | 'both'): Payload {
  const p: Payload = { ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext, import_supplier: SUPPLIER };
  if (kind !== 'valid') p.customers[0].landline = '12345';
  if (kind === 'both') p.customers[0].mobile = 'abc';
  return p;
}

async function run(api: TestApi, token: string, s: Step): Promise<void> {
  try {
    switch (s.kind) {
      case 'stage':
        await api.post(`${BASE}/account-import-process/create-or-update/`, payload(s.ext, s.payload), token);
        return;
      case 'process':
        await api.post(`${BASE}/account-import-process/process/`, { external_account_number: s.ext, import_supplier_code: SUPPLIER, operations_team_name: s.team, dry_run: s.dryRun }, token);
        return;
      case 'skip':
        await markAccountToSkip(api.ledger, SUPPLIER, s.ext, operator);
        return;
      case 'transfer':
        await changeTransferStatus(api.ledger, SUPPLIER, s.ext, s.to, operator);
        return;
      case 'transactions': {
        const transactions = s.valid ? loadExample('transactions.json')['transactions'] : [{ type: 'CHARGE' }];
        await api.post(`${BASE}/transactions/create/`, { import_supplier: SUPPLIER, external_account_number: s.ext, transactions }, token);
        return;
      }
    }
  } catch (error) {
    // An operator command its rules refuse (skip an unknown account, a transfer out of order): nothing happened.
    if (!(error instanceof DomainError)) throw error;
  }
}

interface Recount {
  state: 'PENDING' | 'IMPORTED' | 'SKIPPED';
  transfer: string | null;
  failure: { step: string; code: string; errors: { code: string; attr: string | null }[]; position: number } | null;
}

/** A refused import of records onto an account (its audit fact names one of these) is no failure of the account's import. */
const RECORD_IMPORTS: ReadonlySet<string> = new Set(['notes', 'transactions', 'historical_statements', 'payment_instruction']);

/** The fold the projections must agree with, written from the rules of docs/progress-and-dashboard.md, not from their code. */
function recount(log: readonly StoredLedgerEvent[]) {
  const accounts = new Map<string, Recount>();
  const get = (ext: string): Recount => accounts.get(ext) ?? { state: 'PENDING', transfer: null, failure: null };
  for (const { event, globalPosition } of log) {
    if (!('importSupplier' in event.data) || event.data.importSupplier !== SUPPLIER || !('externalAccountNumber' in event.data)) continue;
    const ext = event.data.externalAccountNumber;
    const a = get(ext);
    switch (event.type) {
      case 'AccountStaged':
      case 'AccountRestaged':
        accounts.set(ext, { ...a, failure: null });
        break;
      case 'AccountProcessed':
        accounts.set(ext, { ...a, state: 'IMPORTED', transfer: 'PENDING', failure: null });
        break;
      case 'AccountMarkedToSkip':
        accounts.set(ext, { ...a, state: 'SKIPPED', failure: null });
        break;
      case 'AccountTransferStatusChanged':
        accounts.set(ext, { ...a, transfer: event.data.to });
        break;
      case 'AccountProcessDryRunSucceeded':
        if (accounts.has(ext)) accounts.set(ext, { ...a, failure: null });
        break;
      case 'AccountImportAttemptRefused':
        if (a.state !== 'PENDING' || RECORD_IMPORTS.has(event.data.operation)) break;
        accounts.set(ext, {
          ...a,
          failure: { step: event.data.operation === 'stage' ? 'stage' : 'process', code: event.data.code, errors: event.data.errors, position: globalPosition },
        });
        break;
      default:
        break;
    }
  }
  const all = [...accounts.values()];
  const count = (f: (a: Recount) => boolean) => all.filter(f).length;
  const imported = all.filter((a) => a.state === 'IMPORTED');
  const summary = new Map<string, { code: string; attr: string | null; accounts: number }>();
  for (const a of all) {
    if (!a.failure) continue;
    const items = a.failure.errors.length > 0 ? a.failure.errors : [{ code: a.failure.code, attr: null }];
    for (const key of new Set(items.map((i) => JSON.stringify([i.code, i.attr])))) {
      const [code, attr] = JSON.parse(key) as [string, string | null];
      summary.set(key, { code, attr, accounts: (summary.get(key)?.accounts ?? 0) + 1 });
    }
  }
  return {
    accounts: {
      pending: count((a) => a.state === 'PENDING'),
      imported: imported.length,
      skipped: count((a) => a.state === 'SKIPPED'),
      failing: count((a) => a.failure !== null),
      total: all.length,
    },
    transfer: Object.fromEntries((['PENDING', 'IN_PROGRESS', 'REJECTED', 'COMPLETED'] as const).map((s) => [s, imported.filter((a) => a.transfer === s).length])),
    failures: [...accounts]
      .filter(([, a]) => a.failure !== null)
      .sort(([, a], [, b]) => b.failure!.position - a.failure!.position)
      .map(([ext, a]) => ({ ext, step: a.failure!.step, code: a.failure!.code, errors: a.failure!.errors })),
    summary: [...summary.values()].sort((a, b) => b.accounts - a.accounts || a.code.localeCompare(b.code) || (a.attr ?? '').localeCompare(b.attr ?? '')),
  };
}

describe('property: the progress counters and failures equal a recount of the log', () => {
  it('holds for arbitrary sequences of attempts over a few accounts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const api = await createTestApi();
        try {
          const token = await accessToken(api);
          for (const s of steps) await run(api, token, s);
          const expected = recount(await api.ledger.store.readAll(0, 100_000));
          const progress = (await (await api.get(`${BASE}/import-progress/${SUPPLIER}/`, token)).json()) as { accounts: unknown; transfer_status: unknown };
          const failures = (await (await api.get(`${BASE}/import-failures/${SUPPLIER}/?limit=1000`, token)).json()) as {
            external_account_number: string;
            step: string;
            code: string;
            errors: unknown;
          }[];
          const summary = await (await api.get(`${BASE}/import-failures/${SUPPLIER}/summary/?limit=1000`, token)).json();
          expect(progress.accounts).toEqual(expected.accounts);
          expect(progress.transfer_status).toEqual(expected.transfer);
          expect(failures.map((f) => ({ ext: f.external_account_number, step: f.step, code: f.code, errors: f.errors }))).toEqual(expected.failures);
          expect(summary).toEqual(expected.summary);
        } finally {
          await api.close();
        }
      }),
      // 30 by default: a skip or dry run after a failure needs a few steps in a row to come up.
      { numRuns: Number(process.env['LEDGER_PROPERTY_RUNS'] ?? 30) },
    );
  }, 300_000);
});
