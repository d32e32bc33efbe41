import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError } from '../domain/errors.js';
import type { EventStore } from '../store/event-store.js';
import type { StoredLedgerEvent } from '../store/event-store.js';
import { keyInProgress, type IdempotencyRecord, type IdempotencyRecords, type IdempotentRequest, type StoredResponse } from '../store/idempotency.js';
import type { AppEnv } from './env.js';
import { recoveries } from './idempotency-recovery.js';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/**
 * The header's value: an sf-string (`"8e03978e-..."`, as the IETF draft
 * writes it) or the bare characters; 1 to 255 printable ASCII characters.
 */
export function parseIdempotencyKey(raw: string): string | null {
  let value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (value.length < 1 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x20-\x7e]+$/.test(value)) return null;
  return value;
}

/** Answers that are not kept: a retry is meant to be tried again (server errors, throttling, a concurrency conflict). */
const isTransient = (status: number) => status >= 500 || status === 429 || status === 409;

const PURGE_EVERY = 100;

/** The content type of a response rebuilt from its events. */
const REBUILT_CONTENT_TYPE = 'application/json';

/**
 * Idempotency-Key on every POST under /v1/data-import/ (IETF draft "The
 * Idempotency-Key HTTP Header Field"; docs/reliability.md). Runs after
 * authentication (keys are per API key) and after the body was read and
 * checked (the fingerprint covers method, path, query and body).
 *
 * The key is reserved in the store before the request runs (atomically, for
 * every process on the database); every write the request makes records the
 * key with its events in their transaction (the `beforeCommit` hook the
 * request's actor carries); the response is stored once rendered. The
 * reservation, and a response that the events rebuild byte for byte, are
 * committed without waiting to be durable (a lost one is harmless: the key is
 * free again, or the retry rebuilds the same answer), so a keyed write waits
 * for one sync, its events', as an unkeyed one does. A request
 * that finds the key held gets the stored answer, 409 while the first is still
 * running, 422 if it is another request, or the response rebuilt from the
 * events when the first died between committing them and storing its answer.
 */
