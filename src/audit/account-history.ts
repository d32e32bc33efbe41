import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { LedgerContext } from '../application/context.js';
import { DomainError } from '../domain/errors.js';
import { accountStateAsOf, type AccountStateView } from './account-state.js';

/** One event of an account's history, as the history endpoint and the CLI show it. */
export interface HistoryEntry {
  readonly position: number;
  readonly stream_position: number;
  readonly type: string;
  readonly schema_version: number;
  readonly recorded_at: string;
  readonly actor: string;
  readonly request_id: string | null;
  readonly data: unknown;
}

export function historyEntry(stored: StoredEvent<LedgerEvent>): HistoryEntry {
  return {
    position: stored.globalPosition,
    stream_position: stored.streamPosition,
    type: stored.event.type,
    schema_version: stored.event.version,
    recorded_at: stored.recordedAt,
    actor: stored.metadata.actor,
    request_id: stored.metadata.requestId,
    data: stored.event.data,
  };
}

/** The streams of an account: its own, and the audit record of its process dry runs. */
const accountStreamIds = [accountImportProcessStreamId, accountProcessDryRunStreamId] as const;

/**
 * Every event of the account's streams (its import process and everything
 * recorded on it after: notes, transactions, statements, payment
 * instructions, emails; and its successful process dry runs), in global
 * order. Auditing reads the log itself.
 */
async function accountEvents(ctx: LedgerContext, importSupplier: string, externalAccountNumber: string) {
  const streams = await Promise.all(accountStreamIds.map((streamId) => ctx.store.readStream(streamId(importSupplier, externalAccountNumber))));
  if ((streams[0] ?? []).length === 0) {
    throw new DomainError('account_not_found', `No account import process found for ${importSupplier} / ${externalAccountNumber}.`);
  }
  return streams.flat().sort((a, b) => a.globalPosition - b.globalPosition);
}

export async function accountHistory(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  page: { after: number; limit: number },
): Promise<{ events: HistoryEntry[]; next_after: number | null }> {
  const events = (await accountEvents(ctx, importSupplier, externalAccountNumber)).filter((e) => e.globalPosition > page.after);
  const slice = events.slice(0, page.limit);
  return { events: slice.map(historyEntry), next_after: events.length > page.limit ? slice[slice.length - 1]!.globalPosition : null };
}

export async function accountHistoryAsOf(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  asOf: Date,
): Promise<{ as_of: string; state: AccountStateView; events: HistoryEntry[] }> {
  const { state, events } = accountStateAsOf(await accountEvents(ctx, importSupplier, externalAccountNumber), asOf);
  return { as_of: asOf.toISOString(), state, events: events.map(historyEntry) };
}
