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

function historyEntry(stored: StoredEvent<LedgerEvent>): HistoryEntry {
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

/** The streams of an account: its own (the import process and what is recorded on it), its dry runs, scheduled creations and refused attempts. */
const accountStreams = (importSupplier: string, externalAccountNumber: string): readonly string[] => [
  accountImportProcessStreamId(importSupplier, externalAccountNumber),
  accountProcessDryRunStreamId(importSupplier, externalAccountNumber),
  accountCreationStreamId(importSupplier, externalAccountNumber),
  refusedAttemptStreamId(importSupplier, externalAccountNumber),
];

/** The streams' events after `after`, read `batch` at a time, giving the event loop back between reads. */
async function* eventsAfter(ctx: LedgerContext, streams: readonly string[], after: number, batch: number, withBulkFields: boolean) {
  for (;;) {
    const events = await ctx.read.streamEventsPage(streams, after, batch, { withBulkFields });
    yield* events;
    if (events.length < batch) return;
    after = events[events.length - 1]!.globalPosition;
    await yieldToEventLoop();
  }
}

async function requireAccount(ctx: LedgerContext, importSupplier: string, externalAccountNumber: string): Promise<void> {
  if (!(await ctx.read.findAccountImportProcess(importSupplier, externalAccountNumber))) {
    throw new DomainError('account_not_found', `No account import process found for ${importSupplier} / ${externalAccountNumber}.`);
  }
}

/**
 * One page of the streams' events after `page.after`, of those `kept`: read `limit + 1` at a time (one read
 * when every event is kept). Recording times follow positions but for clock differences between instances,
 * so every event is checked rather than stopping at the first one not kept.
 */
async function historyPage(
  ctx: LedgerContext,
  streams: readonly string[],
  page: { after: number; limit: number },
  kept: (stored: StoredEvent<LedgerEvent>) => boolean,
): Promise<HistoryPage> {
  const events: StoredEvent<LedgerEvent>[] = [];
  for await (const stored of eventsAfter(ctx, streams, page.after, page.limit + 1, true)) {
    if (!kept(stored)) continue;
    if (events.length === page.limit) return { events: events.map(historyEntry), next_after: events[events.length - 1]!.globalPosition };
    events.push(stored);
  }
  return { events: events.map(historyEntry), next_after: null };
}

/** One page of the account's events in global order, after `after`: one bounded read of the log, however long its streams. */
export async function accountHistory(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  page: { after: number; limit: number },
): Promise<HistoryPage> {
  await requireAccount(ctx, importSupplier, externalAccountNumber);
  return historyPage(ctx, accountStreams(importSupplier, externalAccountNumber), page, () => true);
}

/**
 * The account's state as of `asOf` (every event recorded by then, folded) and one page of those events. The
 * fold reads the events without their payloads, then the one staged payload the state shows: memory holds
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
  for await (const stored of eventsAfter(ctx, streams, 0, FOLD_BATCH, false)) if (recordedBy(stored)) folder.apply(stored);
  if (folder.stagedPayloadPosition !== null) {
    const [staging] = await ctx.read.streamEventsPage(streams, folder.stagedPayloadPosition - 1, 1);
    const payload = staging && 'payload' in staging.event.data ? staging.event.data.payload : null;
    folder.withPayload(payload as Record<string, unknown> | null);
  }

  return { as_of: asOf.toISOString(), state: folder.view(), ...(await historyPage(ctx, streams, page, recordedBy)) };
}
