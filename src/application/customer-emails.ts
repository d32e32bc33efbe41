import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { LedgerEvent } from '../../events/registry.js';
import {
  customerEmailDecider,
  type CustomerEmailCommand,
  type CustomerEmailRef,
  type MailDelivery,
} from '../domain/customer-email/decider.js';
import { backoffMs, type RetryPolicy } from '../domain/retry-policy.js';
import { handle, type Untimed } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';

/** Mailer events are correlated with their email, so an auditor can follow one email through the log. */
async function handleEmail(
  ctx: LedgerContext,
  email: CustomerEmailRef,
  command: (now: Date) => Untimed<CustomerEmailCommand>,
  actor: Actor,
): Promise<LedgerEvent | undefined> {
  const streamId = accountImportProcessStreamId(email.importSupplier, email.externalAccountNumber);
  const result = await handle(ctx, actor, customerEmailDecider, streamId, command, { correlationId: email.emailId });
  return result.events[0]?.event;
}

export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly attempt: number }
  /** A claim of a dead mailer ran out: the email was failed (outcome unknown) instead of being sent again. */
  | { readonly kind: 'failed'; readonly reason: string };

/** Records that this mailer takes the email, before any SMTP call; a DomainError when another mailer got there first. */
export async function claimCustomerEmail(
  ctx: LedgerContext,
  email: CustomerEmailRef,
  leaseMs: number,
  actor: Actor,
): Promise<ClaimOutcome> {
  const event = await handleEmail(
    ctx,
    email,
    (now) => ({ type: 'ClaimCustomerEmail', email, leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString() }),
    actor,
  );
  if (event?.type === 'CustomerEmailFailed') return { kind: 'failed', reason: event.data.reason };
  if (event?.type !== 'CustomerEmailSendClaimed') throw new Error(`unexpected claim outcome: ${event?.type}`);
  return { kind: 'claimed', attempt: event.data.attempt };
}

export async function recordCustomerEmailDelivery(
  ctx: LedgerContext,
  email: CustomerEmailRef,
  attempt: number,
  delivery: MailDelivery,
  policy: RetryPolicy,
  actor: Actor,
): Promise<LedgerEvent | undefined> {
  return handleEmail(
    ctx,
    email,
    (now) => ({
      type: 'RecordCustomerEmailDelivery',
      email,
      attempt,
      delivery,
      retryAt: new Date(now.getTime() + backoffMs(policy, attempt)).toISOString(),
      maxAttempts: policy.maxAttempts,
    }),
    actor,
  );
}
