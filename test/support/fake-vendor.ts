import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake payment vendor answers for one reference. */
export type FakeVendorAnswer =
  | { readonly kind: 'found'; readonly body?: Record<string, unknown> }
  | { readonly kind: 'not-found'; readonly message?: string }
  /** Never answers (until the server closes): a hang past the adapter's timeout. */
  | { readonly kind: 'hang' }
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown };

export interface FakeVendorHit {
  readonly reference: string;
  readonly accept: string | undefined;
  readonly method: string;
}

export interface FakeVendor {
  /** Base URL, e.g. http://127.0.0.1:PORT/v1 */
  readonly url: string;
  readonly hits: FakeVendorHit[];
  /** Answers for `reference` from now on. Unscripted references are not found. */
  script(reference: string, answer: FakeVendorAnswer): void;
  close(): Promise<void>;
}

/** What the fake vendor returns for a known instruction: the contract's fields plus details kept as given. */
export function instructionBody(reference: string): Record<string, unknown> {
  return {
    reference,
    type: 'CARD',
    status: 'active',
    customer: 'cus_R4nd0m',
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
  };
}

/** A payment vendor on 127.0.0.1 (node:http), serving `GET <base>/instructions/<reference>` from a script. */
export async function startFakeVendor(basePath = '/v1'): Promise<FakeVendor> {
  const scripts = new Map<string, FakeVendorAnswer>();
  const hits: FakeVendorHit[] = [];

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const prefix = `${basePath}/instructions/`;
    if (!url.pathname.startsWith(prefix)) return send(res, 400, { message: `unexpected path ${url.pathname}` });
    const reference = decodeURIComponent(url.pathname.slice(prefix.length));
    hits.push({ reference, accept: req.headers.accept, method: req.method ?? '' });
    const answer = scripts.get(reference) ?? { kind: 'not-found' };
    switch (answer.kind) {
      case 'found':
        return send(res, 200, answer.body ?? instructionBody(reference));
      case 'not-found':
        return send(res, 404, { message: answer.message ?? `No such payment instruction: ${reference}` });
      case 'hang':
        return;
      case 'status':
        return send(res, answer.status, answer.body);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    hits,
    script: (reference, answer) => void scripts.set(reference, answer),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
