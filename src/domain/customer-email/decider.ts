import type { CustomerEmailEvent, CustomerEmailFailureOutcome } from '../../../events/customer-email.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { ownedEvolution, type Decider } from '../decider.js';
import { accountOf } from '../account-records/account-stream.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

/** Which email a command is about (its account stream and id). */
export type CustomerEmailRef = Pick<CustomerEmailEvent['data'], 'importSupplier' | 'externalAccountNumber' | 'emailId'>;

/** What came of handing one email to the SMTP server, as the mail adapter tells it. */
export type MailDelivery =
  | { readonly kind: 'sent'; readonly messageId: string; readonly response: string }
  /** Certainly not accepted: the server refused it (`permanent` for 5xx) or was never reached. */
  | { readonly kind: 'refused'; readonly permanent: boolean; readonly reason: string }
  /** The session broke when the message may already have been handed over. */
  | { readonly kind: 'unknown'; readonly reason: string };

export type CustomerEmailCommand =
  | {
      readonly type: 'ClaimCustomerEmail';
      readonly email: CustomerEmailRef;
      readonly now: string;
      readonly leaseExpiresAt: string;
    }
  | {
      readonly type: 'RecordCustomerEmailDelivery';
      readonly email: CustomerEmailRef;
      readonly attempt: number;
      readonly delivery: MailDelivery;
      /** When a transient failure may be tried again (from the retry policy and the clock). */
      readonly retryAt: string;
      readonly maxAttempts: number;
      readonly now: string;
    };

export type CustomerEmailStatus =
  | { readonly status: 'queued'; readonly attemptsUsed: number; readonly dueAt: string | null }
  | { readonly status: 'sending'; readonly attempt: number; readonly leaseExpiresAt: string }
  | { readonly status: 'sent'; readonly attempt: number }
  | { readonly status: 'failed'; readonly attempt: number };

/** The emails of one account, by id. */
export interface CustomerEmailState {
  readonly emails: ReadonlyMap<string, CustomerEmailStatus>;
}

const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b);

/** The status each outbox event leaves its email in. */
const statusAfter: { readonly [T in CustomerEmailEvent['type']]: (data: Extract<CustomerEmailEvent, { type: T }>['data']) => CustomerEmailStatus } = {
  CustomerWelcomeEmailQueued: () => ({ status: 'queued', attemptsUsed: 0, dueAt: null }),
  CustomerEmailSendClaimed: (data) => ({ status: 'sending', attempt: data.attempt, leaseExpiresAt: data.leaseExpiresAt }),
  CustomerEmailSendFailed: (data) => ({ status: 'queued', attemptsUsed: data.attempt, dueAt: data.retryAt }),
  CustomerEmailSent: (data) => ({ status: 'sent', attempt: data.attempt }),
  CustomerEmailFailed: (data) => ({ status: 'failed', attempt: data.attempt }),
};

/** Folds only the outbox events of the account stream, into a map the fold owns (see `ownedEvolution`). */
const customerEmailEvolution = ownedEvolution<CustomerEmailState, LedgerEvent, { readonly emails: Map<string, CustomerEmailStatus> }>({
  own: (state) => ({ emails: new Map(state.emails) }),
  step: (state, event) => {
    const { type, data } = event as CustomerEmailEvent;
    state.emails.set(data.emailId, (statusAfter[type] as (data: CustomerEmailEvent['data']) => CustomerEmailStatus)(data));
    return state;
  },
  folds: (event) => Object.hasOwn(statusAfter, event.type),
});

const ref = (email: CustomerEmailRef) => ({ ...accountOf(email), emailId: email.emailId });

type UnfinishedEmail = Extract<CustomerEmailStatus, { status: 'queued' | 'sending' }>;

function failed(email: CustomerEmailRef, attempt: number, outcome: CustomerEmailFailureOutcome, reason: string, now: string): CustomerEmailEvent[] {
  return [{ type: 'CustomerEmailFailed', version: 1, data: { ...ref(email), attempt, outcome, reason, failedAt: now } }];
}

/** The email's status, which must not be final (sent or failed). */
function unfinished(state: CustomerEmailState, email: CustomerEmailRef): UnfinishedEmail {
  const status = state.emails.get(email.emailId);
  if (!status) throw new DomainError('customer_email_not_found', `No customer email ${email.emailId} is queued on this account.`);
  if (status.status === 'sent' || status.status === 'failed') {
    throw new DomainError('customer_email_finished', `Customer email ${email.emailId} is already ${status.status}.`);
  }
  return status;
}

function claim(command: Extract<CustomerEmailCommand, { type: 'ClaimCustomerEmail' }>, state: CustomerEmailState): CustomerEmailEvent[] {
  const status = unfinished(state, command.email);
  if (status.status === 'sending') {
    if (before(command.now, status.leaseExpiresAt)) {
      throw new DomainError('customer_email_claimed', `Customer email ${command.email.emailId} is being sent.`);
    }
    // The mailer holding the claim died during the SMTP call: the server may have accepted the message.
    // Sending it again could deliver it twice, so it ends here (at most once).
    const reason = `The mailer stopped during attempt ${status.attempt}: the email may or may not have been delivered, so it is not sent again.`;
    return failed(command.email, status.attempt, 'unknown', reason, command.now);
  }
  if (status.dueAt !== null && before(command.now, status.dueAt)) {
    throw new DomainError('customer_email_not_due', `Customer email ${command.email.emailId} is not due before ${status.dueAt}.`);
  }
  return [
    {
      type: 'CustomerEmailSendClaimed',
      version: 1,
      data: { ...ref(command.email), attempt: status.attemptsUsed + 1, claimedAt: command.now, leaseExpiresAt: command.leaseExpiresAt },
    },
  ];
}

function record(
  command: Extract<CustomerEmailCommand, { type: 'RecordCustomerEmailDelivery' }>,
  state: CustomerEmailState,
): CustomerEmailEvent[] {
  const status = unfinished(state, command.email);
  if (status.status !== 'sending' || status.attempt !== command.attempt) {
    throw new DomainError('customer_email_claim_lost', `Attempt ${command.attempt} of ${command.email.emailId} no longer holds its claim.`);
  }
  const { email, attempt, delivery, now } = command;
  const data = { ...ref(email), attempt };
  switch (delivery.kind) {
    case 'sent':
      return [{ type: 'CustomerEmailSent', version: 1, data: { ...data, messageId: delivery.messageId, response: delivery.response, sentAt: now } }];
    case 'unknown':
      return failed(email, attempt, 'unknown', delivery.reason, now);
    case 'refused':
      if (delivery.permanent) return failed(email, attempt, 'rejected', delivery.reason, now);
      if (attempt >= command.maxAttempts) return failed(email, attempt, 'gave_up', `${delivery.reason} (gave up after ${attempt} attempts)`, now);
      return [
        { type: 'CustomerEmailSendFailed', version: 1, data: { ...data, reason: delivery.reason, retryAt: command.retryAt, failedAt: now } },
      ];
    default:
      return assertNever(delivery);
  }
}

function decide(command: CustomerEmailCommand, state: CustomerEmailState): CustomerEmailEvent[] {
  switch (command.type) {
    case 'ClaimCustomerEmail':
      return claim(command, state);
    case 'RecordCustomerEmailDelivery':
      return record(command, state);
    default:
      return assertNever(command);
  }
}

export const customerEmailDecider: Decider<CustomerEmailCommand, LedgerEvent, CustomerEmailEvent, CustomerEmailState> = {
  decide,
  ...customerEmailEvolution,
  initialState: { emails: new Map() },
};
