import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreObserver } from '../store/store-observer.js';
import type { StoredLedgerEvent } from '../store/event-store.js';
import type { HttpMetrics } from '../http/metrics-middleware.js';
import type { SupplierFigures, WorkQueueFigures } from '../queries/operational-figure-read-models.js';
import { cachedFigures } from './cached-figures.js';

/** Where the scrape-time figures come from, once the ledger is open (see `LedgerMetrics.watch`). */
export interface FigureSources {
  /** The log's last position: every inline projection is there (they commit with the events). */
  readonly logPosition: () => Promise<number>;
  readonly projections: readonly string[];
  readonly workQueues: () => Promise<WorkQueueFigures>;
  /** The business figures of at most `limit` import suppliers (their progress counters). */
  readonly supplierFigures: (limit: number) => Promise<readonly SupplierFigures[]>;
}

export interface LedgerMetricsOptions {
  /** The work queues are counted at most this often, whatever the scrape rate (ms; 5 s). */
  readonly queueMaxAgeMs?: number;
  /** The business figures are counted at most this often (ms; 30 s). */
  readonly businessMaxAgeMs?: number;
  readonly ready?: () => boolean;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** The methods the route table uses (anything else is counted as OTHER: a label set that cannot grow). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Suppliers are few; past this many, the rest get no label set of their own. */
const MAX_SUPPLIERS = 100;

/**
 * The service's Prometheus metrics (docs/operations.md "Metrics"): prom-client's process and Node.js
 * defaults, HTTP, the store (through the StoreObserver hook), and figures read at scrape time (work
 * queues, projections, business figures), at most as often as the options say. One registry per
 * instance, so tests build their own.
 */
export class LedgerMetrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status_class'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status_class'>;
  private readonly httpInFlight: Gauge;
  private readonly eventsAppended: Counter<'type'>;
  private readonly refused: Counter<'code'>;
  private readonly conflicts: Counter;
  private readonly unavailable: Counter<'reason'>;
  private readonly batchUnits: Histogram;
  private readonly batchCommit: Histogram;
  private readonly lockWait: Histogram;
  private readonly lockHeld: Histogram;
  private readonly collectErrors: Counter<'figures'>;
  private readonly rebuildRead: Gauge;
  private readonly rebuildTotal: Gauge;
  private readonly rebuilding = new Set<string>();
  private rebuildPosition = 0;
  private sources: FigureSources | null = null;
  private readonly workQueues: () => Promise<WorkQueueFigures | null>;
  private readonly suppliers: () => Promise<readonly SupplierFigures[] | null>;
  /** The scrape's figure reads still running: the error counter waits for them, so a scrape shows its own failures. */
  private readonly figureReads = new Set<Promise<void>>();
  private readonly appendedByType = new Map<string, Counter.Internal>();

