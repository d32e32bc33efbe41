import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SupplyPointPopulateRequestEvent } from '../../../events/supply-point-populate.js';
import {
  populateRequestDecider,
  type PopulateRequestCommand,
  type PopulateRequestRef,
} from '../../../src/domain/supply-point/populate-request-decider.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from '../../../src/domain/supply-point/retry-policy.js';
import { DomainError } from '../../../src/domain/errors.js';
import { given } from '../../support/given.js';

const request: PopulateRequestRef = { batchId: 'b-1', sequence: 1, supplyType: 'ELECTRICITY', identifier: '09111642617347' };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, seconds)).toISOString();
const address = { line1: '1 rue A', postcode: '75001', city: 'Paris' };

const claim = (seconds: number, maxAttempts = 3): PopulateRequestCommand => ({
  type: 'ClaimPopulateRequest',
  request,
  now: at(seconds),
  leaseExpiresAt: at(seconds + 30),
  maxAttempts,
});
const claimed = (attempt: number, seconds: number): SupplyPointPopulateRequestEvent => ({
  type: 'SupplyPointPopulateRequestClaimed',
  version: 1,
  data: { ...request, attempt, claimedAt: at(seconds), leaseExpiresAt: at(seconds + 30) },
});
const failed = (attempt: number, retrySeconds: number): SupplyPointPopulateRequestEvent => ({
  type: 'SupplyPointPopulateAttemptFailed',
  version: 1,
  data: { ...request, attempt, reason: 'HTTP 503', retryAt: at(retrySeconds), failedAt: at(retrySeconds - 1) },
});
const found = (attempt: number): PopulateRequestCommand => ({
  type: 'RecordSupplyPointFound',
  request,
  attempt,
  customerCategory: 'Domestic',
  address,
  details: { identifier: request.identifier, address, meter: { serial: 'M1' } },
  now: at(5),
});
const transient = (attempt: number, maxAttempts = 3, nowSeconds = 9): PopulateRequestCommand => ({
  type: 'RecordPopulateAttemptFailed',
  request,
  attempt,
  reason: 'HTTP 503',
  retryAt: at(nowSeconds + 1),
  maxAttempts,
  now: at(nowSeconds),
});

