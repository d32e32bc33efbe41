import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery a receiver accepted, verified with the Standard Webhooks reference library. */
export interface Received {
  readonly id: string;
  readonly timestamp: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly at: number;
}

/** What the receiver answers a delivery with (after verifying it): a status, and headers such as Retry-After. */
export type Answer = (payload: { id: string; type: string; data: Record<string, unknown> }) => { status: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  readonly url: string;
  /** Accepted deliveries (2xx answered), in arrival order. */
  readonly received: Received[];
  /** Every request, whatever it was answered. */
  readonly requests: number;
  /** Requests whose signature did not verify (answered 401). */
  readonly unverified: number;
  /** Sets what it answers from now on. */
  answer(answer: Answer): void;
  /** The secrets it verifies with (any of them may sign). */
  secrets(secrets: readonly string[]): void;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that verifies every request's signature with `standardwebhooks`. */
export async function startWebhookReceiver(secrets: readonly string[], answer: Answer = () => ({ status: 204 })): Promise<WebhookReceiver> {
  let verifiers = secrets.map((s) => new Webhook(s));
  let current = answer;
  const state = { requests: 0, unverified: 0 };
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests++;
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      let payload: { type: string; data: Record<string, unknown> } | null = null;
      for (const verifier of verifiers) {
        try {
          payload = verifier.verify(body, headers) as { type: string; data: Record<string, unknown> };
          break;
        } catch {
          // another secret may sign it
        }
      }
      if (!payload) {
        state.unverified++;
        res.writeHead(401).end();
        return;
      }
      const { status, headers: extra } = current({ id: headers['webhook-id'], ...payload });
      if (status >= 200 && status < 300) received.push({ id: headers['webhook-id'], timestamp: Number(headers['webhook-timestamp']), type: payload.type, data: payload.data, at: Date.now() });
      res.writeHead(status, extra).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get requests() {
      return state.requests;
    },
    get unverified() {
      return state.unverified;
    },
    answer: (next) => (current = next),
    secrets: (next) => (verifiers = next.map((s) => new Webhook(s))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
