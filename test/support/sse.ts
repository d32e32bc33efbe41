import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

/** One server-sent event as a client reads it off the wire. */
export interface SseFrame {
  readonly event: string | undefined;
  readonly id: string | undefined;
  readonly data: string;
}

/** An app served on a free port of 127.0.0.1: what a real client connects to over TCP. */
export interface ServedApp {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveApp(app: { fetch: (request: Request, env: unknown) => Response | Promise<Response> }): Promise<ServedApp> {
  const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A live SSE connection over TCP, read frame by frame from the response body, as an EventSource (or
 * any fetch-based client) reads it.
 */
export class SseClient {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  /** A read that outlived a timeout: the next call takes its chunk rather than losing it. */
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | null = null;
  /** True once the server ended the body. */
  ended = false;

  private constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  static async open(url: string, credential: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const response = await fetch(url, { headers: { authorization: `Token ${credential}`, accept: 'text/event-stream', ...headers } });
    return new SseClient(response);
  }

  /**
   * Frames until one satisfies `until` (included), the server ends the body, or `timeoutMs` passes
   * (then what was read so far). `ended` tells which.
   */
  async readUntil(until: (frame: SseFrame) => boolean, timeoutMs: number): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        const frame = parseFrame(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
        frames.push(frame);
        if (until(frame)) return frames;
      }
      if (this.ended) return frames;
      const left = deadline - performance.now();
      if (left <= 0) return frames;
      let timer: NodeJS.Timeout | undefined;
      this.pending ??= this.reader.read();
      const chunk = await Promise.race([
        this.pending,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), left);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === null) return frames;
      this.pending = null;
      if (chunk.done) this.ended = true;
      else this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Whether the server ends the body within `timeoutMs` with no further frame. */
  async endsWithin(timeoutMs: number): Promise<boolean> {
    const more = await this.readUntil(() => true, timeoutMs);
    return more.length === 0 && this.ended;
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

function parseFrame(text: string): SseFrame {
  const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(text)?.[1];
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.replace(/^data: ?/, ''))
    .join('\n');
  return { event: field('event'), id: field('id'), data };
}
