import type { SupplyPointPopulateRequestEvent } from '../../../events/supply-point-populate.js';
import type { Decider } from '../decider.js';
import type { SupplyType } from '../account-import-process/identifiers.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

/** The request a command is about, as recorded when the batch was created (a looked-up fact). */
export interface PopulateRequestRef {
  readonly batchId: string;
  readonly sequence: number;
  readonly supplyType: SupplyType;
  readonly identifier: string;
}

export interface OperatorAddress {
  readonly line1: string;
  readonly postcode: string;
  readonly city: string;
}

export type PopulateRequestCommand =
  | {
      readonly type: 'ClaimPopulateRequest';
      readonly request: PopulateRequestRef;
      readonly now: string;
      readonly leaseExpiresAt: string;
      readonly maxAttempts: number;
    }
  | {
      readonly type: 'RecordSupplyPointFound';
      readonly request: PopulateRequestRef;
      readonly attempt: number;
      readonly customerCategory: string;
      readonly address: OperatorAddress;
      readonly details: Readonly<Record<string, unknown>>;
      readonly now: string;
    }
  | {
      readonly type: 'RecordPopulateAttemptFailed';
      readonly request: PopulateRequestRef;
      readonly attempt: number;
      readonly reason: string;
      readonly retryAt: string;
      readonly maxAttempts: number;
      readonly now: string;
    }
  | {
      readonly type: 'RecordPopulateRequestRefused';
      readonly request: PopulateRequestRef;
      readonly attempt: number;
      readonly reason: string;
      readonly now: string;
    }
  | {
      readonly type: 'ReleasePopulateRequest';
      readonly request: PopulateRequestRef;
      readonly attempt: number;
      readonly reason: string;
      readonly now: string;
    };

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

function decide(command: PopulateRequestCommand, state: PopulateRequestState): SupplyPointPopulateRequestEvent[] {
  const r = command.request;
  switch (command.type) {
    case 'ClaimPopulateRequest': {
      if (state.status === 'imported' || state.status === 'errored') throw finished(r);
      let attempt: number;
      if (state.status === 'claimed') {
        if (before(command.now, state.leaseExpiresAt)) {
          throw new DomainError('populate_request_claimed', `The request for ${r.identifier} is being worked on.`);
        }
        // The worker holding the claim died mid-call: nobody knows what the operator answered, so the lost
        // attempt counts (a request that kills the worker every time must not loop forever).
        if (state.attempt >= command.maxAttempts) {
          return [
            {
              type: 'SupplyPointPopulateRequestErrored',
              version: 1,
              data: {
                ...ref(r),
                attempt: state.attempt,
                reason: `No answer was recorded for any of ${state.attempt} attempts: the worker stopped during the last one.`,
                erroredAt: command.now,
              },
            },
          ];
        }
        attempt = state.attempt + 1;
      } else {
        if (state.dueAt !== null && before(command.now, state.dueAt)) {
          throw new DomainError('populate_request_not_due', `The request for ${r.identifier} is not due before ${state.dueAt}.`);
        }
        attempt = state.attemptsUsed + 1;
      }
      return [
        {
          type: 'SupplyPointPopulateRequestClaimed',
          version: 1,
          data: { ...ref(r), attempt, claimedAt: command.now, leaseExpiresAt: command.leaseExpiresAt },
        },
      ];
    }
    case 'RecordSupplyPointFound':
      requireClaim(state, r, command.attempt);
      return [
        {
          type: 'SupplyPointImported',
          version: 1,
          data: {
            ...ref(r),
            attempt: command.attempt,
            customerCategory: command.customerCategory,
            address: { line1: command.address.line1, postcode: command.address.postcode, city: command.address.city },
            details: { ...command.details },
            importedAt: command.now,
          },
        },
      ];
    case 'RecordPopulateAttemptFailed':
      requireClaim(state, r, command.attempt);
      if (command.attempt >= command.maxAttempts) {
        return [
          {
            type: 'SupplyPointPopulateRequestErrored',
            version: 1,
            data: {
              ...ref(r),
              attempt: command.attempt,
              reason: `${command.reason} (gave up after ${command.attempt} attempts)`,
              erroredAt: command.now,
            },
          },
        ];
      }
      return [
        {
          type: 'SupplyPointPopulateAttemptFailed',
          version: 1,
          data: { ...ref(r), attempt: command.attempt, reason: command.reason, retryAt: command.retryAt, failedAt: command.now },
        },
      ];
    case 'RecordPopulateRequestRefused':
      requireClaim(state, r, command.attempt);
      return [
        {
          type: 'SupplyPointPopulateRequestErrored',
          version: 1,
          data: { ...ref(r), attempt: command.attempt, reason: command.reason, erroredAt: command.now },
        },
      ];
    case 'ReleasePopulateRequest':
      requireClaim(state, r, command.attempt);
      return [
        {
          type: 'SupplyPointPopulateRequestReleased',
          version: 1,
          data: { ...ref(r), attempt: command.attempt, reason: command.reason, releasedAt: command.now },
        },
      ];
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
