import type { SupplyPointImported, SupplyPointPopulateRequested, SupplyPointPopulateRequestEvent } from '../../../events/supply-point-populate.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

/** The request a command is about, as recorded when the batch was created (a looked-up fact). */
export type PopulateRequestRef = Omit<SupplyPointPopulateRequested['data'], 'requestedAt'>;

export type OperatorAddress = SupplyPointImported['data']['address'];

/** What an attempt learnt, recorded only while it holds the claim. */
interface AttemptResult {
  readonly request: PopulateRequestRef;
  readonly attempt: number;
  readonly now: string;
}

export type PopulateRequestCommand =
  | {
      readonly type: 'ClaimPopulateRequest';
      readonly request: PopulateRequestRef;
      readonly now: string;
      readonly leaseExpiresAt: string;
      readonly maxAttempts: number;
    }
  | (AttemptResult & {
      readonly type: 'RecordSupplyPointFound';
      readonly customerCategory: string;
      readonly address: OperatorAddress;
      readonly details: Readonly<Record<string, unknown>>;
    })
  | (AttemptResult & { readonly type: 'RecordPopulateAttemptFailed'; readonly reason: string; readonly retryAt: string; readonly maxAttempts: number })
  | (AttemptResult & { readonly type: 'RecordPopulateRequestRefused' | 'ReleasePopulateRequest'; readonly reason: string });

export type PopulateRequestState =
  /** Not being worked on: never tried, released, or waiting for a retry (`dueAt`). */
  | { readonly status: 'waiting'; readonly attemptsUsed: number; readonly dueAt: string | null }
  | { readonly status: 'claimed'; readonly attempt: number; readonly leaseExpiresAt: string }
  | { readonly status: 'imported'; readonly attempt: number }
  | { readonly status: 'errored'; readonly attempt: number; readonly reason: string };

const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b);

const ref = (r: PopulateRequestRef) => ({
  batchId: r.batchId,
  sequence: r.sequence,
  supplyType: r.supplyType,
  identifier: r.identifier,
});

function finished(r: PopulateRequestRef): DomainError {
  return new DomainError('populate_request_finished', `The request for ${r.identifier} (batch ${r.batchId}) has already ended.`);
}

/** A result may only be recorded by the attempt that holds the claim: the one that made the call. */
function requireClaim(state: PopulateRequestState, r: PopulateRequestRef, attempt: number): void {
  if (state.status === 'imported' || state.status === 'errored') throw finished(r);
  if (state.status !== 'claimed' || state.attempt !== attempt) {
    throw new DomainError('populate_claim_lost', `Attempt ${attempt} of the request for ${r.identifier} no longer holds its claim.`);
  }
}

function errored(r: PopulateRequestRef, attempt: number, reason: string, now: string): SupplyPointPopulateRequestEvent[] {
  return [{ type: 'SupplyPointPopulateRequestErrored', version: 1, data: { ...ref(r), attempt, reason, erroredAt: now } }];
}

function claim(command: Extract<PopulateRequestCommand, { type: 'ClaimPopulateRequest' }>, state: PopulateRequestState): SupplyPointPopulateRequestEvent[] {
  const r = command.request;
  if (state.status === 'imported' || state.status === 'errored') throw finished(r);
  let attempt: number;
  if (state.status === 'claimed') {
    if (before(command.now, state.leaseExpiresAt)) {
      throw new DomainError('populate_request_claimed', `The request for ${r.identifier} is being worked on.`);
    }
    // The worker holding the claim died mid-call: nobody knows what the operator answered, so the lost
    // attempt counts (a request that kills the worker every time must not loop forever).
    if (state.attempt >= command.maxAttempts) {
      const reason = `No answer was recorded for any of ${state.attempt} attempts: the worker stopped during the last one.`;
      return errored(r, state.attempt, reason, command.now);
    }
    attempt = state.attempt + 1;
  } else {
    if (state.dueAt !== null && before(command.now, state.dueAt)) {
      throw new DomainError('populate_request_not_due', `The request for ${r.identifier} is not due before ${state.dueAt}.`);
    }
    attempt = state.attemptsUsed + 1;
  }
  const data = { ...ref(r), attempt, claimedAt: command.now, leaseExpiresAt: command.leaseExpiresAt };
  return [{ type: 'SupplyPointPopulateRequestClaimed', version: 1, data }];
}

function decide(command: PopulateRequestCommand, state: PopulateRequestState): SupplyPointPopulateRequestEvent[] {
  if (command.type === 'ClaimPopulateRequest') return claim(command, state);
  const { request: r, attempt, now } = command;
  requireClaim(state, r, attempt);
  switch (command.type) {
    case 'RecordSupplyPointFound': {
      const { line1, postcode, city } = command.address;
      const address = { line1, postcode, city };
      const data = { ...ref(r), attempt, customerCategory: command.customerCategory, address, details: { ...command.details }, importedAt: now };
      return [{ type: 'SupplyPointImported', version: 1, data }];
    }
    case 'RecordPopulateAttemptFailed':
      if (attempt >= command.maxAttempts) return errored(r, attempt, `${command.reason} (gave up after ${attempt} attempts)`, now);
      return [
        { type: 'SupplyPointPopulateAttemptFailed', version: 1, data: { ...ref(r), attempt, reason: command.reason, retryAt: command.retryAt, failedAt: now } },
      ];
    case 'RecordPopulateRequestRefused':
      return errored(r, attempt, command.reason, now);
    case 'ReleasePopulateRequest':
      return [{ type: 'SupplyPointPopulateRequestReleased', version: 1, data: { ...ref(r), attempt, reason: command.reason, releasedAt: now } }];
    default:
      return assertNever(command);
  }
}

function evolve(state: PopulateRequestState, event: SupplyPointPopulateRequestEvent): PopulateRequestState {
  switch (event.type) {
    case 'SupplyPointPopulateRequestClaimed':
      return { status: 'claimed', attempt: event.data.attempt, leaseExpiresAt: event.data.leaseExpiresAt };
    case 'SupplyPointPopulateAttemptFailed':
      return { status: 'waiting', attemptsUsed: event.data.attempt, dueAt: event.data.retryAt };
    case 'SupplyPointPopulateRequestReleased':
      return { status: 'waiting', attemptsUsed: event.data.attempt - 1, dueAt: null };
    case 'SupplyPointImported':
      return { status: 'imported', attempt: event.data.attempt };
    case 'SupplyPointPopulateRequestErrored':
      return { status: 'errored', attempt: event.data.attempt, reason: event.data.reason };
    default:
      return assertNever(event);
  }
}

export const populateRequestDecider: Decider<PopulateRequestCommand, SupplyPointPopulateRequestEvent, SupplyPointPopulateRequestEvent, PopulateRequestState> = {
  decide,
  evolve,
  initialState: { status: 'waiting', attemptsUsed: 0, dueAt: null },
};
