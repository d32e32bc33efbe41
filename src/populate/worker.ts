import type { SupplyPointPopulateRequestEvent } from '../../events/supply-point-populate.js';
import type { Logger } from 'pino';
import { networkOperatorsFromConfig, OPERATOR_URL_ENV, type NetworkOperator, type OperatorAnswer } from '../adapters/network-operators.js';
import type { Actor } from '../application/context.js';
import { claimPopulateRequest, recordPopulateOutcome, type PopulateOutcome } from '../application/supply-point-populate.js';
import type { LedgerConfig } from '../config.js';
import { SUPPLY_TYPES, type SupplyType } from '../domain/account-import-process/identifiers.js';
import { DomainError } from '../domain/errors.js';
import { effectiveConfigValue } from '../domain/service-config/service-config-settings.js';
import type { PopulateRequestRef } from '../domain/supply-point/populate-request-decider.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type PopulateRetryPolicy } from '../domain/supply-point/retry-policy.js';
import type { Ledger } from '../ledger.js';
import type { DuePopulateRequest } from '../queries/supply-point-read-models.js';
import { InProcessLimits, type SharedLimits } from '../store/shared-limits.js';
import { BackgroundWorker, claimUnlessTaken, type Next, type WorkerDeps } from '../worker/background-worker.js';
import { realSleep, type Sleep } from '../worker/sleep.js';
import { progressOf, type PopulateProgress } from './progress.js';
import { SlidingWindowThrottle } from './throttle.js';

export type { PopulateProgress } from './progress.js';

export interface PopulateWorkerOptions {
  readonly retry: PopulateRetryPolicy;
  /** How long a claim holds: longer than an operator call can take (its timeout), with a margin. */
  readonly leaseMs: number;
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

export interface PopulateWorkerDeps extends WorkerDeps<PopulateWorkerOptions> {
  readonly operators: Readonly<Record<SupplyType, NetworkOperator>>;
  /** Where the throttles count call starts: the ledger's, shared by every PostgreSQL instance so the rate holds for the cluster. */
  readonly limits?: SharedLimits;
  readonly onProgress?: (progress: PopulateProgress) => void;
}

/** The populate worker the server and `import-ledger populate run` use: operators and timeouts from the environment. */
export function populateWorkerFromConfig(
  ledger: Ledger,
  config: LedgerConfig,
  logger: Logger,
  actor: Actor,
  onProgress?: (progress: PopulateProgress) => void,
): PopulateWorker {
  const operators = networkOperatorsFromConfig(config, ledger.clock);
  const log = logger.child({ component: 'populate-worker' });
  for (const supplyType of SUPPLY_TYPES) {
    if (operators[supplyType].unavailableReason !== null) {
      log.warn({ supplyType, env: OPERATOR_URL_ENV[supplyType] }, `${OPERATOR_URL_ENV[supplyType]} is not set: ${supplyType} populate requests will error`);
    }
  }
  const options = { leaseMs: leaseForTimeout(config.LEDGER_OPERATOR_TIMEOUT_MS) };
  return new PopulateWorker({ ctx: ledger, limits: ledger.limits, operators, logger: log, actor, onProgress, options });
}

const key = (r: { batchId: string; sequence: number }) => `${r.batchId}:${r.sequence}`;

/** Requests tried for one throttle slot before it is left unused (other workers took them all first). */
const MAX_CLAIM_TRIES = 8;

/**
 * Takes pending populate requests, oldest first, and asks the operators for them: one lane per operator,
 * each throttled to `populate-rate-per-second` call starts a second (across every PostgreSQL instance).
 * Every step is an event, so a worker started after a crash carries on from the log: ended requests are
 * never taken again, waiting ones when their retry time comes, claimed ones when the dead worker's lease runs out.
 */
export class PopulateWorker {
  private readonly lanes: readonly BackgroundWorker[];

  constructor(deps: PopulateWorkerDeps) {
    const options = { ...DEFAULT_WORKER_OPTIONS, ...deps.options };
    const sleep = deps.sleep ?? realSleep;
    const limits = deps.limits ?? new InProcessLimits(deps.ctx.clock);
    this.lanes = SUPPLY_TYPES.map((supplyType) => {
      const throttle = new SlidingWindowThrottle(deps.ctx.clock, sleep, limits, `populate:${supplyType}`);
      const lane = new PopulateLane(deps, options, sleep, deps.operators[supplyType], throttle);
      const logger = deps.logger.child({ supplyType });
      const turn = (signal: AbortSignal) => lane.turn(signal);
      return new BackgroundWorker({ name: 'populate worker', logger, idlePollMs: options.idlePollMs, sleep, turn, settle: () => lane.settle() });
    });
  }

  start(): void {
    for (const lane of this.lanes) lane.start();
  }

