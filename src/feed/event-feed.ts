import type { SupplyPointPopulateBatchRow } from '../../projections/supply-points-populate-batches.js';
import type { LedgerDb } from '../store/database.js';
import { toStoredEvent, type EventRow } from '../store/event-stream.js';
import { eventColumns } from '../store/projection-rebuild.js';
import { feedEventTypes, toIntegrationEvent, type IntegrationEvent, type Scope } from './integration-events.js';

export interface FeedPage {
  readonly events: readonly IntegrationEvent[];
  /** Pass as `after` to continue: the position of the last log row looked at (matching or not). */
  readonly nextAfter: number;
}

/** Most log rows one page looks at: a key scoped to a small supplier still gets an answer promptly on a big log. */
const SCAN_LIMIT = 5_000;

export interface FeedReadModels {
  /** One page of the integration event feed, filtered to what `suppliers` may see. */
  feedPage(after: number, limit: number, suppliers: readonly string[]): Promise<FeedPage>;
}

/**
 * Reads the feed from the log: the catalogue's event types after `after`, in
 * global order, filtered to what the caller's suppliers may see. Staged
 * payloads stay inside SQLite (the feed never shows them). Populate batches'
 * suppliers are looked up with `findBatch`.
 */
export function createSqliteFeedReadModels(
  db: LedgerDb,
  findBatch: (batchId: string) => Promise<Pick<SupplyPointPopulateBatchRow, 'importSuppliers'> | null>,
): FeedReadModels {
  const sqlite = db.$client;
  const types = feedEventTypes;
  const statement = sqlite.prepare<unknown[], EventRow>(
    `SELECT ${eventColumns([])} FROM events WHERE global_position > ? AND +type IN (${types.map(() => '?').join(', ')}) AND global_position <= ? ORDER BY global_position LIMIT ?`,
  );
  const lastPosition = sqlite.prepare<[], { p: number | null }>('SELECT MAX(global_position) AS p FROM events');

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
    async feedPage(after, limit, suppliers) {
      const allowed = new Set(suppliers);
      const batches = new Map<string, boolean>();
      // Every position up to the last committed one is visible (SQLite has one writer at a time), so the
      // window (after, end] can be marked as read even where nothing in it matched.
      const end = Math.min(after + SCAN_LIMIT, lastPosition.get()?.p ?? 0);
      const rows = end > after ? statement.all(after, ...types, end, limit) : [];
      const events: IntegrationEvent[] = [];
      for (const row of rows) {
        const mapped = toIntegrationEvent(toStoredEvent(row));
        if (mapped && (await visible(mapped.scope, allowed, batches))) events.push(mapped.event);
      }
      // A full page continues after its last row; otherwise the whole window was looked at.
      const nextAfter = rows.length === limit ? rows[rows.length - 1]!.global_position : Math.max(after, end);
      return { events, nextAfter };
    },
  };
}
