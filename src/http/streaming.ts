import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/** Counts what a streamed body sent, for the log line at its end. */
export interface StreamTally {
  items: number;
}

/**
 * A response whose body is written as `parts` produces it, with backpressure (the next part is asked for
 * once the client took the previous one: one part in memory). A client that goes away ends `parts` (its
 * `finally` blocks run). A failure after the status was sent cuts the connection without the terminating
 * chunk: the client sees a broken transfer, never a truncated body that looks whole. One log line at the
 * end: items, bytes, time, and whether it `completed`, was `client_closed` or `failed`.
 */
export function streamedResponse(
  c: Context<AppEnv>,
  contentType: string,
  parts: AsyncIterable<string>,
  tally: StreamTally = { items: 0 },
): Response {
  const logger = c.get('logger');
  const started = performance.now();
  const iterator = parts[Symbol.asyncIterator]();
  let bytes = 0;
  let ended = false;
  const end = (outcome: 'completed' | 'client_closed' | 'failed', error?: unknown) => {
    if (ended) return;
    ended = true;
    const fields = { path: c.req.path, items: tally.items, bytes, ms: Math.round(performance.now() - started), outcome };
    if (outcome === 'failed') logger.error({ ...fields, err: error }, 'streamed response failed');
    else logger.info(fields, 'streamed response ended');
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            end('completed');
            controller.close();
            return;
          }
          const chunk = Buffer.from(next.value, 'utf8');
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
        } catch (error) {
          end('failed', error);
          controller.error(error);
        }
      },
      async cancel() {
        end('client_closed');
        await iterator.return?.();
      },
    },
    // Nothing is read ahead of the client: a part is produced when one is asked for.
    { highWaterMark: 0 },
  );
  c.header('Content-Type', contentType);
  return c.body(body);
}

/** The items of a JSON array, chunk by chunk: `[` with the first chunk, `]` after the last. */
export async function* jsonArrayParts<R>(chunks: AsyncIterable<readonly R[]>, item: (row: R) => unknown, tally: StreamTally): AsyncGenerator<string> {
  let opened = false;
  for await (const rows of chunks) {
    if (rows.length === 0) continue;
    const text = JSON.stringify(rows.map(item));
    tally.items += rows.length;
    yield opened ? `,${text.slice(1, -1)}` : text.slice(0, -1);
    opened = true;
  }
  yield opened ? ']' : '[]';
}
