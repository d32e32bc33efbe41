import type { Logger } from 'pino';
import type { Actor, LedgerContext } from '../application/context.js';
import { DomainError } from '../domain/errors.js';
import { ConcurrencyError } from '../store/event-store.js';
import { realSleep, type Sleep } from './sleep.js';

export interface WorkerDeps<Options> {
  readonly ctx: LedgerContext;
  readonly logger: Logger;
  /** Recorded as the actor of the worker's events. */
  readonly actor: Actor;
  /** Defaults to real time; tests pass one that advances the ledger's clock. */
  readonly sleep?: Sleep;
  readonly options?: Partial<Options>;
}

/** What a turn asks of the loop: turn again at once, wait `idlePollMs`, wait for `until` (or a stop), or `done`: a drain ends, a serving worker waits. */
export type Next = 'again' | 'idle' | 'done' | { readonly until: Promise<unknown> };

export interface BackgroundWorkerOptions {
  readonly name: string;
  readonly logger: Logger;
  /** Claims what is due and runs it, or hands it off and says when to look again. */
  readonly turn: (signal: AbortSignal) => Promise<Next>;
  /** How long an idle worker waits before it looks again, and the first wait after a failed turn. */
  readonly idlePollMs: number;
  /** The longest wait after failed turns in a row (each doubles it): how soon a recovered store is seen. */
  readonly maxBackoffMs?: number;
  /** Defaults to real time; tests pass one that advances a test clock. */
  readonly sleep?: Sleep;
  /** Once the loop has ended, waits for the work the turns handed off; it does not throw. */
  readonly settle?: () => Promise<void>;
}

/**
 * The loop every background worker runs: take a turn, wait when idle, back off while turns fail (the store
 * is down, a lock timed out) without ever giving up, and stop once the turn in hand and the handed-off
 * work have settled. The work's guarantees (a lease per claim, each item at most once) belong to the turn.
 */
export class BackgroundWorker {
  private stopping = new AbortController();
  private running: Promise<void> | null = null;

  constructor(private readonly loop: BackgroundWorkerOptions) {}

  /** Aborted by `stop()` until the next start, so a one-off pass run with it ends early on stop too. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Runs in the background until `stop()`; starting a running worker does nothing. */
  start(): void {
    if (!this.running) void this.launch(false);
  }

  /** Runs until a turn finds nothing left to do, or until `stop()`. */
  async drain(): Promise<void> {
    if (this.running) throw new Error(`the ${this.loop.name} is already running`);
    await this.launch(true);
  }

  /** Takes no new turn; resolves once the turn in hand and the handed-off work have settled. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private launch(drain: boolean): Promise<void> {
    this.stopping = new AbortController();
    this.running = this.turns(this.stopping.signal, drain).finally(() => (this.running = null));
    return this.running;
  }

  private async turns(signal: AbortSignal, drain: boolean): Promise<void> {
    const { name, logger, turn, idlePollMs, maxBackoffMs = 30_000, sleep = realSleep } = this.loop;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    let failures = 0;
    try {
      while (!signal.aborted) {
        try {
          const next = await turn(signal);
          failures = 0;
          if (next === 'done' && drain) return;
          if (next === 'idle' || next === 'done') await sleep(idlePollMs, signal);
          else if (next !== 'again') await Promise.race([next.until, stopped]);
        } catch (error) {
          failures++;
          logger.error({ err: error, failures }, `${name}: could not read or record; retrying`);
          await sleep(Math.min(idlePollMs * 2 ** (failures - 1), maxBackoffMs), signal);
        }
      }
    } finally {
      await this.loop.settle?.();
    }
  }
}

/** A worker whose turn is one pass over what is due (`runEachDueOnce`): again at once while a pass ran something, else idle. */
export abstract class PassWorker extends BackgroundWorker {
  constructor(name: string, deps: Pick<WorkerDeps<unknown>, 'logger' | 'sleep'>, idlePollMs: number) {
    super({ name, logger: deps.logger, idlePollMs, sleep: deps.sleep, turn: async (signal) => ((await this.pass(signal)) > 0 ? 'again' : 'idle') });
  }

  /** One pass over what is due now, each item at most once; returns how many ran. */
  protected abstract pass(signal: AbortSignal): Promise<number>;
}

/** The claim, or null when another worker claimed, finished or changed the work since we read it: losing that race is no error. */
export async function claimUnlessTaken<T>(claim: Promise<T>): Promise<T | null> {
  try {
    return await claim;
  } catch (error) {
    if (error instanceof DomainError || error instanceof ConcurrencyError) return null;
    throw error;
  }
}

/**
 * One pass over a queue read oldest first (`read(limit)`: the first `limit` items due now), each item at
 * most once: it reads again past the items seen until nothing new is due, so an item that stays due (lost
 * to another worker, or failed for now) is not taken twice. `keyOf` is null for an item that cannot be
 * taken; `run` answers false for one that was not this worker's. Returns how many ran.
 */
export async function runEachDueOnce<T>(
  queue: { read(limit: number): Promise<readonly T[]>; keyOf(item: T): string | null; run(item: T): Promise<boolean>; batchSize: number },
  signal: AbortSignal,
): Promise<number> {
  const seen = new Set<string>();
  let ran = 0;
  while (!signal.aborted) {
    const fresh = (await queue.read(queue.batchSize + seen.size)).flatMap((item) => {
      const key = queue.keyOf(item);
      return key === null || seen.has(key) ? [] : [{ item, key }];
    });
    if (fresh.length === 0) break;
    for (const { item, key } of fresh) {
      if (signal.aborted) break;
      seen.add(key);
      if (await queue.run(item)) ran++;
    }
  }
  return ran;
}
