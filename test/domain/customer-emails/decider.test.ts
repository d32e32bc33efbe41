import { describe, expect, it } from 'vitest';
import type { CustomerEmailEvent, CustomerWelcomeEmailQueued } from '../../../events/customer-email.js';
import { customerEmailDecider as decider, type CustomerEmailCommand, type MailDelivery } from '../../../src/domain/customer-email/decider.js';
import { backoffMs } from '../../../src/domain/retry-policy.js';
import { given } from '../../support/given.js';

const ref = { importSupplier: 'LEGACY_ENERGIE', externalAccountNumber: 'LEG-0000001', emailId: 'A-1234ABCD-welcome-0' };
const T0 = '2026-11-21T10:00:00.000Z';
const T1 = '2026-11-21T10:00:05.000Z';
const LEASE = '2026-11-21T10:02:00.000Z';
const AFTER_LEASE = '2026-11-21T10:03:00.000Z';
const RETRY = '2026-11-21T10:01:00.000Z';

const queued: CustomerWelcomeEmailQueued = {
  type: 'CustomerWelcomeEmailQueued',
  version: 1,
  data: {
    ...ref,
    platformAccountNumber: 'A-1234ABCD',
    customerIndex: 0,
    to: 'claire.dubois@example.fr',
    subject: 's',
    text: 't',
    queuedAt: T0,
  },
};
const claimed = (attempt: number, at = T0): CustomerEmailEvent => ({
  type: 'CustomerEmailSendClaimed',
  version: 1,
  data: { ...ref, attempt, claimedAt: at, leaseExpiresAt: LEASE },
});
const sendFailed = (attempt: number): CustomerEmailEvent => ({
  type: 'CustomerEmailSendFailed',
  version: 1,
  data: { ...ref, attempt, reason: '451 try later', retryAt: RETRY, failedAt: T1 },
});

const claim = (now = T0): CustomerEmailCommand => ({ type: 'ClaimCustomerEmail', email: ref, now, leaseExpiresAt: LEASE });
const record = (attempt: number, delivery: MailDelivery, maxAttempts = 3): CustomerEmailCommand => ({
  type: 'RecordCustomerEmailDelivery',
  email: ref,
  attempt,
  delivery,
  retryAt: RETRY,
  maxAttempts,
  now: T1,
});
const sent: MailDelivery = { kind: 'sent', messageId: 'A-1234ABCD-welcome-0@import-ledger', response: '250 OK' };
const transient: MailDelivery = { kind: 'refused', permanent: false, reason: '451 try later' };

describe('customer email: claim before sending', () => {
  it('given queued, when claimed: attempt 1 with its lease', () => {
    given(decider, [queued]).when(claim()).then([claimed(1)]);
  });

  it('an email that is not on the account: customer_email_not_found', () => {
    given(decider).when(claim()).thenFails('customer_email_not_found');
  });

  it('given claimed and the lease running: customer_email_claimed (no second sender)', () => {
    given(decider, [queued, claimed(1)]).when(claim(T1)).thenFails('customer_email_claimed');
  });

  it('given claimed and the lease run out: failed with outcome unknown, never sent again', () => {
    given(decider, [queued, claimed(1)])
      .when(claim(AFTER_LEASE))
      .then([
        {
          type: 'CustomerEmailFailed',
          version: 1,
          data: {
            ...ref,
            attempt: 1,
            outcome: 'unknown',
            reason: 'The mailer stopped during attempt 1: the email may or may not have been delivered, so it is not sent again.',
            failedAt: AFTER_LEASE,
          },
        },
      ]);
  });

  it('given a failed attempt waiting for its retry time: not due before it, attempt 2 after', () => {
    given(decider, [queued, claimed(1), sendFailed(1)]).when(claim(T1)).thenFails('customer_email_not_due');
    given(decider, [queued, claimed(1), sendFailed(1)]).when(claim(RETRY)).then([claimed(2, RETRY)]);
  });

  it('given sent or failed: customer_email_finished', () => {
    const done: CustomerEmailEvent = { type: 'CustomerEmailSent', version: 1, data: { ...ref, attempt: 1, messageId: 'm', response: '250', sentAt: T1 } };
    given(decider, [queued, claimed(1), done]).when(claim(AFTER_LEASE)).thenFails('customer_email_finished');
  });
});

describe('customer email: record what the SMTP server said', () => {
  it('accepted: CustomerEmailSent', () => {
    given(decider, [queued, claimed(1)])
      .when(record(1, sent))
      .then([{ type: 'CustomerEmailSent', version: 1, data: { ...ref, attempt: 1, messageId: sent.kind === 'sent' ? sent.messageId : '', response: '250 OK', sentAt: T1 } }]);
  });

  it('refused for now: back to the queue until retryAt', () => {
    given(decider, [queued, claimed(1)]).when(record(1, transient)).then([sendFailed(1)]);
  });

  it('refused for now on the last allowed attempt: failed, gave_up', () => {
    given(decider, [queued, claimed(1), sendFailed(1), claimed(2, RETRY), sendFailed(2), claimed(3, RETRY)])
      .when(record(3, transient))
      .then([
        {
          type: 'CustomerEmailFailed',
          version: 1,
          data: { ...ref, attempt: 3, outcome: 'gave_up', reason: '451 try later (gave up after 3 attempts)', failedAt: T1 },
        },
      ]);
  });

  it('refused for good (5xx): failed, rejected, on the first attempt', () => {
    given(decider, [queued, claimed(1)])
      .when(record(1, { kind: 'refused', permanent: true, reason: '550 no such user' }))
      .then([{ type: 'CustomerEmailFailed', version: 1, data: { ...ref, attempt: 1, outcome: 'rejected', reason: '550 no such user', failedAt: T1 } }]);
  });

  it('outcome unknown: failed, unknown (at most once)', () => {
    given(decider, [queued, claimed(1)])
      .when(record(1, { kind: 'unknown', reason: 'socket closed after DATA' }))
      .then([{ type: 'CustomerEmailFailed', version: 1, data: { ...ref, attempt: 1, outcome: 'unknown', reason: 'socket closed after DATA', failedAt: T1 } }]);
  });

  it('only the attempt that holds the claim may record: customer_email_claim_lost otherwise', () => {
    given(decider, [queued]).when(record(1, sent)).thenFails('customer_email_claim_lost');
    given(decider, [queued, claimed(1), sendFailed(1), claimed(2, RETRY)]).when(record(1, sent)).thenFails('customer_email_claim_lost');
  });

  it('nothing is recorded twice: a second outcome for a sent email is customer_email_finished', () => {
    const done: CustomerEmailEvent = { type: 'CustomerEmailSent', version: 1, data: { ...ref, attempt: 1, messageId: 'm', response: '250', sentAt: T1 } };
    given(decider, [queued, claimed(1), done]).when(record(1, sent)).thenFails('customer_email_finished');
  });
});

describe('email retry backoff', () => {
  it('doubles from the base delay, capped', () => {
    const policy = { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 300_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(policy, attempt))).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
  });
});
