import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import { inlineProjections } from '../../../projections/index.js';
import type { DocumentStore } from '../../../src/adapters/document-store.js';
import { importNotes } from '../../../src/application/account-notes.js';
import { importTransactions } from '../../../src/application/account-transactions.js';
import { importHistoricalStatements } from '../../../src/application/historical-statements.js';
import { createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { DomainError } from '../../../src/domain/errors.js';
import { balanceEffectCents } from '../../../src/domain/ledger/ledger-transaction.js';
import { validateImportTransactionsRequest } from '../../../src/domain/ledger/transaction-payload.js';
import { contentKey } from '../../../src/domain/notes/note-book.js';
import { instantOf, validateImportNotesRequest } from '../../../src/domain/notes/note-payload.js';
import { validateImportHistoricalStatementsRequest } from '../../../src/domain/statements/statement-payload.js';
import { importedExampleAccount } from '../../support/account-records.js';
import { createTestLedger, operator, SUPPLIER, TEAM, type TestLedger } from '../../support/ledger.js';
import { createExampleProducts } from '../../support/products.js';

/**
 * The account records' properties: for any sequence of note, transaction and
 * statement requests (repeats, reorderings, duplicate ids, both query options),
 * no note content+created_at pair and no transaction_id is ever stored twice,
 * replaying the log reproduces the projections, and the ledger balance is the
 * signed sum of the stored transactions.
 */

const EXT = 'LEG-0000001';
const documents: DocumentStore = { exists: async (_root, path) => path.startsWith('docs/') };

const note = fc.record(
  {
    body: fc.constantFrom('a', 'b', 'Call back'),
    created_at: fc.constantFrom('2025-07-01T10:00:00Z', '2025-07-01T12:00:00+02:00', '2025-07-02T08:00:00Z'),
    is_pinned: fc.boolean(),
    document_paths: fc.oneof(
      { weight: 5, arbitrary: fc.constant([{ document_path: 'docs/a.pdf' }]) },
      { weight: 1, arbitrary: fc.constant([{ document_path: 'missing.pdf' }]) },
    ),
  },
  { requiredKeys: [] },
);

const transaction = fc.oneof(
  fc
    .record({
      transaction_id: fc.constantFrom('T1', 'T2', 'T3', 'T4', 'T5', 'T6'),
      transaction_date: fc.constantFrom('2025-05-15', '2025-06-30', '2025-07-01', '2025-07-20', '2025-08-15'),
      cents: fc.integer({ min: 1, max: 5000 }),
      reversal: fc.boolean(),
      type: fc.constantFrom('CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT'),
      reason: fc.constant('IMPORTED'),
    })
    // Charges and credits may be negative (a reversal); payments and repayments are positive.
    .map(({ cents, reversal, ...tx }) => ({ ...tx, amount: (reversal && (tx.type === 'CHARGE' || tx.type === 'CREDIT') ? -cents : cents) / 100 })),
  fc.record({
    transaction_id: fc.constantFrom('T1', 'S1', 'S2'),
    transaction_date: fc.constant('2025-07-31'),
    amount: fc.constant(26.18),
    type: fc.constant('SUPPLY_CHARGE'),
    product_code: fc.constantFrom('ELEC-FIXE-2025', 'UNKNOWN'),
    line_items: fc.constant([{ rate_band: 'BASE', start_date: '2025-07-01', end_date: '2025-07-31', number_of_units: 110, net_amount: 21.82 }]),
    tax_items: fc.constant([{ amount: 4.36, tax_type: 'VAT', value_taxed: 21.82, rate: 0.2, unit_type: 'PROPORTION' }]),
  }),
);

const statement = fc.record({
  statement_id: fc.constantFrom('ST-A', 'ST-B', 'ST-2025-05-0000001'),
  bill_period_from_date: fc.constant('2025-07-01'),
  bill_period_to_date: fc.constantFrom('2025-07-10', '2025-07-31'),
  issued_date: fc.constant('2025-08-02'),
  number: fc.constant('F-1'),
  gross_amount: fc.constant(12.5),
});

type Request =
  | { kind: 'notes'; notes: unknown[] }
  | { kind: 'transactions'; transactions: unknown[]; check: boolean; force: boolean }
  | { kind: 'statements'; statements: unknown[] };

const request: fc.Arbitrary<Request> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('notes' as const), notes: fc.array(note, { minLength: 1, maxLength: 4 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('transactions' as const),
      // Mostly distinct ids; sometimes a repeat inside the request (refused as a whole).
      transactions: fc.oneof(
        { weight: 4, arbitrary: fc.uniqueArray(transaction, { minLength: 1, maxLength: 4, selector: (tx) => tx.transaction_id }) },
        { weight: 1, arbitrary: fc.array(transaction, { minLength: 1, maxLength: 4 }) },
      ),
      check: fc.boolean(),
      force: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('statements' as const), statements: fc.array(statement, { minLength: 1, maxLength: 2 }) }) },
);

