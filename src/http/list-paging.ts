import type { Context } from 'hono';
import { z } from 'zod';
import type { ListPosition } from '../queries/account-list-read-models.js';
import type { AppEnv } from './env.js';
import { parseQuery, queryCursor, queryInteger } from './query.js';

/** Largest page the lists serve (`?limit=`). */
export const MAX_LIST_LIMIT = 10_000;

/** What `?limit=` and `?after=` asked for: no limit is the whole list (from `after`, when given). */
export interface ListPaging {
  readonly limit: number | null;
  readonly after: ListPosition | null;
}

/** A cursor's form: base64url, at most a datetime and an external account number (128 characters) encoded. */
const LIST_CURSOR = /^[A-Za-z0-9_-]{1,1024}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The `after` cursor of the lists: opaque to callers, who pass back the one
 * a `Link` header gave them. Inside, the base64url of the JSON array
 * `[first staged at, external account number]` of the last account of the
 * page: a place in the lists' order, which an account keeps for good, so a
 * cursor stays valid whatever is staged or processed meanwhile.
 */
export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.firstStagedAt, position.externalAccountNumber]), 'utf8').toString('base64url');
}

export function decodeListCursor(cursor: string): ListPosition | null {
  if (!LIST_CURSOR.test(cursor)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return null;
  const [firstStagedAt, externalAccountNumber] = decoded as unknown[];
  if (typeof firstStagedAt !== 'string' || !ISO_INSTANT.test(firstStagedAt)) return null;
  if (typeof externalAccountNumber !== 'string' || externalAccountNumber.length === 0 || externalAccountNumber.length > 128) return null;
  return { firstStagedAt, externalAccountNumber };
}

/** `?limit=` (1 to MAX_LIST_LIMIT) and `?after=` (a cursor from a `Link` header); 400 `invalid_query_parameter` otherwise. */
export const listPagingQuerySchema = z.object({
  limit: queryInteger(1, MAX_LIST_LIMIT).optional().describe(`The page size, 1 to ${MAX_LIST_LIMIT}; without it, the whole list.`),
  after: queryCursor(LIST_CURSOR, decodeListCursor).optional(),
});

export function listPaging(c: Context<AppEnv>): ListPaging {
  const { limit, after } = parseQuery(c, listPagingQuerySchema);
  return { limit: limit ?? null, after: after ?? null };
}

/**
 * The `Link: <...>; rel="next"` header (RFC 8288) of a page: the same path
 * (a path-absolute reference, resolved against the request's own URL), the
 * same limit, and the cursor of the page's last account.
 */
export function nextPageLink(c: Context<AppEnv>, limit: number, last: ListPosition): string {
  const path = new URL(c.req.url).pathname;
  return `<${path}?limit=${limit}&after=${encodeListCursor(last)}>; rel="next"`;
}
