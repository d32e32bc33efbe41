/**
 * The relays' storage (a port; docs/events.md): each relay's position in the log, held by one instance at a
 * time through a lease, and a webhook endpoint's parked messages. Both stores implement it with the same
 * statements (src/store/sqlite/relay-store.ts, src/store/postgres/pg-relay-store.ts).
 */

/** Where a relay stands: the log read through `position`, and the last replay request applied. */
export interface RelayCursor {
  readonly position: number;
  readonly replaySeq: number;
}

/** A relay's row, as the metrics and the dashboard show it. */
export interface RelayCursorRow extends RelayCursor {
  readonly name: string;
  readonly holder: string | null;
  readonly leaseExpiresAtMs: number | null;
}

/** A webhook message that failed while its endpoint delivered others (see relay-schema.ts `webhookRetries`). */
export interface ParkedMessage {
  readonly endpointId: string;
  readonly position: number;
  readonly orderingKey: string;
  readonly attempts: number;
  /** When to try it next (ms since the epoch); null: it waits behind an earlier message of its key. */
  readonly nextAttemptAtMs: number | null;
  readonly firstFailedAtMs: number;
}

export interface RelayStore {
  /**
   * Takes relay `name` for `holder` until `nowMs + leaseMs` (creating it at `initial`) when nobody else
   * holds it, or renews the holder's own lease; null while another holder's lease runs.
   */
  acquire(name: string, holder: string, nowMs: number, leaseMs: number, initial: RelayCursor): Promise<RelayCursor | null>;
  /** Moves the relay to `cursor` and renews the lease; false when the lease is no longer `holder`'s (another instance took over). */
  advance(name: string, holder: string, nowMs: number, leaseMs: number, cursor: RelayCursor): Promise<boolean>;
  /** Lets the relay go (a stopping instance), so that another takes it at once. */
  release(name: string, holder: string): Promise<void>;
  cursors(): Promise<readonly RelayCursorRow[]>;
  /** How many of the endpoint's messages are parked. */
  countParked(endpointId: string): Promise<number>;
  /** The endpoint's parked messages, oldest first (at most `limit`). */
  parked(endpointId: string, limit: number): Promise<readonly ParkedMessage[]>;
  /** Parks messages, or records a parked message's next attempt (an upsert by endpoint and position). */
  park(messages: readonly ParkedMessage[]): Promise<void>;
  /** Forgets parked messages: delivered ones (`positions`), or, with `from`, every one at or after it (a replay reads them again). */
  unpark(endpointId: string, which: { readonly positions: readonly number[] } | { readonly from: number }): Promise<void>;
}
