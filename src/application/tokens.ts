import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sign, verify } from 'hono/jwt';
import { DomainError } from '../domain/errors.js';
import { hashApiKey, type LedgerContext } from './context.js';

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
/** How far `iat` and `nbf` may lie ahead of this instance's clock: the clocks of several instances differ a little. */
export const CLOCK_SKEW_SECONDS = 60;
const LIFETIME_SECONDS: Readonly<Record<TokenKind, number>> = { access: ACCESS_TOKEN_TTL_SECONDS, refresh: REFRESH_TOKEN_TTL_SECONDS };

/** The caller behind a valid token: its API key and the import suppliers that key is scoped to. */
export interface Principal {
  readonly keyId: string;
  readonly suppliers: readonly string[];
}

export interface IssuedToken {
  readonly token: string;
  readonly refreshToken: string;
  /** Unix timestamp (seconds) at which the refresh token expires. */
  readonly refreshExpiresIn: number;
}

type TokenKind = 'access' | 'refresh';

const authenticationFailed = (detail = 'Invalid token.') => new DomainError('authentication_failed', detail);

/** A fresh random secret for signing tokens when LEDGER_TOKEN_SECRET is not set. */
export function generateTokenSecret(): string {
  return randomBytes(48).toString('base64url');
}

/**
 * Exchanges an API key (or a refresh token) for an access token valid 60 minutes. An API key also gets a
 * new refresh token valid 7 days; a refresh token is returned unchanged, so its window is not extended.
 * `admitKey` runs once the credential is known valid and before anything is signed (the per-key rate limit).
 */
export async function obtainToken(
  ctx: LedgerContext,
  secret: string,
  input: { apiKey?: string | null; refreshToken?: string | null },
  admitKey: (keyId: string) => Promise<void> = async () => undefined,
): Promise<IssuedToken> {
  const hasKey = typeof input.apiKey === 'string' && input.apiKey.length > 0;
  const hasRefresh = typeof input.refreshToken === 'string' && input.refreshToken.length > 0;
  if (hasKey === hasRefresh) {
    throw new DomainError('invalid_input', 'Provide exactly one of APIKey or refreshToken.');
  }
  const now = Math.floor(ctx.clock().getTime() / 1000);
  if (hasKey) {
    const principal = await principalForApiKey(ctx, input.apiKey as string);
    await admitKey(principal.keyId);
    return {
      token: await signToken(secret, principal.keyId, 'access', now),
      refreshToken: await signToken(secret, principal.keyId, 'refresh', now),
      refreshExpiresIn: now + REFRESH_TOKEN_TTL_SECONDS,
    };
  }
  const claims = await verifyToken(ctx, secret, input.refreshToken as string, 'refresh');
  await activeKey(ctx, claims.keyId);
  await admitKey(claims.keyId);
  return {
    token: await signToken(secret, claims.keyId, 'access', now),
    refreshToken: input.refreshToken as string,
    refreshExpiresIn: claims.exp,
  };
}

/** Whether the credential of `Token <credential>` is an API key: a JWT has dots, an API key (base64url) none, whatever its prefix. */
export const isApiKeyCredential = (credential: string): boolean => !credential.includes('.');

/**
 * `authenticate` with a bounded cache of tokens whose signature was checked (an HMAC on the thread pool
 * otherwise). Only the signature is cached: expiry and the key's status are read on every request, so a
 * revoked key stops at once. As on the platform, the API key itself is accepted in `Token <key>`: looked
 * up by its hash and compared in constant time on every request, never cached.
 */
export function createAuthenticator(ctx: LedgerContext, secret: string, maxEntries = 10_000) {
  const verified = new Map<string, { keyId: string; exp: number }>();
  return async (token: string): Promise<Principal> => {
    if (isApiKeyCredential(token)) return principalForApiKey(ctx, token);
    // Keyed by the token's hash, so a lookup never compares a caller's string with a valid token (a timing leak).
    const cacheKey = createHash('sha256').update(token, 'utf8').digest('base64');
    let claims = verified.get(cacheKey);
    if (!claims) {
      claims = await verifyToken(ctx, secret, token, 'access');
      if (verified.size >= maxEntries) verified.clear();
      verified.set(cacheKey, claims);
    } else if (claims.exp <= Math.floor(ctx.clock().getTime() / 1000)) {
      verified.delete(cacheKey);
      throw authenticationFailed('Token has expired.');
    }
    return activeKey(ctx, claims.keyId);
  };
}

async function principalForApiKey(ctx: LedgerContext, apiKey: string): Promise<Principal> {
  const hash = hashApiKey(apiKey);
  const row = await ctx.read.findApiKeyByHash(hash);
  // The lookup is by hash; the comparison is constant-time all the same.
  if (!row || !timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex')) || row.revokedAt !== null) {
    throw authenticationFailed('Invalid API key.');
  }
  return { keyId: row.keyId, suppliers: row.suppliers };
}

async function activeKey(ctx: LedgerContext, keyId: string): Promise<Principal> {
  const row = await ctx.read.findApiKey(keyId);
  if (!row) throw authenticationFailed('The API key behind this token does not exist.');
  if (row.revokedAt !== null) throw authenticationFailed('The API key behind this token has been revoked.');
  return { keyId: row.keyId, suppliers: row.suppliers };
}

/** Valid for its kind's lifetime from `iat`: the lifetime `verifyToken` holds it to. */
async function signToken(secret: string, keyId: string, kind: TokenKind, iat: number): Promise<string> {
  return sign({ sub: keyId, typ: kind, iat, exp: iat + LIFETIME_SECONDS[kind], jti: randomBytes(9).toString('base64url') }, secret, 'HS256');
}

/**
 * Signature checked by hono/jwt; the claims here against the injected clock: the kind, `exp` passed, `iat`
 * and `nbf` not ahead by more than the skew, and `exp` within the kind's lifetime of `iat`, so a token
 * signed with a leaked secret cannot outlive the lifetimes the API documents.
 */
async function verifyToken(ctx: LedgerContext, secret: string, token: string, kind: TokenKind) {
  let payload: Record<string, unknown>;
  try {
    payload = await verify(token, secret, { alg: 'HS256', exp: false, nbf: false, iat: false });
  } catch {
    throw authenticationFailed();
  }
  const { sub, typ, exp, iat, nbf } = payload;
  if (typeof sub !== 'string' || typ !== kind || typeof exp !== 'number' || typeof iat !== 'number') throw authenticationFailed();
  const now = Math.floor(ctx.clock().getTime() / 1000);
  if (iat > now + CLOCK_SKEW_SECONDS || (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + CLOCK_SKEW_SECONDS))) {
    throw authenticationFailed('Token is not valid yet.');
  }
  if (exp > iat + LIFETIME_SECONDS[kind]) throw authenticationFailed();
  if (exp <= now) throw authenticationFailed('Token has expired.');
  return { keyId: sub, exp };
}
