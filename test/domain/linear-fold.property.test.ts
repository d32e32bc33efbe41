import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../events/envelope.js';
import { businessDecider } from '../../src/domain/business/decider.js';
import { customerEmailDecider } from '../../src/domain/customer-email/decider.js';
import { fold, type AnyDecider } from '../../src/domain/decider.js';
import { ledgerDecider } from '../../src/domain/ledger/decider.js';
import { notesDecider } from '../../src/domain/notes/decider.js';
import { paymentInstructionDecider } from '../../src/domain/payment-instruction/decider.js';
import { serviceConfigDecider } from '../../src/domain/service-config/service-config-decider.js';
import { statementsDecider } from '../../src/domain/statements/decider.js';

/**
 * The deciders whose state holds collections fold a stream in one
 * pass, mutating only a state the fold owns. For any sequence of their events
 * (split anywhere, as a store folds the history and then the new events), the
 * fast fold equals the reference fold (`evolve` one event at a time), and
 * neither fold changes the state it started from.
 *
 * The events carry only the fields the evolves read (small alphabets, so ids,
 * note contents and instants repeat); the other fields do not reach a state.
 */

const event = (type: string, data: Record<string, unknown>) => ({ type, version: 1, data }) as unknown as DomainEvent;
const id = fc.constantFrom('A', 'B', 'C', 'D');
const date = fc.constantFrom('2025-06-30', '2025-07-31', '2025-05-31');

const accountEvents = [
  date.map((d) => event('AccountStaged', { payload: { last_billed_to_date: d } })),
  date.map((d) => event('AccountRestaged', { payload: { last_billed_to_date: d } })),
  id.map((n) => event('AccountProcessed', { platformAccountNumber: `P-${n}` })),
  id.map((n) => event('LedgerTransactionAdded', { transaction: { transactionId: n } })),
  fc.tuple(id, date).map(([n, d]) => event('HistoricalStatementImported', { statementId: n, billPeriodToDate: d })),
  fc
    .record({ body: fc.constantFrom(null, 'a', 'b'), paths: fc.constantFrom([], ['x.pdf']), at: fc.constantFrom('2025-07-01T10:00:00Z', '2025-07-02T10:00:00Z') })
    .map(({ body, paths, at }) => event('AccountNoteCreated', { body, documentPaths: paths, createdAt: at })),
  id.map((n) => event('PaymentInstructionCreated', { reference: n })),
  id.map((n) => event('CustomerWelcomeEmailQueued', { emailId: n })),
  fc.tuple(id, fc.nat(3)).map(([n, attempt]) => event('CustomerEmailSendClaimed', { emailId: n, attempt, leaseExpiresAt: '2025-07-01T10:05:00Z' })),
  fc.tuple(id, fc.nat(3)).map(([n, attempt]) => event('CustomerEmailSendFailed', { emailId: n, attempt, retryAt: '2025-07-01T11:00:00Z' })),
  fc.tuple(id, fc.nat(3)).map(([n, attempt]) => event('CustomerEmailSent', { emailId: n, attempt })),
  fc.tuple(id, fc.nat(3)).map(([n, attempt]) => event('CustomerEmailFailed', { emailId: n, attempt })),
  // An event of the stream none of these deciders folds.
  fc.constant(event('AccountTransferStatusChanged', { from: 'PENDING', to: 'IN_PROGRESS' })),
];

const businessEvents = [
  fc.constantFrom('Acme', 'Bolt').map((name) => event('BusinessCreated', { business: { business_type: 'SAS', company_name: name, siret: '1' } })),
  id.map((identifier) => event('BusinessContractAdded', { identifier })),
];

const configEvents = [
  fc
    .tuple(fc.constantFrom('process-concurrency-limit', 'request-rate-per-second'), fc.option(fc.integer({ min: 1, max: 5 })))
    .map(([key, value]) => event('ServiceConfigChanged', { key, value })),
];

const cases: { name: string; decider: AnyDecider; events: fc.Arbitrary<DomainEvent>[] }[] = [
  { name: 'ledger', decider: ledgerDecider, events: accountEvents },
  { name: 'statements', decider: statementsDecider, events: accountEvents },
  { name: 'notes', decider: notesDecider, events: accountEvents },
  { name: 'payment instructions', decider: paymentInstructionDecider, events: accountEvents },
  { name: 'customer emails', decider: customerEmailDecider, events: accountEvents },
  { name: 'business', decider: businessDecider, events: businessEvents },
  { name: 'service config', decider: serviceConfigDecider, events: configEvents },
];

/** The reference fold: one evolve per event, each returning a new state. */
const referenceFold = (decider: AnyDecider, events: readonly DomainEvent[], from: unknown): unknown =>
  events.reduce((state, e) => decider.evolve(state, e), from);

describe('the linear fold', () => {
  for (const { name, decider, events } of cases) {
    it(`${name}: the fold equals the reference fold, split anywhere, and changes no state it is given`, () => {
      expect(decider.fold).toBeTypeOf('function');
      fc.assert(
        fc.property(fc.array(fc.oneof(...events), { maxLength: 40 }), fc.nat(), (log, cut) => {
          const at = log.length === 0 ? 0 : cut % (log.length + 1);
          const history = log.slice(0, at);
          const later = log.slice(at);

          const folded = fold(decider, history);
          const snapshot = structuredClone(folded);
          const reference = referenceFold(decider, history, decider.initialState);
          expect(folded).toEqual(reference);

          // As a store does it: the history folded, then the new events from that state.
          expect(fold(decider, later, folded)).toEqual(referenceFold(decider, later, reference));
          expect(folded).toEqual(snapshot);
          // evolve one at a time from the fast fold's state agrees too, and leaves it alone.
          expect(referenceFold(decider, later, folded)).toEqual(referenceFold(decider, log, decider.initialState));
          expect(folded).toEqual(snapshot);
          expect(decider.initialState).toEqual(structuredClone(decider.initialState));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('folds a 10,000-transaction account stream in one pass (no copy per event)', () => {
    const stream = [
      event('AccountStaged', { payload: {} }),
      event('AccountProcessed', { platformAccountNumber: 'P-1' }),
      ...Array.from({ length: 10_000 }, (_, i) => event('LedgerTransactionAdded', { transaction: { transactionId: `T-${i}` } })),
    ];
    const state = fold(ledgerDecider, stream as Parameters<typeof ledgerDecider.evolve>[1][]);
    expect(state.transactionIds.size).toBe(10_000);
    expect(state.account.status).toBe('imported');
  });
});
