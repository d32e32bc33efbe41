import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
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
 * POSTs a delivery over keep-alive connections (per endpoint), following no redirect (a 3xx is a failure,
 * as the Standard Webhooks specification says), giving up after `timeoutMs` for the whole answer.
 */
export function createDeliver(options: DeliverOptions): { deliver: Deliver; close: () => void } {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, lookup: options.lookup };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const deliver: Deliver = (url, headers, body) =>
    new Promise((resolve) => {
      const refused = options.refusal(url);
      if (refused !== null) return resolve({ status: null, durationMs: 0, error: refused, retryAfterMs: null });
      const started = performance.now();
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const done = (status: number | null, error: string | null, retryAfterMs: number | null = null) =>
        resolve({ status, durationMs: Math.round(performance.now() - started), error, retryAfterMs });
      const send = secure ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        lookup: options.lookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'import-ledger-webhooks' },
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const kept: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (!ok && size < ERROR_BODY_BYTES) kept.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const text = ok ? null : Buffer.concat(kept).toString('utf8').slice(0, ERROR_BODY_BYTES) || `HTTP ${status}`;
          const retryAfter = res.headers['retry-after'];
          done(status, text, parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, new Date()));
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          done(status, error.message);
        });
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        done(null, error.message);
      });
      req.end(body);
    });
  return {
    deliver,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
