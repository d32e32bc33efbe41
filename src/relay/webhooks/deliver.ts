import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
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

/**
 * POSTs a delivery over keep-alive connections (per endpoint; undici, which costs the relay thread a fraction
 * of node:http's CPU a request), following no redirect (a 3xx is a failure, as the Standard Webhooks
 * specification says), giving up after `timeoutMs` for the whole answer.
 */
export function createDeliver(options: DeliverOptions): { deliver: Deliver; close: () => void } {
  const agent = new Agent({ connections: options.maxSockets, connect: { lookup: options.lookup }, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  const deliver: Deliver = async (url, headers, body) => {
    const refused = options.refusal(url);
    if (refused !== null) return { status: null, durationMs: 0, error: refused, retryAfterMs: null };
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'import-ledger-webhooks' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const status = res.statusCode;
      if (status >= 200 && status < 300) {
        await res.body.dump();
        return { status, durationMs: took(), error: null, retryAfterMs: null };
      }
      const text = (await res.body.text()).slice(0, ERROR_BODY_BYTES) || `HTTP ${status}`;
      const retryAfter = res.headers['retry-after'];
      return { status, durationMs: took(), error: text, retryAfterMs: parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, new Date()) };
    } catch (error) {
      const message = error instanceof Error ? (error.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : error.message) : String(error);
      return { status: null, durationMs: took(), error: message, retryAfterMs: null };
    }
  };
  return { deliver, close: () => void agent.close() };
}