describe('populate request decider', () => {
  it('claims a new request as attempt 1', () => {
    given(populateRequestDecider).when(claim(0)).then([claimed(1, 0)]);
  });

  it('records the supply point found by the attempt holding the claim', () => {
    given(populateRequestDecider, [claimed(1, 0)])
      .when(found(1))
      .then([
        {
          type: 'SupplyPointImported',
          version: 1,
          data: {
            ...request,
            attempt: 1,
            customerCategory: 'Domestic',
            address,
            details: { identifier: request.identifier, address, meter: { serial: 'M1' } },
            importedAt: at(5),
          },
        },
      ]);
  });

  it('refuses a claim while another holds it, and before a retry is due', () => {
    given(populateRequestDecider, [claimed(1, 0)]).when(claim(29)).thenFails('populate_request_claimed');
    given(populateRequestDecider, [claimed(1, 0), failed(1, 10)]).when(claim(9)).thenFails('populate_request_not_due');
    given(populateRequestDecider, [claimed(1, 0), failed(1, 10)]).when(claim(10)).then([claimed(2, 10)]);
  });

  it('takes over a claim whose lease ran out, counting the lost attempt', () => {
    given(populateRequestDecider, [claimed(1, 0)]).when(claim(30)).then([claimed(2, 30)]);
  });

  it('errors a request whose last allowed attempt was lost with its worker', () => {
    given(populateRequestDecider, [claimed(1, 0), failed(1, 10), claimed(2, 10), failed(2, 20), claimed(3, 20)])
      .when(claim(50))
      .then([
        {
          type: 'SupplyPointPopulateRequestErrored',
          version: 1,
          data: { ...request, attempt: 3, reason: expect.stringMatching(/worker stopped/) as unknown as string, erroredAt: at(50) },
        },
      ]);
  });

  it('retries a transient failure until the last attempt, then errors with the reason', () => {
    given(populateRequestDecider, [claimed(1, 0)])
      .when(transient(1))
      .then([{ type: 'SupplyPointPopulateAttemptFailed', version: 1, data: { ...request, attempt: 1, reason: 'HTTP 503', retryAt: at(10), failedAt: at(9) } }]);
    given(populateRequestDecider, [claimed(1, 0), failed(1, 10), claimed(2, 10), failed(2, 20), claimed(3, 20)])
      .when(transient(3))
      .then([
        {
          type: 'SupplyPointPopulateRequestErrored',
          version: 1,
          data: { ...request, attempt: 3, reason: 'HTTP 503 (gave up after 3 attempts)', erroredAt: at(9) },
        },
      ]);
  });

  it('errors at once when the operator refuses', () => {
    given(populateRequestDecider, [claimed(1, 0)])
      .when({ type: 'RecordPopulateRequestRefused', request, attempt: 1, reason: 'Unknown PRM', now: at(1) })
      .then([{ type: 'SupplyPointPopulateRequestErrored', version: 1, data: { ...request, attempt: 1, reason: 'Unknown PRM', erroredAt: at(1) } }]);
  });

  it('gives a released claim back without counting the attempt', () => {
    const released: SupplyPointPopulateRequestEvent = {
      type: 'SupplyPointPopulateRequestReleased',
      version: 1,
      data: { ...request, attempt: 1, reason: 'stopping', releasedAt: at(1) },
    };
    given(populateRequestDecider, [claimed(1, 0)])
      .when({ type: 'ReleasePopulateRequest', request, attempt: 1, reason: 'stopping', now: at(1) })
      .then([released]);
    given(populateRequestDecider, [claimed(1, 0), released]).when(claim(2)).then([claimed(1, 2)]);
  });

  it('accepts a result only from the attempt holding the claim, and nothing once the request ended', () => {
    given(populateRequestDecider).when(found(1)).thenFails('populate_claim_lost');
    given(populateRequestDecider, [claimed(1, 0), claimed(2, 30)]).when(found(1)).thenFails('populate_claim_lost');
    const imported = populateRequestDecider.decide(found(1), populateRequestDecider.evolve(populateRequestDecider.initialState, claimed(1, 0)));
    given(populateRequestDecider, [claimed(1, 0), ...imported]).when(claim(100)).thenFails('populate_request_finished');
    given(populateRequestDecider, [claimed(1, 0), ...imported]).when(found(1)).thenFails('populate_request_finished');
  });

  it('backs off exponentially, capped, and waits at least what Retry-After asks (capped too)', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(DEFAULT_RETRY_POLICY, n, null))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, 5_000)).toBe(5_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 4, 5_000)).toBe(8_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, 86_400_000)).toBe(DEFAULT_RETRY_POLICY.maxRetryAfterMs);
  });

  it('property: whatever workers do, a request ends at most once, nothing follows its end, attempts stay within the limit', () => {
    const maxAttempts = 3;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('claim' as const), advance: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constantFrom('found' as const, 'transient' as const, 'refused' as const, 'release' as const), attempt: fc.integer({ min: 1, max: 4 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let state = populateRequestDecider.initialState;
        let clock = 0;
        const log: SupplyPointPopulateRequestEvent[] = [];
        for (const s of steps) {
          let command: PopulateRequestCommand;
          if (s.kind === 'claim') {
            clock += s.advance;
            command = claim(clock, maxAttempts);
          } else if (s.kind === 'found') command = { ...found(s.attempt), now: at(clock) };
          else if (s.kind === 'transient') command = transient(s.attempt, maxAttempts, clock);
          else if (s.kind === 'refused') command = { type: 'RecordPopulateRequestRefused', request, attempt: s.attempt, reason: 'no', now: at(clock) };
          else command = { type: 'ReleasePopulateRequest', request, attempt: s.attempt, reason: 'stop', now: at(clock) };
          try {
            const events = populateRequestDecider.decide(command, state);
            log.push(...events);
            state = events.reduce(populateRequestDecider.evolve, state);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
          }
        }
        const ends = log.filter((e) => e.type === 'SupplyPointImported' || e.type === 'SupplyPointPopulateRequestErrored');
        expect(ends.length).toBeLessThanOrEqual(1);
        if (ends.length === 1) expect(log[log.length - 1]).toBe(ends[0]);
        for (const e of log) expect(e.data.attempt).toBeLessThanOrEqual(maxAttempts);
        // replay of the log gives the live state
        expect(log.reduce(populateRequestDecider.evolve, populateRequestDecider.initialState)).toEqual(state);
      }),
      { numRuns: 300 },
    );
  });
});
