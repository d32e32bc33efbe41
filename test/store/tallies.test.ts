import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../events/registry.js';
import { accountImportProgressProjection, type AccountImportProgressRow } from '../../projections/account-import-progress.js';
import { importFailureSummaryProjection, importProgressCountsProjection } from '../../projections/import-progress-tallies.js';
import { inlineProjections } from '../../projections/index.js';
import type { StoredLedgerEvent } from '../../projections/projection.js';
import { applyTallyChange, tallyChanges, withTallyPartners } from '../../src/store/tallies.js';

/** The tallies: sums over another projection's rows, moved by its rows' before and after. */

const S = 'SUP';
let position = 0;
const stored = (event: LedgerEvent): StoredLedgerEvent => ({
  globalPosition: ++position,
  streamId: 'test',
  streamPosition: 1,
  event,
  metadata: { actor: 'test', requestId: null } as StoredLedgerEvent['metadata'],
  recordedAt: '2026-11-21T10:00:00.000Z',
});
const at = '2026-11-21T10:00:00.000Z';
const refused = (ext: string, errors: { code: string; attr: string | null }[], operation: 'stage' | 'process' = 'stage'): LedgerEvent => ({
  type: 'AccountImportAttemptRefused',
  version: 1,
  data: { importSupplier: S, externalAccountNumber: ext, operation, dryRun: false, code: 'account_failed_validation', detail: 'x', errors, accountStreamVersion: 0, refusedAt: at },
});
const processed = (ext: string): LedgerEvent => ({
  type: 'AccountProcessed',
  version: 1,
  data: { importSupplier: S, externalAccountNumber: ext, platformAccountNumber: `P-${ext}`, operationsTeamName: 'T', processedAt: at },
});

/** Given the events, the account's progress row. */
function fold(events: readonly LedgerEvent[]): AccountImportProgressRow | null {
  let row: AccountImportProgressRow | null = null;
  for (const event of events) row = accountImportProgressProjection.evolve(row, stored(event) as never);
  return row;
}

describe('account_import_progress', () => {
  it('given a refused stage of an account never staged, then it is pending and failing with the refusal', () => {
    const row = fold([refused('A', [{ code: 'invalid_phone_number', attr: 'customers.0.landline' }])]);
    expect(row).toMatchObject({ state: 'PENDING', failureStep: 'stage', failureCode: 'account_failed_validation', failureCodes: ' account_failed_validation invalid_phone_number ' });
  });

  it('given a refusal, when the account is processed, then it is imported and no longer failing; a later refusal leaves it so', () => {
    const row = fold([refused('A', [], 'process'), processed('A'), refused('A', [], 'process')]);
    expect(row).toMatchObject({ state: 'IMPORTED', transferStatus: 'PENDING', failureCode: null, failedPosition: null });
  });
});

describe('tallies', () => {
  const failing = fold([refused('A', [{ code: 'c1', attr: 'x' }, { code: 'c1', attr: 'x' }, { code: 'c2', attr: null }])])!;
  const imported = fold([refused('A', []), processed('A')])!;

  it('a row moving from failing to imported takes one from pending and failing and adds one to imported', () => {
    const [change] = tallyChanges(importProgressCountsProjection, failing, imported);
    expect(change!.key).toEqual({ importSupplier: S });
    expect(change!.counts).toEqual({ total: 0, pending: -1, failing: -1, imported: 1, transferPending: 1 });
  });

  it('an account counts once per code and path in the summary; a row leaving takes it all back, down to no row', () => {
    const added = tallyChanges(importFailureSummaryProjection, null, failing);
    expect(added.map((c) => [c.key, c.counts])).toEqual([
      [{ importSupplier: S, code: 'c1', attr: 'x' }, { accounts: 1 }],
      [{ importSupplier: S, code: 'c2', attr: '' }, { accounts: 1 }],
    ]);
    const rows = added.map((c) => applyTallyChange(null, c));
    const removed = tallyChanges(importFailureSummaryProjection, failing, imported);
    expect(removed.map((c, i) => applyTallyChange(rows[i]!, c))).toEqual([null, null]);
  });

  it('an unchanged row changes nothing', () => {
    expect(tallyChanges(importProgressCountsProjection, failing, { ...failing })).toEqual([]);
  });

  it('a tally is rebuilt with its source, and a source with its tallies', () => {
    expect(withTallyPartners([importProgressCountsProjection]).map((p) => p.name).sort()).toEqual(['account_import_progress', 'import_failure_summary', 'import_progress_counts']);
    expect(withTallyPartners([accountImportProgressProjection]).map((p) => p.name).sort()).toEqual(['account_import_progress', 'import_failure_summary', 'import_progress_counts']);
    expect(withTallyPartners(inlineProjections)).toHaveLength(inlineProjections.length);
  });
});
