import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake operator answers one call. */
export type FakeAnswer =
  | { readonly kind: 'found'; readonly body?: Record<string, unknown> }
  | { readonly kind: 'not-found'; readonly message?: string }
  /** Answers `found` after `delayMs` of real time (longer than the adapter's timeout in the tests). */
  | { readonly kind: 'slow'; readonly delayMs: number }
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string; readonly body?: unknown };

export interface FakeOperatorHit {
  readonly id: string;
  readonly accept: string | undefined;
  readonly method: string;
}

export interface FakeOperator {
  /** Base URL, e.g. http://127.0.0.1:PORT/api */
  readonly url: string;
  readonly hits: FakeOperatorHit[];
  hitsFor(id: string): number;
  /** Answers for `id`, one per call in order; the last one repeats. Unscripted ids are not found. */
  script(id: string, answers: readonly FakeAnswer[]): void;
  close(): Promise<void>;
}

/** What the fake operator returns for a known supply point: the contract's fields plus details to be kept as given. */
export function supplyPointBody(id: string): Record<string, unknown> {
  return {
    identifier: id,
    address: { line1: '12 rue des Lilas', postcode: '69003', city: 'Lyon', line2: 'Bâtiment B' },
    meter: { serial_number: `M-${id}`, type: 'SMART', registers: [{ id: 'HP' }, { id: 'HC' }] },
    contract: { subscribed_power_kva: 6, tariff_option: 'BASE' },
    segment: 'C5',
  };
}

/** A network operator on 127.0.0.1 (node:http), serving `GET <base>/supply-points/<id>` from a script. */
export async function startFakeOperator(basePath = '/api'): Promise<FakeOperator> {
  const scripts = new Map<string, { answers: readonly FakeAnswer[]; next: number }>();
  const hits: FakeOperatorHit[] = [];
  const pending = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const prefix = `${basePath}/supply-points/`;
    if (!url.pathname.startsWith(prefix)) return send(res, 400, { message: `unexpected path ${url.pathname}` });
    const id = decodeURIComponent(url.pathname.slice(prefix.length));
    hits.push({ id, accept: req.headers.accept, method: req.method ?? '' });
    const script = scripts.get(id);
    const answer: FakeAnswer = script
      ? (script.answers[Math.min(script.next++, script.answers.length - 1)] ?? { kind: 'not-found' })
      : { kind: 'not-found' };
    switch (answer.kind) {
      case 'found':
        return send(res, 200, answer.body ?? supplyPointBody(id));
      case 'not-found':
        return send(res, 404, { message: answer.message ?? `Supply point ${id} is unknown to this operator.` });
      case 'slow': {
        const timer = setTimeout(() => {
          pending.delete(timer);
          if (!res.destroyed) send(res, 200, supplyPointBody(id));
        }, answer.delayMs);
        pending.add(timer);
        return;
      }
      case 'status':
        return send(res, answer.status, answer.body, answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    hits,
    hitsFor: (id) => hits.filter((hit) => hit.id === id).length,
    script: (id, answers) => void scripts.set(id, { answers, next: 0 }),
    close: async () => {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
