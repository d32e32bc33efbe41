import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ImportAttemptOperation, RecordImportOperation } from '../../events/import-attempt.js';
import type { LedgerContext } from '../application/context.js';
import { isRefusal, recordRefusedAttempt, type AttemptRef } from '../application/refused-attempts.js';
import { httpActor } from './auth.js';
import type { AppEnv } from './env.js';

/**
 * Records a refused stage, process, schedule or record import on the account's audit stream
 * (docs/account-import.md "Refused attempts"), around the route: the account
 * is read from the raw body before the route runs (the refusal may be that the
 * body is invalid), and a rule that refused it (answered by `app.onError`,
 * which Hono calls at the layer that threw and leaves in `c.error`) is
 * recorded before the answer leaves. The route itself stays one straight line.
 */
export function recordingRefusals(ctx: LedgerContext, attemptOf: (c: Context<AppEnv>, body: unknown) => AttemptRef | null) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const attempt = attemptOf(c, await c.req.json());
    await next();
    if (attempt !== null && isRefusal(c.error)) await recordRefusedAttempt(ctx, attempt, c.error, httpActor(c));
  });
}

/**
 * The account a refused attempt is recorded against, read from the
 * raw body (the refusal may be that the body is invalid): null unless it names
 * an import supplier the caller's key is scoped to and an external account
 * number that can be one (1-128 characters, not blank). A request for another
 * supplier, or one that names no account, records nothing.
 */
export function scopedAttempt(
  c: Context<AppEnv>,
  importSupplier: unknown,
  externalAccountNumber: unknown,
  operation: ImportAttemptOperation,
  dryRun: unknown,
): AttemptRef | null {
  if (typeof importSupplier !== 'string' || !c.get('principal').suppliers.includes(importSupplier)) return null;
  if (typeof externalAccountNumber !== 'string' || externalAccountNumber.trim() === '' || externalAccountNumber.length > 128) return null;
  return { importSupplier, externalAccountNumber, operation, dryRun: dryRun === true };
}

/** The body's field, when the body is a JSON object. */
export function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * The account a refused record import (notes, transactions, historical statements, a payment instruction) is
 * recorded against: the body's `external_account_number`, or the deprecated alias `account_number` the
 * post-import requests also take. `dryRunField` names the body's dry-run flag where the request has one.
 */
export function recordImportAttempt(operation: RecordImportOperation, dryRunField?: string) {
  return (c: Context<AppEnv>, body: unknown): AttemptRef | null =>
    scopedAttempt(
      c,
      field(body, 'import_supplier'),
      field(body, 'external_account_number') ?? field(body, 'account_number'),
      operation,
      dryRunField === undefined ? false : field(body, dryRunField),
    );
}
