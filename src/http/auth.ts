import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import type { Actor, LedgerContext } from '../application/context.js';
import { createAuthenticator } from '../application/tokens.js';
import { DomainError } from '../domain/errors.js';
import { requestScope } from '../queries/request-scope.js';
import type { AppEnv } from './env.js';

/**
 * `Authorization: Token <token>` (spec 5.2), or `Token <API key>` as the
 * platform also accepts (createAuthenticator tells them apart). No header or another scheme:
 * 401 not_authenticated; a token that is malformed, badly signed, expired or
 * whose key was revoked: 401 authentication_failed. Thrown, answered by
 * `app.onError` (with `WWW-Authenticate: Token`, as every 401).
 */
export function tokenAuth(ctx: LedgerContext, tokenSecret: string) {
  const authenticate = createAuthenticator(ctx, tokenSecret);
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    const match = header ? /^Token(?:\s+(.*))?$/i.exec(header.trim()) : null;
    if (!match) {
      throw new DomainError('not_authenticated', 'Authentication credentials were not provided.');
    }
    const token = match[1]?.trim();
    if (!token || /\s/.test(token)) {
      throw new DomainError('authentication_failed', 'Invalid token header.');
    }
    c.set('principal', await authenticate(token));
    // A scope of its own for each later check: the request's scope holds the read generation seen when it
    // arrived, and a check made minutes later must see a revocation committed since, on any instance.
    c.set('recheckCredential', () => requestScope.run({}, () => authenticate(token)));
    // The request's own logger (request-context.ts) takes the key: cheaper than a child of a child.
    c.get('logger').setBindings({ keyId: c.get('principal').keyId });
    await next();
  });
}

/** 403 unless the caller's key is scoped to the import supplier named in the request. */
export function requireSupplierScope(c: Context<AppEnv>, importSupplier: string): void {
  if (!c.get('principal').suppliers.includes(importSupplier)) {
    throw new DomainError('permission_denied', 'You do not have permission to perform this action.');
  }
}

/**
 * The request's JSON body, the caller's scope checked first: a key not scoped to the import supplier the
 * body names under `supplierField` gets 403 before anything else of the request is looked at (a missing
 * or malformed supplier is then the payload's validation error). The payload schemas take the supplier as
 * sent (no trim, no coercion), so a body that validates names the supplier checked here: scope is checked
 * once, on the raw body.
 */
export async function scopedBody(c: Context<AppEnv>, supplierField = 'import_supplier'): Promise<unknown> {
  const body: unknown = await c.req.json();
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const supplier = (body as Record<string, unknown>)[supplierField];
    if (typeof supplier === 'string') requireSupplierScope(c, supplier);
  }
  return body;
}

/** The actor recorded in event metadata for an HTTP caller. */
export function httpActor(c: Context<AppEnv>): Actor {
  const beforeCommit = c.get('beforeCommit');
  const traceparent = c.get('traceparent');
  const actor: Actor = { actor: c.get('principal').keyId, requestId: c.get('requestId'), ...(traceparent ? { traceparent } : {}) };
  return beforeCommit ? { ...actor, beforeCommit } : actor;
}
