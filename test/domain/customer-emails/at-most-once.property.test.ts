import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CustomerWelcomeEmailQueued } from '../../../events/customer-email.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { customerEmailDecider as decider, type MailDelivery } from '../../../src/domain/customer-email/decider.js';
import { isDomainError } from '../../../src/domain/errors.js';

const ref = { importSupplier: 'S', externalAccountNumber: 'E', emailId: 'A-00000000-welcome-0' };
const START = Date.parse('2026-11-21T10:00:00.000Z');
const LEASE_MS = 60_000;
const RETRY_MS = 30_000;

const queued: CustomerWelcomeEmailQueued = {
  type: 'CustomerWelcomeEmailQueued',
  version: 1,
  data: { ...ref, platformAccountNumber: 'A-00000000', customerIndex: 0, to: 'a@example.fr', subject: 's', text: 't', queuedAt: new Date(START).toISOString() },
};

const deliveryArb: fc.Arbitrary<MailDelivery> = fc.oneof(
  fc.constant<MailDelivery>({ kind: 'sent', messageId: 'm', response: '250' }),
  fc.boolean().map<MailDelivery>((permanent) => ({ kind: 'refused', permanent, reason: 'r' })),
  fc.constant<MailDelivery>({ kind: 'unknown', reason: 'u' }),
);

/** What mailers (several, racing, some dying) may do to one email, with time passing in between. */
const stepArb = fc.oneof(
  fc.record({ op: fc.constant('claim' as const), waitMs: fc.integer({ min: 0, max: 2 * LEASE_MS }) }),
  fc.record({ op: fc.constant('record' as const), attemptDelta: fc.integer({ min: -1, max: 1 }), delivery: deliveryArb, maxAttempts: fc.integer({ min: 1, max: 4 }) }),
);

describe('customer email: at most once, whatever the mailers do', () => {
  it('a new attempt is claimed only after the previous one certainly failed; nothing follows sent or failed', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const log: LedgerEvent[] = [queued];
        let now = START;
        for (const step of steps) {
          const state = log.reduce((s, e) => decider.evolve(s, e), decider.initialState);
          const current = state.emails.get(ref.emailId);
          const lastAttempt = current && 'attempt' in current ? current.attempt : current?.status === 'queued' ? current.attemptsUsed : 0;
          try {
            if (step.op === 'claim') {
              now += step.waitMs;
              const at = new Date(now).toISOString();
              log.push(...decider.decide({ type: 'ClaimCustomerEmail', email: ref, now: at, leaseExpiresAt: new Date(now + LEASE_MS).toISOString() }, state));
            } else {
              log.push(
                ...decider.decide(
                  {
                    type: 'RecordCustomerEmailDelivery',
                    email: ref,
                    attempt: lastAttempt + step.attemptDelta,
                    delivery: step.delivery,
                    retryAt: new Date(now + RETRY_MS).toISOString(),
                    maxAttempts: step.maxAttempts,
                    now: new Date(now).toISOString(),
                  },
                  state,
                ),
              );
            }
          } catch (error) {
            if (!isDomainError(error)) throw error;
          }
        }
        const types = log.map((e) => e.type);
        // Nothing after the final event.
        const final = types.findIndex((type) => type === 'CustomerEmailSent' || type === 'CustomerEmailFailed');
        if (final >= 0) expect(final).toBe(types.length - 1);
        expect(types.filter((type) => type === 'CustomerEmailSent').length).toBeLessThanOrEqual(1);
        // Every claim after the first follows a certain failure of the attempt before it.
        log.forEach((event, i) => {
          if (event.type !== 'CustomerEmailSendClaimed' || event.data.attempt === 1) return;
          const previous = log[i - 1];
          expect(previous?.type).toBe('CustomerEmailSendFailed');
          expect(previous?.type === 'CustomerEmailSendFailed' && previous.data.attempt).toBe(event.data.attempt - 1);
        });
      }),
      { numRuns: 300 },
    );
  });
});
