import type { Context } from 'hono';
import type { FieldError } from '../domain/errors.js';
import type { ListPosition } from '../queries/account-list-read-models.js';
import type { AppEnv } from './env.js';
import { invalidQuery, singleQueryValue } from './query.js';

/** Largest page the lists serve (`?limit=`). */
export const MAX_LIST_LIMIT = 10_000;

/** What `?limit=` and `?after=` asked for: no limit is the whole list (from `after`, when given). */
export interface ListPaging {
  readonly limit: number | null;
  readonly after: ListPosition | null;
}

/** Longest cursor accepted: a datetime and an external account number (128 characters) encoded. */
const MAX_CURSOR_LENGTH = 1_024;
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
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
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
export function listPaging(c: Context<AppEnv>): ListPaging {
  const errors: FieldError[] = [];
  const limitText = singleQueryValue(c, 'limit');
  const afterText = singleQueryValue(c, 'after');
  let limit: number | null = null;
  if (limitText !== undefined) {
    limit = /^\d{1,5}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) {
      errors.push({ detail: `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}.`, code: 'invalid', attr: 'limit' });
    }
  }
  let after: ListPosition | null = null;
  if (afterText !== undefined) {
    after = decodeListCursor(afterText);
    if (after === null) errors.push({ detail: 'after must be a cursor given by a Link header of this list.', code: 'invalid', attr: 'after' });
  }
  if (errors.length > 0) throw invalidQuery(errors);
  return { limit, after };
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
