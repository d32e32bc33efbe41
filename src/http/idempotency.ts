import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { REBUILT_CONTENT_TYPE, recoveryFor } from '../answers/recoveries.js';
import { DomainError } from '../domain/errors.js';
import type { EventStore } from '../store/event-store.js';
import { keyInProgress, sameResponse, type IdempotencyRecord, type IdempotencyRecords, type IdempotentRequest } from '../store/idempotency.js';
import { answeredText } from './answer.js';
import type { AppEnv } from './env.js';

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

/**
 * The paths whose requests act outside the ledger before their events are written (they call a payment
 * vendor): their key is claimed in the store before they run, so that a request with the same key sent
 * to another instance at the same time never reaches the vendor. Every other request's only effect is its
 * events, and its key is claimed with them (`with-writes`).
 */
const CLAIMED_BEFORE_RUNNING: ReadonlySet<string> = new Set([
  '/v1/data-import/payment-instruction/create/',
  '/v1/data-import/business-payment-instruction/create/',
]);

/**
 * Idempotency-Key on every POST under /v1/data-import/ (IETF draft "The Idempotency-Key HTTP Header
 * Field"; docs/reliability.md), after authentication (keys are per API key) and after the body was
 * checked (the fingerprint covers method, path, query and body).
 *
 * The key is claimed before the request runs (`ClaimMode`); every write the request makes records it
 * with its events, in their transaction, with the answer those events rebuild (src/answers/recoveries.ts),
 * so a keyed write commits once, like an unkeyed one, and only a response other than that answer is
 * stored afterwards. A request that finds the key held gets the stored answer, 409 while the first is
 * still running, 422 for another request, or the answer rebuilt from the events when the first died
 * between committing them and storing its answer.
 */
export function idempotency(records: IdempotencyRecords, store: EventStore) {
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
      // The digest of `POST <path><query>\n<body>`, fed in two parts rather than copied into one string.
      fingerprint: createHash('sha256').update(`POST ${url.pathname}${url.search}\n`, 'utf8').update(text, 'utf8').digest('hex'),
      requestPath: url.pathname,
    };
    const reservation = await records.reserve(request, {
      claim: CLAIMED_BEFORE_RUNNING.has(url.pathname) ? 'store' : 'with-writes',
      answerFrom: { body: await parsedBody(c) },
    });
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

    // Every write of the request records its events with the key, and the answer they rebuild (the hook runs
    // last in a unit that then commits; it never runs for a refused command).
    c.set('beforeCommit', reservation.beforeCommit);
    try {
      // An error inside is answered by app.onError before this line sees it: `c.res` is always the answer.
      await next();
      if (isTransient(c.res.status)) {
        await reservation.release();
        return;
      }
      const response = { status: c.res.status, body: await answeredText(c), contentType: c.res.headers.get('content-type') };
      const recorded = reservation.recordedAnswer();
      if (recorded && sameResponse(recorded, response)) await reservation.keepRecorded();
      else await reservation.complete(response);
    } catch (error) {
      await reservation.release().catch(() => undefined);
      throw error;
    } finally {
      c.set('beforeCommit', undefined);
    }
    if (++completions % PURGE_EVERY === 0) await records.purgeExpired();
  });
}

/** The request's JSON body as the body middleware parsed it (`undefined` if it is not JSON). */
async function parsedBody(c: Context<AppEnv>): Promise<unknown> {
  try {
    return (await c.req.json()) as unknown;
  } catch {
    return undefined;
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
  const recovered = recoveryFor(record.requestPath)?.(JSON.parse(text) as unknown, events, record.createdAt) ?? null;
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
