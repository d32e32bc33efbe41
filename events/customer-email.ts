import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * The customer-email outbox (spec 1.3), on the account's stream: the emails are queued in the transaction
 * that processes the account, and each delivery step is recorded there before (claim) and after (sent,
 * failed) the SMTP call, so an email is never sent twice.
 */

const emailRef = {
  ...accountRef,
  /** `<platform account number>-welcome-<customer index>`: unique, and stable across replays. */
  emailId: z.string(),
};

/**
 * A welcome email to one customer of the account (`customerIndex`: zero-based in the staged payload) was
 * queued as it was processed, its supplier sending emails. It is rendered now and sent exactly as recorded.
 */
export const customerWelcomeEmailQueuedSchema = eventSchema(
  'CustomerWelcomeEmailQueued',
  1,
  z.object({
    ...emailRef,
    platformAccountNumber: z.string(),
    customerIndex: z.int().min(0),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    queuedAt: z.string(),
  }),
);

/**
 * A mailer took the email for `attempt`, before calling the SMTP server; no other may take it until
 * `leaseExpiresAt`. A lease that ran out with no outcome means the mailer died mid-send: the email is then
 * failed, never sent again (at most once).
 */
export const customerEmailSendClaimedSchema = eventSchema(
  'CustomerEmailSendClaimed',
  1,
  z.object({ ...emailRef, attempt: z.int().min(1), claimedAt: z.string(), leaseExpiresAt: z.string() }),
);

/** The SMTP server accepted the email (attempt `attempt`). `messageId` is the Message-ID header sent. */
export const customerEmailSentSchema = eventSchema(
  'CustomerEmailSent',
  1,
  z.object({
    ...emailRef,
    attempt: z.int().min(1),
    messageId: z.string(),
    /** The SMTP server's last reply, as given ("250 OK: queued as ..."). */
    response: z.string(),
    sentAt: z.string(),
  }),
);

/** `attempt` was certainly not accepted (a 4xx, or no connection): the email is queued again from `retryAt`. */
export const customerEmailSendFailedSchema = eventSchema(
  'CustomerEmailSendFailed',
  1,
  z.object({ ...emailRef, attempt: z.int().min(1), reason: z.string(), retryAt: z.string(), failedAt: z.string() }),
);

export const customerEmailFailureOutcomes = [
  /** The SMTP server refused it for good (5xx, or an address it cannot take). */
  'rejected',
  /** Every allowed attempt failed for a transient reason. */
  'gave_up',
  /** The connection broke, or the mailer died, after the message may have been handed over: not retried. */
  'unknown',
] as const;

/** The email will not be sent (again): `outcome` says why. Final. */
export const customerEmailFailedSchema = eventSchema(
  'CustomerEmailFailed',
  1,
  z.object({
    ...emailRef,
    attempt: z.int().min(0),
    outcome: z.enum(customerEmailFailureOutcomes),
    reason: z.string(),
    failedAt: z.string(),
  }),
);

export const customerEmailEventSchemas = [
  customerWelcomeEmailQueuedSchema,
  customerEmailSendClaimedSchema,
  customerEmailSentSchema,
  customerEmailSendFailedSchema,
  customerEmailFailedSchema,
] as const;

export type CustomerWelcomeEmailQueued = z.infer<typeof customerWelcomeEmailQueuedSchema>;
export type CustomerEmailSendClaimed = z.infer<typeof customerEmailSendClaimedSchema>;
export type CustomerEmailSent = z.infer<typeof customerEmailSentSchema>;
export type CustomerEmailSendFailed = z.infer<typeof customerEmailSendFailedSchema>;
export type CustomerEmailFailed = z.infer<typeof customerEmailFailedSchema>;
export type CustomerEmailFailureOutcome = CustomerEmailFailed['data']['outcome'];
export type CustomerEmailEvent = EventsOf<typeof customerEmailEventSchemas>;
