import type { SupplyPointPopulateBatchRow } from '../../projections/supply-points-populate-batches.js';
import type { EventLog } from '../store/event-log.js';
import { sourceEventTypes, toExternalEvent, type ExternalEvent, type Scope } from '../external-events/catalogue.js';

/** One event of the feed: the external event's payload with its id and position (what `after` takes). */
export type FeedItem = ExternalEvent & { readonly position: number };

export interface FeedPage {
  readonly events: readonly FeedItem[];
  /** Pass as `after` to continue: the position of the last log row looked at (matching or not). */
  readonly nextAfter: number;
}

/** Most log rows one page looks at: a key scoped to a small supplier still gets an answer promptly on a big log. */
const SCAN_LIMIT = 5_000;

export interface FeedReadModels {
  /** One page of the event feed, filtered to what `suppliers` may see. */
  feedPage(after: number, limit: number, suppliers: readonly string[]): Promise<FeedPage>;
  /** Resolves once the log holds events after `after` (any instance's commits wake it), after `timeoutMs`, or on `signal`. */
  waitForFeed(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** The position of the last committed event: where a reader that wants only what comes next starts. */
  feedHead(): Promise<number>;
}

/**
 * Reads the feed from the log: the external events after `after`, filtered to what the caller's suppliers
 * may see (a populate batch's suppliers looked up with `findBatch`), never reading the staged payloads.
 */
export function createFeedReadModels(
  log: EventLog,
  findBatch: (batchId: string) => Promise<Pick<SupplyPointPopulateBatchRow, 'importSuppliers'> | null>,
): FeedReadModels {
  async function visible(scope: Scope, suppliers: ReadonlySet<string>, batches: Map<string, boolean>): Promise<boolean> {
    if ('everyone' in scope) return true;
    if ('supplier' in scope) return suppliers.has(scope.supplier);
    let allowed = batches.get(scope.batchId);
    if (allowed === undefined) {
      const batch = await findBatch(scope.batchId);
      allowed = batch !== null && batch.importSuppliers.some((s) => suppliers.has(s));
      batches.set(scope.batchId, allowed);
    }
    return allowed;
  }

  return {
    waitForFeed: (after, timeoutMs, signal) => log.waitForAppend(after, timeoutMs, signal),
    feedHead: () => log.lastPosition(),
    async feedPage(after, limit, suppliers) {
      const allowed = new Set(suppliers);
      const batches = new Map<string, boolean>();
      // Every position up to the last committed one is visible (positions are assigned in commit order), so
      // the window (after, end] can be marked as read even where nothing in it matched.
      const end = Math.min(after + SCAN_LIMIT, await log.lastPosition());
      const events: FeedItem[] = [];
      let read = 0;
      let lastRead = after;
      if (end > after) {
        const page = await log.open({ after, through: end, types: sourceEventTypes, limit, withBulkFields: false });
        for await (const batch of page) {
          for (const stored of batch) {
            read++;
            lastRead = stored.globalPosition;
            const routed = toExternalEvent(stored);
            if (routed && (await visible(routed.scope, allowed, batches))) events.push({ position: routed.position, ...routed.event });
          }
        }
      }
      // A full page continues after its last event; otherwise the whole window was looked at.
      const nextAfter = read === limit ? lastRead : Math.max(after, end);
      return { events, nextAfter };
    },
  };
}
