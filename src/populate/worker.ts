import type { Logger } from 'pino';
import type { SupplyPointPopulateRequestEvent } from '../../events/supply-point-populate.js';
import type { NetworkOperator, OperatorAnswer } from '../adapters/network-operators.js';
import type { Actor, LedgerContext } from '../application/context.js';
import { claimPopulateRequest, recordPopulateOutcome, type PopulateOutcome } from '../application/supply-point-populate.js';
import { SUPPLY_TYPES, type SupplyType } from '../domain/account-import-process/identifiers.js';
import { DomainError } from '../domain/errors.js';
import { effectiveConfigValue } from '../domain/service-config/service-config-settings.js';
import type { PopulateRequestRef } from '../domain/supply-point/populate-request-decider.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type PopulateRetryPolicy } from '../domain/supply-point/retry-policy.js';
import type { DuePopulateRequest } from '../queries/supply-point-read-models.js';
import { InProcessLimits, type SharedLimits } from '../store/shared-limits.js';
import { progressOf, type PopulateProgress } from './progress.js';
import { realSleep, type Sleep } from '../worker/sleep.js';
import { SlidingWindowThrottle } from './throttle.js';

export type { PopulateProgress } from './progress.js';

export interface PopulateWorkerOptions {
  readonly retry: PopulateRetryPolicy;
  /** How long a claim holds: longer than an operator call can take (its timeout), with a margin. */
  readonly leaseMs: number;
  /** How often an idle worker looks at the queue again. */
  readonly idlePollMs: number;
  /** Calls in flight at once to one operator (the throttle spaces their starts). */
  readonly maxInFlightPerOperator: number;
  /** On stop, how long (real time) calls in flight get to finish before they are left to their lease. */
  readonly stopGraceMs: number;
}

export const DEFAULT_WORKER_OPTIONS: PopulateWorkerOptions = {
  retry: DEFAULT_RETRY_POLICY,
  leaseMs: 25_000,
  idlePollMs: 1_000,
  maxInFlightPerOperator: 8,
  stopGraceMs: 3_000,
};