  /** Works until every request of the queue has ended (or `stop()` is called), then resolves. */
  async drain(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.drain()));
  }

  /** Aborts the calls in flight, each giving its claim back (not counted); one still running after `stopGraceMs` keeps it until its lease ends. */
  async stop(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.stop()));
  }
}

/** One operator's queue: up to `maxInFlightPerOperator` calls at once, their starts spaced by the throttle. */
class PopulateLane {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: PopulateWorkerDeps,
    private readonly options: PopulateWorkerOptions,
    private readonly sleep: Sleep,
    private readonly operator: NetworkOperator,
    private readonly throttle: SlidingWindowThrottle,
  ) {}

  /** Starts at most one call, or says what to wait for. */
  async turn(signal: AbortSignal): Promise<Next> {
    const { ctx } = this.deps;
    const inFlight = this.inFlight;
    if (inFlight.size >= this.options.maxInFlightPerOperator) return { until: Promise.race(inFlight.values()) };
    const now = ctx.clock().toISOString();
    const candidates = await ctx.read.duePopulateRequests(this.operator.supplyType, now, inFlight.size + 1);
    const due = candidates.find((candidate) => !inFlight.has(key(candidate)));
    if (!due) {
      const queue = await ctx.read.populateQueueState(this.operator.supplyType);
      if (queue.unfinished === 0) return 'done';
      // Until the next request is due (at most `idlePollMs`), or until a call in flight ends.
      const untilDue = queue.nextDueAt === null ? Infinity : Date.parse(queue.nextDueAt) - ctx.clock().getTime();
      return { until: Promise.race([this.sleep(Math.min(Math.max(untilDue, 1), this.options.idlePollMs), signal), ...inFlight.values()]) };
    }
    // An operator that is not configured is not called, so it takes no slot of the throttle.
    if (this.operator.unavailableReason === null && !(await this.throttle.acquire(() => this.rate(), signal))) return 'again';
    const claimed = await this.claimWithSlot(due, now);
    if (claimed !== null) {
      const call = this.attempt(claimed.due, claimed.attempt, signal).finally(() => inFlight.delete(key(claimed.due)));
      inFlight.set(key(claimed.due), call);
    }
    return 'again';
  }

  /** Waits for the calls in flight, at most `stopGraceMs`. */
  async settle(): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    // Real time on purpose: this bounds real I/O (the aborted calls and their writes), not a modelled delay.
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.stopGraceMs)));
    await Promise.race([Promise.allSettled(this.inFlight.values()), grace]);
    clearTimeout(timer);
  }

  private async rate(): Promise<number> {
    const stored = await this.deps.ctx.read.configValue('populate-rate-per-second');
    return effectiveConfigValue('populate-rate-per-second', stored) ?? 1;
  }

  private refOf(due: DuePopulateRequest): PopulateRequestRef {
    return { batchId: due.batchId, sequence: due.sequence, supplyType: due.supplyType, identifier: due.identifier };
  }

  /**
   * Claims `due`, or the next due request when another worker claimed it first: the throttle's slot is taken,
   * and giving it up would slow the cluster below its rate whenever two workers race. Null when nothing could be claimed.
   */
  private async claimWithSlot(due: DuePopulateRequest, now: string): Promise<{ due: DuePopulateRequest; attempt: number } | null> {
    const inFlight = this.inFlight;
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

  /** The attempt number; `lost` to another worker; `ended` when it errored on the spot (no attempts left, or no operator). */
  private async claim(due: DuePopulateRequest): Promise<number | 'lost' | 'ended'> {
    const request = this.refOf(due);
    const lease = { leaseMs: this.options.leaseMs, maxAttempts: this.options.retry.maxAttempts };
    const claimed = await claimUnlessTaken(claimPopulateRequest(this.deps.ctx, request, lease, this.deps.actor));
    if (claimed === null) return 'lost';
    if (claimed.kind === 'claimed') return claimed.attempt;
    this.deps.onProgress?.({ kind: 'errored', request, attempt: claimed.attempt, reason: claimed.reason });
    return 'ended';
  }

  private async attempt(due: DuePopulateRequest, attempt: number, signal: AbortSignal): Promise<void> {
    const request = this.refOf(due);
    const log = this.deps.logger.child({ batchId: due.batchId, supplyType: due.supplyType, identifier: due.identifier, attempt });
    try {
      const answer = await this.operator.fetchSupplyPoint(due.identifier, signal);
      const outcome = await this.outcomeOf(answer, attempt, due.customerCategory);
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

  private async outcomeOf(answer: OperatorAnswer, attempt: number, customerCategory: string): Promise<PopulateOutcome> {
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
        if (answer.retryAfterMs !== null) await this.throttle.pauseUntil(now + Math.min(answer.retryAfterMs, policy.maxRetryAfterMs));
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
