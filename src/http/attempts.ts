import type { Context } from 'hono';
import type { ImportAttemptOperation } from '../../events/import-attempt.js';
import type { AttemptRef } from '../application/refused-attempts.js';
import type { AppEnv } from './env.js';

/**
 * The account a refused stage or process is recorded against, read from the
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
