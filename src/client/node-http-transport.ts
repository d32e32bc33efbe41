import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * A transport for openapi-fetch on Node's http client with a keep-alive agent, for a client sharing the
 * machine with the service (migrate): WHATWG fetch's objects and streams cost CPU the service would use.
 * The two classes below implement just what openapi-fetch uses. Only no answer at all rejects (`NoAnswer`).
 */

/** No answer at all: connection refused or reset, DNS, or the per-request timeout. Always transient. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
}

export interface NodeHttpTransportOptions {
  /** Time allowed without activity on one request's socket, answer included. */
  readonly timeoutMs: number;
  /** Connections kept open to the service (a client's concurrency, and a few more). */
  readonly maxSockets?: number;
}

/** A request as the transport sends it: the whole URL, the method, the headers and the body as a string. */
export interface PlainRequestInit {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/** An answer read in full: the members of a fetch Response that openapi-fetch reads. */
export interface PlainAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The JSON body, or its text when it is not JSON (a front's page): never thrown. */
  json(): Promise<unknown>;
}

/** An answer whose body is read as it arrives. */
export interface StreamedAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** The body's bytes; a broken transfer (the service cut it) ends it with an error, never quietly. */
  readonly body: AsyncIterable<Buffer>;
}

export interface NodeHttpTransport {
  /** Sends one request as given, without openapi-fetch's runtime, for a caller typing it from the document itself. */
  readonly send: (request: PlainRequestInit) => Promise<PlainAnswer>;
  /** Sends one request and resolves once the answer's head is in, its body read as it arrives (an export of any length). */
  readonly stream: (request: PlainRequestInit) => Promise<StreamedAnswer>;
  /** For openapi-fetch's `fetch` option. */
  readonly fetch: (input: Request) => Promise<Response>;
  /** For openapi-fetch's `Request` option. */
  readonly Request: typeof Request;
  /** Closes the kept-alive connections. */
  close(): void;
}

type HeaderSource = Headers | Record<string, string> | [string, string][] | undefined;

/** The request openapi-fetch builds: its URL, method, headers and serialised body, nothing else. */
class PlainRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string> = {};
  readonly body: string | null;

  constructor(input: string | URL, init: { method?: string; headers?: HeaderSource; body?: unknown } = {}) {
    this.url = String(input);
    this.method = (init.method ?? 'GET').toUpperCase();
    const headers = init.headers;
    if (headers instanceof Headers) headers.forEach((value, name) => (this.headers[name] = value));
    else if (Array.isArray(headers)) for (const [name, value] of headers) this.headers[name.toLowerCase()] = value;
    else if (headers) for (const [name, value] of Object.entries(headers)) this.headers[name.toLowerCase()] = value;
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new TypeError('the node:http transport sends string bodies only (openapi-fetch serialises JSON to a string)');
    }
    this.body = (init.body as string | null | undefined) ?? null;
  }
}

const first = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
};

/** The answer, read in full: what openapi-fetch reads of a Response. */
class PlainResponse implements PlainAnswer {
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };

  constructor(
    readonly status: number,
    raw: IncomingHttpHeaders,
    private readonly text_: string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = { get: (name) => first(raw, name) };
  }

  text(): Promise<string> {
    return Promise.resolve(this.text_);
  }

  json(): Promise<unknown> {
    if (!/json/i.test(this.headers.get('content-type') ?? '')) return Promise.resolve(this.text_);
    try {
      return Promise.resolve(JSON.parse(this.text_) as unknown);
    } catch {
      return Promise.resolve(this.text_);
    }
  }
}

export function createNodeHttpTransport(options: NodeHttpTransportOptions): NodeHttpTransport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
  const httpAgent = new HttpAgent(agentOptions);
  let httpsAgent: HttpsAgent | null = null;

  /** Sends the request; `onAnswer` gets the answer's head and body stream. */
  const open = (request: PlainRequestInit, onAnswer: (res: IncomingMessage, fail: (error: Error) => void) => void, reject: (error: Error) => void) => {
    const url = new URL(request.url);
    const https = url.protocol === 'https:';
    const fail = (error: Error) => reject(new NoAnswer(`${request.method} ${url.pathname}: ${error.message}`));
    const headers = request.body === null ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    const req = (https ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        agent: https ? (httpsAgent ??= new HttpsAgent(agentOptions)) : httpAgent,
        headers,
      },
      (res) => onAnswer(res, fail),
    );
    req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', fail);
    req.end(request.body ?? undefined);
  };

  const stream = (request: PlainRequestInit): Promise<StreamedAnswer> =>
    new Promise((resolve, reject) =>
      open(
        request,
        (res) => {
          const status = res.statusCode ?? 0;
          resolve({ status, ok: status >= 200 && status < 300, headers: { get: (name) => first(res.headers, name) }, body: res });
        },
        reject,
      ),
    );

  const send = (request: PlainRequestInit): Promise<PlainResponse> =>
    new Promise((resolve, reject) =>
      open(
        request,
        (res, fail) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('end', () => resolve(new PlainResponse(res.statusCode ?? 0, res.headers, Buffer.concat(chunks).toString('utf8'))));
        },
        reject,
      ),
    );

  return {
    send,
    stream,
    // The casts are the seam: openapi-fetch is typed against the DOM classes, and uses only the members above.
    fetch: (input) => send(input as unknown as PlainRequest) as unknown as Promise<Response>,
    Request: PlainRequest as unknown as typeof Request,
    close: () => {
      httpAgent.destroy();
      httpsAgent?.destroy();
    },
  };
}
