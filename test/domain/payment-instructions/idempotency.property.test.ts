import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import type { PaymentVendors } from '../../../src/adapters/payment-vendors.js';
import { processAccount, stageAccount } from '../../../src/application/account-import-processes.js';
import { createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { createPaymentInstruction } from '../../../src/application/payment-instructions.js';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { isDomainError } from '../../../src/domain/errors.js';
import type { VendorAnswer } from '../../../src/domain/payment-instruction/commands.js';
import { createTestLedger, loadExample, operator, SUPPLIER, TEAM } from '../../support/ledger.js';
import { createExampleProducts } from '../../support/products.js';

const EXT = 'LEG-0000001';
type AnswerKind = VendorAnswer['kind'];

const requestArb = fc.record({
  reference: fc.constantFrom('pm_a', 'pm_b', 'pm_c', 'MD 1/2'),
  answer: fc.constantFrom<AnswerKind>('found', 'found', 'rejected', 'unavailable', 'not-configured'),
});

function answerFor(kind: AnswerKind, reference: string): VendorAnswer {
  switch (kind) {
    case 'found':
      return { kind, details: { reference, type: 'CARD', status: 'active' } };
    case 'rejected':
      return { kind, status: 404, message: 'no such instruction' };
    case 'unavailable':
      return { kind, reason: 'down' };
    case 'not-configured':
      return { kind };
  }
}

describe('payment instructions: any sequence of requests (repeats, failures, concurrency)', () => {
  it('records each reference at most once, exactly the ones a vendor once confirmed; the projection equals the log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { maxLength: 12 }), fc.boolean(), async (requests, concurrently) => {
        const t = await createTestLedger();
        try {
          await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
          await createOperationsTeam(t.ledger, TEAM, operator);
          await createExampleProducts(t.ledger);
          const validated = validateAccountPayload(loadExample('account-domestic.json'));
          if (!validated.ok) throw new Error('example must validate');
          await stageAccount(t.ledger, validated.data, operator);
          await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: EXT, operationsTeamName: TEAM, dryRun: false }, operator);

          const confirmed = new Set<string>();
          const send = async ({ reference, answer }: (typeof requests)[number]) => {
            const vendors: PaymentVendors = { names: ['STRIPE'], fetchInstruction: async () => answerFor(answer, reference) };
            try {
              await createPaymentInstruction(
                t.ledger,
                vendors,
                { importSupplier: SUPPLIER, externalAccountNumber: EXT, vendor: 'STRIPE', reference, instructionType: 'CARD' },
                operator,
              );
              confirmed.add(reference);
            } catch (error) {
              if (!isDomainError(error)) throw error;
            }
          };
          if (concurrently) await Promise.all(requests.map(send));
          else for (const request of requests) await send(request);

          const stream = await t.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, EXT));
          const created = stream.flatMap((s) => (s.event.type === 'PaymentInstructionCreated' ? [s.event.data.reference] : []));
          expect(new Set(created).size).toBe(created.length);
          expect(new Set(created)).toEqual(confirmed);
          const rows = await t.ledger.read.listPaymentInstructions(SUPPLIER, EXT);
          expect(rows.map((row) => row.reference).sort()).toEqual([...created].sort());
        } finally {
          await t.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