const envelope = { import_supplier: SUPPLIER, external_account_number: EXT };

async function run(t: TestLedger, req: Request): Promise<void> {
  t.clock.advanceSeconds(1);
  try {
    if (req.kind === 'notes') {
      const v = validateImportNotesRequest({ ...envelope, notes: req.notes });
      if (v.ok) await importNotes(t.ledger, documents, v.data, operator);
    } else if (req.kind === 'transactions') {
      const v = validateImportTransactionsRequest({ ...envelope, transactions: req.transactions });
      if (v.ok) await importTransactions(t.ledger, v.data, { checkPreviouslyAdded: req.check, forceAddToCurrentStatement: req.force }, operator);
    } else {
      const v = validateImportHistoricalStatementsRequest({ ...envelope, statements: req.statements });
      if (v.ok) await importHistoricalStatements(t.ledger, documents, v.data, operator);
    }
  } catch (error) {
    // Refusals are part of the game; anything else is a bug.
    if (!(error instanceof DomainError)) throw error;
  }
}

describe('notes, transactions and statements of one account (property)', () => {
  it('never store a note or a transaction twice; replay reproduces the projections; balance = signed sum', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (requests) => {
        const t = await createTestLedger();
        try {
          await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
          await createOperationsTeam(t.ledger, TEAM, operator);
          await createExampleProducts(t.ledger);
          await importedExampleAccount(t.ledger);
          for (const req of requests) await run(t, req);

          const stream = (await t.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, EXT))).map((s) => s.event);

          // (1) no note content + created_at instant twice, in the log and in the projection
          const noteKeys = stream.flatMap((e) => (e.type === 'AccountNoteCreated' ? [`${contentKey(e.data.body, e.data.documentPaths)}@${instantOf(e.data.createdAt)}`] : []));
          expect(new Set(noteKeys).size).toBe(noteKeys.length);
          const notes = await t.ledger.read.listAccountNotes(SUPPLIER, EXT);
          expect(notes.map((n) => n.sequence)).toEqual(notes.map((_, i) => i + 1));
          expect(notes).toHaveLength(noteKeys.length);

          // (1) no transaction_id twice
          const added = stream.flatMap((e) => (e.type === 'LedgerTransactionAdded' ? [e.data.transaction] : []));
          expect(new Set(added.map((tx) => tx.transactionId)).size).toBe(added.length);

          // (2) the balance is the signed sum of the stored transactions; the running balance ends there
          const ledger = await t.ledger.read.accountLedger(SUPPLIER, EXT);
          const signedSum = added.reduce((sum, tx) => sum + balanceEffectCents(tx.type, tx.amountCents), 0);
          expect(ledger.balanceCents).toBe(signedSum);
          expect(ledger.lines).toHaveLength(added.length);
          expect(ledger.lines.at(-1)?.runningBalanceCents ?? 0).toBe(signedSum);
          const dates = ledger.lines.map((l) => l.transaction.transactionDate);
          expect(dates).toEqual([...dates].sort());

          // replaying the stored events reproduces every projection table exactly
          // (account_notes, account_ledger_transactions, account_ledgers, account_historical_statements among them)
          const { differences } = await t.ledger.projections.verify(inlineProjections);
          expect(differences).toEqual([]);
        } finally {
          await t.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
