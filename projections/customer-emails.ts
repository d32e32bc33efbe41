import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { customerEmailFailureOutcomes } from '../events/customer-email.js';
import { defineProjection } from './projection.js';

export const customerEmailStatuses = ['QUEUED', 'SENDING', 'SENT', 'FAILED'] as const;
export type CustomerEmailStatusName = (typeof customerEmailStatuses)[number];

/**
 * The customer-email outbox, one row per email: the mailer's queue (due QUEUED rows and SENDING rows whose
 * lease ran out, in `queuePosition` order: the queuing event's global position) and what became of each.
 */
export const customerEmails = sqliteTable(
  'customer_emails',
  {
    emailId: text('email_id').primaryKey(),
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    platformAccountNumber: text('platform_account_number').notNull(),
    customerIndex: integer('customer_index').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    queuePosition: integer('queue_position').notNull(),
    status: text('status', { enum: customerEmailStatuses }).notNull(),
    /** Attempts started so far (the current one while SENDING). */
    attempt: integer('attempt').notNull(),
    /** While QUEUED after a failed attempt: not to be tried again before this. */
    dueAt: text('due_at'),
    /** While SENDING: when the claim runs out. */
    leaseExpiresAt: text('lease_expires_at'),
    lastError: text('last_error'),
    failureOutcome: text('failure_outcome', { enum: customerEmailFailureOutcomes }),
    messageId: text('message_id'),
    queuedAt: text('queued_at').notNull(),
    sentAt: text('sent_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('customer_emails_queue_position_unique').on(t.queuePosition),
    index('customer_emails_queue_idx').on(t.status, t.queuePosition),
    index('customer_emails_account_idx').on(t.importSupplier, t.externalAccountNumber),
  ],
);
export type CustomerEmailRow = typeof customerEmails.$inferSelect;

export const customerEmailsProjection = defineProjection(customerEmails)({
  name: 'customer_emails',
  version: 1,
  keyOf: ({ event }) => ({ emailId: event.data.emailId }),
  evolve: {
    CustomerWelcomeEmailQueued: (_row, { event, globalPosition }) => ({
      emailId: event.data.emailId,
      importSupplier: event.data.importSupplier,
      externalAccountNumber: event.data.externalAccountNumber,
      platformAccountNumber: event.data.platformAccountNumber,
      customerIndex: event.data.customerIndex,
      recipient: event.data.to,
      subject: event.data.subject,
      body: event.data.text,
      queuePosition: globalPosition,
      status: 'QUEUED',
      attempt: 0,
      dueAt: null,
      leaseExpiresAt: null,
      lastError: null,
      failureOutcome: null,
      messageId: null,
      queuedAt: event.data.queuedAt,
      sentAt: null,
      updatedAt: event.data.queuedAt,
    }),
    CustomerEmailSendClaimed: (row, { event }) =>
      row && {
        ...row,
        status: 'SENDING',
        attempt: event.data.attempt,
        dueAt: null,
        leaseExpiresAt: event.data.leaseExpiresAt,
        updatedAt: event.data.claimedAt,
      },
    CustomerEmailSendFailed: (row, { event }) =>
      row && {
        ...row,
        status: 'QUEUED',
        dueAt: event.data.retryAt,
        leaseExpiresAt: null,
        lastError: event.data.reason,
        updatedAt: event.data.failedAt,
      },
    CustomerEmailSent: (row, { event }) =>
      row && {
        ...row,
        status: 'SENT',
        dueAt: null,
        leaseExpiresAt: null,
        messageId: event.data.messageId,
        sentAt: event.data.sentAt,
        updatedAt: event.data.sentAt,
      },
    CustomerEmailFailed: (row, { event }) =>
      row && {
        ...row,
        status: 'FAILED',
        dueAt: null,
        leaseExpiresAt: null,
        lastError: event.data.reason,
        failureOutcome: event.data.outcome,
        updatedAt: event.data.failedAt,
      },
  },
});
