import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError } from '../domain/errors.js';
import type { EventStore } from '../store/event-store.js';
import type { IdempotencyRecords, IdempotentRequest } from '../store/idempotency-records.js';
import type { IdempotencyKeyRow } from '../store/idempotency-schema.js';
import type { AppEnv } from './env.js';
import { errorResponse, toDomainError } from './errors.js';
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

/**
 * Idempotency-Key on every POST under /v1/data-import/ (IETF draft "The
 * Idempotency-Key HTTP Header Field"; docs/reliability.md). Runs after
 * authentication (keys are per API key) and after the body was read and
 * checked (the fingerprint covers method, path, query and body).
 */
export function idempotency(records: IdempotencyRecords, store: EventStore) {
  const inFlight = new Set<string>();
  let completions = 0;
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const header = c.req.header('idempotency-key');
    if (header === undefined) return next();
    const key = parseIdempotencyKey(header);
    if (key === null) {
      return errorResponse(
        c,
        new DomainError('invalid_idempotency_key', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`, {
          attr: 'Idempotency-Key',
        }),
      );
    }
    const url = new URL(c.req.url);
    const text = await c.req.text();
    const request: IdempotentRequest = {
      keyId: c.get('principal').keyId,
      idempotencyKey: key,
      fingerprint: createHash('sha256').update(`POST ${url.pathname}${url.search}\n${text}`, 'utf8').digest('hex'),
      requestPath: url.pathname,
    };
    const row = records.find(request.keyId, key);
    if (row && row.fingerprint !== request.fingerprint) {
      return errorResponse(c, new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.', { attr: 'Idempotency-Key' }));
    }
    const slot = `${request.keyId}\n${key}`;
    if (inFlight.has(slot)) {
      return errorResponse(
        c,
        new DomainError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still being handled; retry later.', { attr: 'Idempotency-Key' }),
      );
    }
    if (row?.status !== null && row?.status !== undefined) return replay(c, row.status, row.responseBody ?? '', row.responseContentType);
    if (row) return recover(c, records, store, request, row, text);

    inFlight.add(slot);
    try {
      await records.run(request, async () => {
        try {
          await next();
        } catch (error) {
          // Caller errors are answered (and kept) here; anything else goes on to the app's error handler, a 500.
          const mapped = toDomainError(error);
          if (mapped.code === 'internal_error') throw error;
          c.res = errorResponse(c, mapped);
        }
      });
    } finally {
      inFlight.delete(slot);
    }
    if (!isTransient(c.res.status)) {
      records.complete(request, { status: c.res.status, body: await c.res.clone().text(), contentType: c.res.headers.get('content-type') });
      if (++completions % PURGE_EVERY === 0) records.purgeExpired();
    }
  });
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
  row: IdempotencyKeyRow,
  text: string,
): Promise<Response> {
  const positions = (JSON.parse(row.eventPositions) as number[]).sort((a, b) => a - b);
  const wanted = new Set(positions);
  const first = positions[0] ?? 1;
  const last = positions[positions.length - 1] ?? 0;
  const events = (await store.readAll(first - 1, Math.max(1, last - first + 1))).filter((stored) => wanted.has(stored.globalPosition));
  const recovered = recoveries[row.requestPath]?.(JSON.parse(text) as unknown, events, row.createdAt) ?? null;
  if (!recovered) {
    return errorResponse(
      c,
      new DomainError('idempotency_response_lost', 'The request with this Idempotency-Key was applied, but its response could not be rebuilt.', {
        attr: 'Idempotency-Key',
      }),
    );
  }
  const body = JSON.stringify(recovered.body);
  const contentType = 'application/json';
  records.complete(request, { status: recovered.status, body, contentType });
  return replay(c, recovered.status, body, contentType);
}