  constructor(options: LedgerMetricsOptions = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'ledger_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'ledger_http_request_duration_seconds',
      help: 'Time from a request arriving until its response (headers) was ready, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpInFlight = new Gauge({ name: 'ledger_http_requests_in_flight', help: 'HTTP requests being handled now.', registers });
    this.eventsAppended = new Counter({ name: 'ledger_events_appended_total', help: 'Events appended to the log, by event type.', labelNames: ['type'], registers });
    this.refused = new Counter({
      name: 'ledger_commands_refused_total',
      help: 'Commands a decider refused (nothing written), by error code.',
      labelNames: ['code'],
      registers,
    });
    this.conflicts = new Counter({
      name: 'ledger_store_concurrency_conflicts_total',
      help: 'Writes that found a stream moved on since it was read (nothing written; retried afresh, or answered 409).',
      registers,
    });
    this.unavailable = new Counter({
      name: 'ledger_store_unavailable_total',
      help: 'Requests answered 503 store_unavailable, by reason: unreachable, disk_full, read_only, io_error, busy.',
      labelNames: ['reason'],
      registers,
    });
    this.batchUnits = new Histogram({ name: 'ledger_store_batch_units', help: 'Units of work (commands) per group-commit batch.', buckets: BATCH_BUCKETS, registers });
    const commitHistogram = (name: string, help: string) => new Histogram({ name, help, buckets: COMMIT_BUCKETS, registers });
    this.batchCommit = commitHistogram('ledger_store_batch_commit_seconds', 'Per group-commit batch, from BEGIN until it is durable (SQLite: WAL synced; PostgreSQL: COMMIT answered).');
    this.lockWait = commitHistogram('ledger_pg_write_lock_wait_seconds', "PostgreSQL: per batch, the wait for the cluster's writers' advisory lock.");
    this.lockHeld = commitHistogram('ledger_pg_write_lock_held_seconds', "PostgreSQL: per batch, how long it held the cluster's writers' advisory lock (until COMMIT answered).");

    this.workQueues = cachedFigures(async () => (this.sources ? this.sources.workQueues() : null), options.queueMaxAgeMs ?? 5_000);
    this.suppliers = cachedFigures(async () => (this.sources ? this.sources.supplierFigures(MAX_SUPPLIERS) : null), options.businessMaxAgeMs ?? 30_000);
    const guarded = (figures: string, read: () => Promise<void>): Promise<void> => {
      const settled = read().catch(() => {
        this.collectErrors.inc({ figures });
      });
      this.figureReads.add(settled);
      void settled.finally(() => this.figureReads.delete(settled));
      return settled;
    };
    /** A gauge set at scrape time from one group of figures (`figures` names it in the error counter). */
    const figureGauge = (name: string, help: string, labelNames: string[], figures: string, set: (gauge: Gauge) => Promise<void>) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          return guarded(figures, () => set(this));
        },
      });

    figureGauge(
      'ledger_supply_point_requests',
      'Supply point requests by operator (supply_type) and state: pending, in_flight (claimed by a worker), errored (given up).',
      ['supply_type', 'state'],
      'work_queues',
      async (gauge) => {
        for (const row of (await this.workQueues())?.supplyPointRequests ?? []) {
          gauge.set({ supply_type: row.supplyType, state: 'pending' }, row.pending);
          gauge.set({ supply_type: row.supplyType, state: 'in_flight' }, row.inFlight);
          gauge.set({ supply_type: row.supplyType, state: 'errored' }, row.errored);
        }
      },
    );
    /** A work queue counted per state: one label set per field of its figures. */
    const queueByState = (name: string, help: string, queue: 'welcomeEmails' | 'scheduledCreations') =>
      figureGauge(name, help, ['state'], 'work_queues', async (gauge) => {
        const counts = (await this.workQueues())?.[queue];
        if (counts) for (const [state, count] of Object.entries(counts)) gauge.set({ state }, count);
      });
    queueByState(
      'ledger_welcome_emails',
      'Customer (welcome) emails by state: queued (waiting or being retried), sending (claimed), failed (given up).',
      'welcomeEmails',
    );
    queueByState(
      'ledger_scheduled_account_creations',
      'v2 scheduled account creations by state: waiting (for their window or a retry), running (claimed).',
      'scheduledCreations',
    );
    figureGauge(
      'ledger_supplier_accounts',
      'Accounts per import supplier by state: pending (staged, not imported), imported, failing (v2 status ERRORED).',
      ['import_supplier', 'state'],
      'business',
      async (gauge) => {
        const figures = await this.suppliers();
        if (!figures) return;
        gauge.reset();
        for (const row of figures) {
          for (const state of ['pending', 'imported', 'failing'] as const) gauge.set({ import_supplier: row.importSupplier, state }, row[state]);
        }
      },
    );
    figureGauge('ledger_log_position', "The log's last global position.", [], 'projections', async (gauge) => {
      if (this.sources) gauge.set(await this.sources.logPosition());
    });
    figureGauge(
      'ledger_projection_position',
      'The log position each projection has reached (inline projections commit with the events: the log position; a projection being rebuilt: its rebuild).',
      ['projection'],
      'projections',
      async (gauge) => {
        const sources = this.sources;
        const head = sources ? await sources.logPosition() : null;
        for (const name of this.rebuilding) gauge.set({ projection: name }, this.rebuildPosition);
        if (!sources || head === null) return;
        for (const name of sources.projections) if (!this.rebuilding.has(name)) gauge.set({ projection: name }, head);
      },
    );
    this.rebuildRead = new Gauge({ name: 'ledger_projection_rebuild_events_read', help: 'Events the running projection rebuild has replayed (0 when none runs).', registers });
    this.rebuildTotal = new Gauge({ name: 'ledger_projection_rebuild_events_total', help: 'Events the running projection rebuild will replay (0 when none runs).', registers });
    // Registered after the figures whose failures it counts: a scrape collects every metric at once, and
    // this one waits for the figure reads that scrape started, so that it shows their failures.
    this.collectErrors = new Counter({
      name: 'ledger_metrics_collect_errors_total',
      help: 'Scrape-time figures that could not be read (the previous values are kept), by figure group.',
      labelNames: ['figures'],
      registers,
      collect: async () => {
        await Promise.all([...this.figureReads]);
      },
    });
    new Gauge({
      name: 'ledger_ready',
      help: '1 when the instance is ready for traffic (what /readyz answers 200 for), else 0.',
      registers,
      collect() {
        this.set(options.ready?.() ? 1 : 0);
      },
    });
  }

  /** The scrape-time figures' sources, once the ledger is open. */
  watch(sources: FigureSources): void {
    this.sources = sources;
  }

  /** A projection rebuild starts (start-up: stale projections); `progress` then `rebuildDone`. */
  rebuildStarted(projections: readonly string[]): void {
    for (const name of projections) this.rebuilding.add(name);
    this.rebuildPosition = 0;
  }

  rebuildProgress(eventsRead: number, eventsTotal: number): void {
    this.rebuildPosition = eventsRead;
    this.rebuildRead.set(eventsRead);
    this.rebuildTotal.set(eventsTotal);
  }

  rebuildDone(): void {
    this.rebuilding.clear();
    this.rebuildRead.set(0);
    this.rebuildTotal.set(0);
  }

  /** The Prometheus text exposition of every metric. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Per label set (method, status class, route), its counter's and histogram's children: a request's count and time go to them without hashing its labels. */
  private readonly httpChildren = new Map<string, { readonly requests: Counter.Internal; readonly duration: Histogram.Internal<'method' | 'route' | 'status_class'> }>();

  readonly http: HttpMetrics = {
    started: () => this.httpInFlight.inc(),
    finished: (method, route, status, seconds) => {
      this.httpInFlight.dec();
      const known = METHODS.has(method) ? method : 'OTHER';
      const statusClass = `${Math.floor(status / 100)}xx`;
      const key = `${known} ${statusClass} ${route}`;
      let child = this.httpChildren.get(key);
      if (!child) {
        const labels = { method: known, route, status_class: statusClass };
        child = { requests: this.httpRequests.labels(labels), duration: this.httpDuration.labels(labels) };
        this.httpChildren.set(key, child);
      }
      child.requests.inc();
      child.duration.observe(seconds);
    },
    storeUnavailable: (reason) => this.unavailable.inc({ reason }),
  };

  readonly observer: StoreObserver = {
    onEventsAppended: (events: readonly StoredLedgerEvent[]) => {
      for (const { event } of events) {
        let child = this.appendedByType.get(event.type);
        if (!child) this.appendedByType.set(event.type, (child = this.eventsAppended.labels({ type: event.type })));
        child.inc();
      }
    },
    onCommandRefused: (code) => this.refused.inc({ code }),
    onConcurrencyConflict: () => this.conflicts.inc(),
    onBatchCommitted: (units, commitMs) => {
      this.batchUnits.observe(units);
      this.batchCommit.observe(commitMs / 1000);
    },
    onWriteLock: (waitMs, heldMs) => {
      this.lockWait.observe(waitMs / 1000);
      this.lockHeld.observe(heldMs / 1000);
    },
  };
}
