import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountCreationStreamId } from '../../events/account-creation.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import { refusedAttemptStreamId } from '../../events/import-attempt.js';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { LedgerContext } from '../application/context.js';
import { DomainError } from '../domain/errors.js';
import { AccountStateFolder, type AccountStateView } from './account-state.js';

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

/** A page of an account's events: `next_after` is the `after` of the next page, null on the last one. */
export interface HistoryPage {
  readonly events: HistoryEntry[];
  readonly next_after: number | null;
}

/** Events read per step when folding an account's state (without their payloads). */
const FOLD_BATCH = 1_000;

/**
 * The streams of an account: its own (its import process and everything
 * recorded on it after: notes, transactions, statements, payment
 * instructions, emails), the audit records of its process dry runs and of
 * its refused attempts, and its v2 scheduled creations.
 */
const accountStreams = (importSupplier: string, externalAccountNumber: string): readonly string[] => [
  accountImportProcessStreamId(importSupplier, externalAccountNumber),
  accountProcessDryRunStreamId(importSupplier, externalAccountNumber),
  accountCreationStreamId(importSupplier, externalAccountNumber),
  refusedAttemptStreamId(importSupplier, externalAccountNumber),
];

async function requireAccount(ctx: LedgerContext, importSupplier: string, externalAccountNumber: string): Promise<void> {
  if (!(await ctx.read.findAccountImportProcess(importSupplier, externalAccountNumber))) {
    throw new DomainError('account_not_found', `No account import process found for ${importSupplier} / ${externalAccountNumber}.`);
  }
}

/**
 * One page of the account's events in global order, after `after`: auditing
 * reads the log itself, a bounded read per page however long the account's
 * streams are (an account with 10,000 transactions pages like any other).
 */
export async function accountHistory(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  page: { after: number; limit: number },
): Promise<HistoryPage> {
  await requireAccount(ctx, importSupplier, externalAccountNumber);
  const events = await ctx.read.streamEventsPage(accountStreams(importSupplier, externalAccountNumber), page.after, page.limit + 1);
  const slice = events.slice(0, page.limit);
  return { events: slice.map(historyEntry), next_after: events.length > page.limit ? slice[slice.length - 1]!.globalPosition : null };
}

/**
 * The account's state as of `asOf` (folded from every event recorded up to
 * that instant) and one page of those events. The fold reads the events in
 * batches without their payloads, giving the event loop back between
 * batches, then reads the one staged payload the state shows: memory holds
 * the state (its lists bounded, see STATE_LIST_LIMIT) and one page.
 */
export async function accountHistoryAsOf(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  asOf: Date,
  page: { after: number; limit: number },
): Promise<{ as_of: string; state: AccountStateView } & HistoryPage> {
  await requireAccount(ctx, importSupplier, externalAccountNumber);
  const streams = accountStreams(importSupplier, externalAccountNumber);
  const cutoff = asOf.getTime();
  const recordedBy = (stored: StoredEvent<LedgerEvent>) => Date.parse(stored.recordedAt) <= cutoff;

  const folder = new AccountStateFolder();
  for (let after = 0; ; ) {
    const batch = await ctx.read.streamEventsPage(streams, after, FOLD_BATCH, { withBulkFields: false });
    for (const stored of batch) if (recordedBy(stored)) folder.apply(stored);
    if (batch.length < FOLD_BATCH) break;
    after = batch[batch.length - 1]!.globalPosition;
    await yieldToEventLoop();
  }
  if (folder.stagedPayloadPosition !== null) {
    const [staging] = await ctx.read.streamEventsPage(streams, folder.stagedPayloadPosition - 1, 1);
    const payload = staging && 'payload' in staging.event.data ? staging.event.data.payload : null;
    folder.withPayload(payload as Record<string, unknown> | null);
  }

  // The page: the events recorded by then, after `page.after`. Recording times follow positions but for clock
  // differences between instances, so every event is checked rather than stopping at the first later one.
  const events: StoredEvent<LedgerEvent>[] = [];
  let more = false;
  for (let after = page.after; !more; ) {
    const batch = await ctx.read.streamEventsPage(streams, after, page.limit + 1);
    for (const stored of batch) {
      if (!recordedBy(stored)) continue;
      if (events.length === page.limit) {
        more = true;
        break;
      }
      events.push(stored);
    }
    if (batch.length < page.limit + 1) break;
    after = batch[batch.length - 1]!.globalPosition;
    await yieldToEventLoop();
  }
  return {
    as_of: asOf.toISOString(),
    state: folder.view(),
    events: events.map(historyEntry),
    next_after: more ? events[events.length - 1]!.globalPosition : null,
  };
}
