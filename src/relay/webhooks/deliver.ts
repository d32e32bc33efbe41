import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../../adapters/network-operators.js';

/** What one POST to a receiver came to. */
export interface DeliveryResult {
  /** The receiver's status; null when none came (refused address, connection error, timeout). */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it is no delivery: the transport's error, or the first bytes of a non-2xx body. */
  readonly error: string | null;
  /** The receiver's Retry-After, in ms. */
  readonly retryAfterMs: number | null;
}

export interface DeliverOptions {
  readonly timeoutMs: number;
  /**
   * Resolves the receiver's host and refuses an address it must not reach (src/relay/webhooks/destination.ts):
   * the connection goes to the address checked, so a DNS change between checks cannot redirect it.
   */
  readonly lookup: LookupFunction;
  /** Why the URL may not be posted to at all (an address literal is never looked up); null: it may. */
  readonly refusal: (url: string) => string | null;
  /** Connections kept open to one receiver. */
  readonly maxSockets: number;
}

export type Deliver = (url: string, headers: Record<string, string>, body: string) => Promise<DeliveryResult>;

/** Bytes of a failed answer kept as its error. */
const ERROR_BODY_BYTES = 200;

/** One POST in flight: undici's handler of its answer, settled once (answer, error or timeout). */
class Attempt implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status: number | null = null;
  private retryAfter: string | null = null;
  private readonly errorBody: Buffer[] = [];
  private errorBytes = 0;
  private settled = false;

  constructor(
    private readonly started: number,
    /** When the whole answer must have come by (performance.now()). */
    readonly deadline: number,
    private readonly resolve: (result: DeliveryResult) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error('timed out'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.status = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = typeof retryAfter === 'string' ? retryAfter : null;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.status !== null && this.status >= 200 && this.status < 300) return;
    if (this.errorBytes >= ERROR_BODY_BYTES) return;
    this.errorBody.push(chunk);
    this.errorBytes += chunk.length;
  }

  onResponseEnd(): void {
    const status = this.status!;
    if (status >= 200 && status < 300) return this.settle({ status, error: null, retryAfterMs: null });
    const text = Buffer.concat(this.errorBody).toString('utf8').slice(0, ERROR_BODY_BYTES) || `HTTP ${status}`;
    this.settle({ status, error: text, retryAfterMs: parseRetryAfter(this.retryAfter, new Date()) });
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.settle({ status: null, error: error.message, retryAfterMs: null });
  }

  /** The deadline passed: no delivery, and the request is given up. */
  timeOut(timeoutMs: number): void {
    this.settle({ status: null, error: `no answer within ${timeoutMs} ms`, retryAfterMs: null });
    this.controller?.abort(new Error('timed out'));
  }

  get done(): boolean {
    return this.settled;
  }

  private settle(result: Omit<DeliveryResult, 'durationMs'>): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve({ ...result, durationMs: Math.round(performance.now() - this.started) });
  }
}

/**
 * POSTs a delivery over keep-alive connections (per endpoint), following no redirect (a 3xx is a failure, as
 * the Standard Webhooks specification says), giving up after `timeoutMs` for the whole answer. It goes through
 * undici's `dispatch`, the layer its `request` is built on, without a body stream, a promise chain or an
 * AbortSignal and timer per delivery: one sweep a beat times out what is late.
 */
export function createDeliver(options: DeliverOptions): { deliver: Deliver; close: () => void } {
  const { timeoutMs } = options;
  const agent = new Agent({ connections: options.maxSockets, connect: { lookup: options.lookup, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const inFlight = new Set<Attempt>();
  // The sweep's beat bounds how late past `timeoutMs` an attempt is given up.
  const beatMs = Math.max(10, Math.min(1_000, Math.round(timeoutMs / 10)));
  let sweeper: NodeJS.Timeout | null = null;
  const sweep = () => {
    const now = performance.now();
    for (const attempt of inFlight) {
      if (attempt.done) inFlight.delete(attempt);
      else if (attempt.deadline <= now) {
        attempt.timeOut(timeoutMs);
        inFlight.delete(attempt);
      }
    }
    if (inFlight.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  };
  // One endpoint posts to one URL: its parts are worked out once.
  let target: { url: string; origin: string; path: string } | null = null;
  const deliver: Deliver = (url, headers, body) => {
    const refused = options.refusal(url);
    if (refused !== null) return Promise.resolve({ status: null, durationMs: 0, error: refused, retryAfterMs: null });
    if (target?.url !== url) {
      const parsed = new URL(url);
      target = { url, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    }
    const { origin, path } = target;
    return new Promise<DeliveryResult>((resolve) => {
      const started = performance.now();
      const attempt = new Attempt(started, started + timeoutMs, resolve);
      inFlight.add(attempt);
      sweeper ??= setInterval(sweep, beatMs).unref();
      try {
        agent.dispatch({ origin, path, method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'import-ledger-webhooks' }, body }, attempt);
      } catch (error) {
        attempt.onResponseError(null, error instanceof Error ? error : new Error(String(error)));
      }
    });
  };
  return {
    deliver,
    close: () => {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      void agent.close();
    },
  };
}
