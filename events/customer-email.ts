import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * The customer-email outbox (spec 1.3). Every event lives on the account's
 * stream `account-import-process:<SUPPLIER>:<EXT>`: the emails are queued in
 * the transaction that processes the account, and each step of their delivery
 * is recorded there before (claim) and after (sent, failed) the SMTP call, so
 * an email is never sent twice (docs/payment-instructions-and-emails.md).
 */

const emailRef = {
  ...accountRef,
  /** `<platform account number>-welcome-<customer index>`: unique, and stable across replays. */
  emailId: z.string(),
};

/**
 * A welcome email to one customer of the account was queued when the account
 * was processed, because its import supplier sends emails (`--send-emails`).
 * The message is rendered at queue time and sent exactly as recorded.
 * `customerIndex` is the customer's zero-based index in the staged payload.
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
 * A mailer took the email for attempt `attempt`, before calling the SMTP
 * server. Until `leaseExpiresAt` no other mailer may take it; a claim whose
 * lease ran out with no outcome means the mailer died mid-send, and the email
 * is then failed, never sent again (at most once).
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

/**
 * Attempt `attempt` was not delivered and certainly not accepted (the server
 * answered 4xx, or could not be reached): the email goes back to the queue,
 * not to be tried before `retryAt` (exponential backoff).
 */
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