export function idempotency(records: IdempotencyRecords, store: EventStore, durable?: () => Promise<void>) {
  let completions = 0;
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const header = c.req.header('idempotency-key');
    if (header === undefined) return next();
    const key = parseIdempotencyKey(header);
    if (key === null) {
      throw new DomainError('invalid_idempotency_key', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`, {
        attr: 'Idempotency-Key',
      });
    }
    const url = new URL(c.req.url);
    const text = await c.req.text();
    const request: IdempotentRequest = {
      keyId: c.get('principal').keyId,
      idempotencyKey: key,
      fingerprint: createHash('sha256').update(`POST ${url.pathname}${url.search}\n${text}`, 'utf8').digest('hex'),
      requestPath: url.pathname,
    };
    const reservation = await records.reserve(request);
    if (!reservation.held) {
      const record = reservation.record;
      // Reserved, nothing recorded yet: the first request is still running (its body is not compared: nothing of it is known yet).
      if (record.response === null && record.eventPositions.length === 0) throw keyInProgress();
      if (record.fingerprint !== request.fingerprint) {
        throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.', { attr: 'Idempotency-Key' });
      }
      if (record.response) return replay(c, record.response.status, record.response.body, record.response.contentType);
      return recover(c, records, store, request, record, text);
    }

    // The events recorded with the key, as the request's writes commit them (the hook runs last in a unit
    // that then commits; it never runs for a dry run or a refused command).
    const recorded: StoredLedgerEvent[] = [];
    c.set('beforeCommit', (appended, tx) => {
      const done = reservation.beforeCommit(appended, tx);
      recorded.push(...appended);
      return done;
    });
    const rendered = renderedJson(c);
    // An error inside is answered by app.onError before this line sees it: `c.res` is always the answer.
    await next();
    if (isTransient(c.res.status)) {
      await reservation.release();
      return;
    }
    const response: StoredResponse = { status: c.res.status, body: await rendered.text(c.res), contentType: c.res.headers.get('content-type') };
    if (await rebuildsTo(request, () => c.req.json(), recorded, reservation.reservedAt, response)) {
      // Its events are committed with the key, and a retry that finds no response rebuilds this very one
      // from them: the response is stored (committed, so a retry finds it) without waiting for it to be on
      // disk, and the answer waits only for what was written before it (the events and anything it read).
      const written = durable?.();
      written?.catch(() => undefined); // awaited by the app's durability middleware; not unhandled if the store below throws
      await reservation.complete(response, { rebuildable: true });
      if (written) c.set('durableAnswer', written);
    } else {
      await reservation.complete(response);
    }
    if (++completions % PURGE_EVERY === 0) await records.purgeExpired();
  });
}

/**
 * The text of the answer the request renders, without reading it back from the response: the last value
 * given to `c.json` and the response that made, kept as `JSON.stringify` of that value (the very bytes
 * Hono sends). Reading `c.res` back (`clone().text()`) turned @hono/node-server's lightweight response into
 * a WHATWG one, its body teed into two streams, and sent it down the streaming path: the largest part of
 * what an Idempotency-Key cost the service (profile of the migrate bench). An answer made otherwise (not
 * through `c.json`, or replaced since) is read back as before.
 */
function renderedJson(c: Context<AppEnv>): { text(res: Response): Promise<string> } {
  let last: { res: Response; value: unknown } | null = null;
  const json = c.json as unknown as (...args: unknown[]) => Response;
  c.json = ((...args: unknown[]) => {
    const res = json(...args);
    last = { res, value: args[0] };
    return res;
  }) as unknown as typeof c.json;
  return {
    text: async (res) => {
      const made: { res: Response; value: unknown } | null = last;
      return made !== null && made.res === res ? JSON.stringify(made.value) : res.clone().text();
    },
  };
}

/**
 * Whether a retry that finds the request's events and no response would answer
 * exactly `response`: the rebuild (idempotency-recovery.ts) from the same
 * request and the events the request recorded with its key gives the same
 * status, content type and body, byte for byte. Checked on every answer, so
 * an endpoint without a rebuild, or one whose rebuild differs in any case, is
 * simply awaited as before.
 */
async function rebuildsTo(
  request: IdempotentRequest,
  body: () => Promise<unknown>,
  recorded: readonly StoredLedgerEvent[],
  reservedAt: string,
  response: StoredResponse,
): Promise<boolean> {
  const recover = recoveries[request.requestPath];
  if (!recover || recorded.length === 0 || response.contentType !== REBUILT_CONTENT_TYPE) return false;
  try {
    const events = [...recorded].sort((a, b) => a.globalPosition - b.globalPosition);
    // The body as the body middleware parsed it (c.req.json()), not parsed again.
    const rebuilt = recover(await body(), events, reservedAt);
    return rebuilt !== null && rebuilt.status === response.status && JSON.stringify(rebuilt.body) === response.body;
  } catch {
    return false;
  }
}

function replay(c: Context<AppEnv>, status: number, body: string, contentType: string | null): Response {
  c.header('Idempotent-Replayed', 'true');
  if (contentType) c.header('Content-Type', contentType);
  return c.body(body, status as ContentfulStatusCode);
}

/**
 * The first request's events were committed with its key but its response was
 * not (the process died in between): the response is rebuilt from the events
 * and stored, and the retry gets it like any replay.
 */
async function recover(
  c: Context<AppEnv>,
  records: IdempotencyRecords,
  store: EventStore,
  request: IdempotentRequest,
  record: IdempotencyRecord,
  text: string,
): Promise<Response> {
  const positions = [...record.eventPositions].sort((a, b) => a - b);
  const wanted = new Set(positions);
  const first = positions[0] ?? 1;
  const last = positions[positions.length - 1] ?? 0;
  const events = (await store.readAll(first - 1, Math.max(1, last - first + 1))).filter((stored) => wanted.has(stored.globalPosition));
  const recovered = recoveries[record.requestPath]?.(JSON.parse(text) as unknown, events, record.createdAt) ?? null;
  if (!recovered) {
    throw new DomainError('idempotency_response_lost', 'The request with this Idempotency-Key was applied, but its response could not be rebuilt.', {
      attr: 'Idempotency-Key',
    });
  }
  const body = JSON.stringify(recovered.body);
  const contentType = REBUILT_CONTENT_TYPE;
  await records.complete(request, { status: recovered.status, body, contentType });
  return replay(c, recovered.status, body, contentType);
}