/** A lease long enough for a call that runs to `timeoutMs`, and the write after it. */
export function leaseForTimeout(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

export interface PopulateWorkerDeps {
  readonly ctx: LedgerContext;
  readonly operators: Readonly<Record<SupplyType, NetworkOperator>>;
  readonly logger: Logger;
  /** Recorded as the actor of the worker's events. */
  readonly actor: Actor;
  /**
   * Where the throttles count call starts: the ledger's limits, shared by every instance on PostgreSQL, so
   * `populate-rate-per-second` holds for the cluster. Defaults to this process alone.
   */
  readonly limits?: SharedLimits;
  /** Defaults to real time; tests pass one that advances the ledger's clock. */
  readonly sleep?: Sleep;
  readonly onProgress?: (progress: PopulateProgress) => void;
  readonly options?: Partial<PopulateWorkerOptions>;
}

const key = (r: { batchId: string; sequence: number }) => `${r.batchId}:${r.sequence}`;

/** Requests tried for one throttle slot before it is left unused (other workers took them all first). */
const MAX_CLAIM_TRIES = 8;

/**
 * Takes pending populate requests, oldest first, and asks the operators for
 * them: one lane per operator, each throttled to `populate-rate-per-second`
 * call starts in any second (on PostgreSQL, across every instance). Every step is an event (claim, failed attempt,
 * result), so a worker started after a crash carries on from the log: ended
 * requests are never taken again, waiting ones when their retry time comes,
 * claimed ones when the dead worker's lease runs out.
 */
export class PopulateWorker {
  private readonly options: PopulateWorkerOptions;
  private readonly sleep: Sleep;
  private readonly throttles: Record<SupplyType, SlidingWindowThrottle>;
  private stopping = new AbortController();
  private running: Promise<void> | null = null;

  constructor(private readonly deps: PopulateWorkerDeps) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, ...deps.options };
    this.sleep = deps.sleep ?? realSleep;
    const limits = deps.limits ?? new InProcessLimits(deps.ctx.clock);
    const throttle = (supplyType: SupplyType) => new SlidingWindowThrottle(deps.ctx.clock, this.sleep, limits, `populate:${supplyType}`);
    this.throttles = { ELECTRICITY: throttle('ELECTRICITY'), GAS: throttle('GAS') };
  }

  /** Runs in the background until `stop()`, waiting for new requests when the queue is empty. */
  start(): void {
    if (this.running) return;
    this.stopping = new AbortController();
    this.running = this.run('serve');
  }

  /** Works until every request of the queue has ended (or `stop()` is called), then resolves. */
  async drain(): Promise<void> {
    if (this.running) throw new Error('the populate worker is already running');
    this.stopping = new AbortController();
    this.running = this.run('drain');
    await this.running;
  }

  /**
   * Stops taking requests and aborts the calls in flight: each records that its
   * claim is given back (the attempt does not count). A call that does not
   * settle within `stopGraceMs` keeps its claim until the lease runs out.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async run(mode: 'serve' | 'drain'): Promise<void> {
    try {
      await Promise.all(SUPPLY_TYPES.map((supplyType) => this.runLane(supplyType, mode)));
    } finally {
      this.running = null;
    }
  }

  private async rate(): Promise<number> {
    const stored = await this.deps.ctx.read.configValue('populate-rate-per-second');
    return effectiveConfigValue('populate-rate-per-second', stored) ?? 1;
  }

  private async runLane(supplyType: SupplyType, mode: 'serve' | 'drain'): Promise<void> {
    const { ctx, logger } = this.deps;
    const operator = this.deps.operators[supplyType];
    const throttle = this.throttles[supplyType];
    const inFlight = new Map<string, Promise<void>>();
    const signal = this.stopping.signal;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    try {
      while (!signal.aborted) {
        try {
          if (inFlight.size >= this.options.maxInFlightPerOperator) {
            await Promise.race([...inFlight.values(), stopped]);
            continue;
          }
          const now = ctx.clock().toISOString();
          const candidates = await ctx.read.duePopulateRequests(supplyType, now, inFlight.size + 1);
          const due = candidates.find((candidate) => !inFlight.has(key(candidate)));
          if (!due) {
            const queue = await ctx.read.populateQueueState(supplyType);
            if (mode === 'drain' && queue.unfinished === 0) return;
            await this.idle(queue.nextDueAt, inFlight, signal);
            continue;
          }
          // An operator that is not configured is not called, so it takes no slot of the throttle.
          if (operator.unavailableReason === null && !(await throttle.acquire(() => this.rate(), signal))) break;
          const claimed = await this.claimWithSlot(due, inFlight, now);
          if (claimed === null) continue;
          const call = this.attempt(operator, throttle, claimed.due, claimed.attempt).finally(() => inFlight.delete(key(claimed.due)));
          inFlight.set(key(claimed.due), call);
        } catch (error) {
          // The store failed (disk, lock timeout): keep the worker alive and look again later.
          logger.error({ err: error, supplyType }, 'populate worker: could not read or claim; retrying');
          await this.sleep(this.options.idlePollMs, signal);
        }
      }
    } finally {
      await this.settle(inFlight);
    }
  }

  /** Sleeps until the next request is due (at most `idlePollMs`), or until a call in flight ends. */
  private async idle(nextDueAt: string | null, inFlight: Map<string, Promise<void>>, signal: AbortSignal): Promise<void> {
    const untilDue = nextDueAt === null ? Infinity : Date.parse(nextDueAt) - this.deps.ctx.clock().getTime();
    const wait = Math.min(Math.max(untilDue, 1), this.options.idlePollMs);
    await Promise.race([this.sleep(wait, signal), ...inFlight.values()]);
  }

  private async settle(inFlight: Map<string, Promise<void>>): Promise<void> {
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    // Real time on purpose: this bounds real I/O (the aborted calls and their writes), not a modelled delay.
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.stopGraceMs)));
    await Promise.race([Promise.allSettled(inFlight.values()), grace]);
    clearTimeout(timer);
  }

  private refOf(due: DuePopulateRequest): PopulateRequestRef {
    return { batchId: due.batchId, sequence: due.sequence, supplyType: due.supplyType, identifier: due.identifier };
  }

  /**
   * Claims `due`, or when another worker (another instance) claimed it first, the next due request: the
   * throttle's slot is already taken, and giving it up would slow the cluster below its rate whenever two
   * workers go for the same oldest request. Null when nothing could be claimed (the slot goes unused).
   */
  private async claimWithSlot(
    due: DuePopulateRequest,
    inFlight: ReadonlyMap<string, Promise<void>>,
    now: string,
  ): Promise<{ due: DuePopulateRequest; attempt: number } | null> {
    const tried = new Set<string>();
    let next: DuePopulateRequest | undefined = due;
    for (let tries = 0; next && tries < MAX_CLAIM_TRIES; tries++) {
      const claimed = await this.claim(next);
      if (typeof claimed === 'number') return { due: next, attempt: claimed };
      tried.add(key(next));
      if (claimed === 'ended') return null;
      const candidates = await this.deps.ctx.read.duePopulateRequests(due.supplyType, now, inFlight.size + tried.size + 1);
      next = candidates.find((candidate) => !inFlight.has(key(candidate)) && !tried.has(key(candidate)));
    }
    return null;
  }

  /**
   * The attempt number; `lost` when another worker claimed or finished it between our read and our write;
   * `ended` when it errored on the spot (no attempts left, or its operator is not configured).
   */
  private async claim(due: DuePopulateRequest): Promise<number | 'lost' | 'ended'> {
    const request = this.refOf(due);
    try {
      const claimed = await claimPopulateRequest(
        this.deps.ctx,
        request,
        { leaseMs: this.options.leaseMs, maxAttempts: this.options.retry.maxAttempts },
        this.deps.actor,
      );
      if (claimed.kind === 'claimed') return claimed.attempt;
      this.deps.onProgress?.({ kind: 'errored', request, attempt: claimed.attempt, reason: claimed.reason });
      return 'ended';
    } catch (error) {
      // Another worker claimed or finished it between our read and our write: not an error.
      if (error instanceof DomainError) return 'lost';
      throw error;
    }
  }

  private async attempt(
    operator: NetworkOperator,
    throttle: SlidingWindowThrottle,
    due: DuePopulateRequest,
    attempt: number,
  ): Promise<void> {
    const request = this.refOf(due);
    const log = this.deps.logger.child({ batchId: due.batchId, supplyType: due.supplyType, identifier: due.identifier, attempt });
    try {
      const answer = await operator.fetchSupplyPoint(due.identifier, this.stopping.signal);
      const outcome = await this.outcomeOf(answer, attempt, due.customerCategory, throttle);
      const event = await recordPopulateOutcome(this.deps.ctx, request, attempt, outcome, this.deps.actor);
      if (event) this.report(request, event);
    } catch (error) {
      if (error instanceof DomainError) {
        // The claim ran out and another worker took the request over: its result is the one that counts.
        log.warn({ code: error.code }, 'populate worker: result not recorded, the claim was lost');
        return;
      }
      // The claim stays; the request is taken again when its lease runs out.
      log.error({ err: error }, 'populate worker: could not record the outcome of a call');
    }
  }

  private async outcomeOf(
    answer: OperatorAnswer,
    attempt: number,
    customerCategory: string,
    throttle: SlidingWindowThrottle,
  ): Promise<PopulateOutcome> {
    switch (answer.kind) {
      case 'found':
        return { kind: 'found', customerCategory, address: answer.supplyPoint.address, details: answer.supplyPoint.details };
      case 'refused':
        return { kind: 'refused', reason: answer.reason };
      case 'aborted':
        return { kind: 'released', reason: 'The worker stopped before the operator answered.' };
      case 'transient': {
        const now = this.deps.ctx.clock().getTime();
        const policy = this.options.retry;
        // The operator said when to come back: nothing goes to it before then, not only this request.
        if (answer.retryAfterMs !== null) await throttle.pauseUntil(now + Math.min(answer.retryAfterMs, policy.maxRetryAfterMs));
        const retryAt = new Date(now + retryDelayMs(policy, attempt, answer.retryAfterMs)).toISOString();
        return { kind: 'transient', reason: answer.reason, retryAt, maxAttempts: policy.maxAttempts };
      }
    }
  }

  private report(request: PopulateRequestRef, event: SupplyPointPopulateRequestEvent): void {
    const progress = progressOf(request, event);
    if (progress) this.deps.onProgress?.(progress);
  }
}
