import { Hono } from 'hono';
import { z } from 'zod';
import type { DocumentStore } from '../../adapters/document-store.js';
import { historicalStatementsAnswer, notesAnswer, transactionsAnswer } from '../../answers/account-records.js';
import { importNotes } from '../../application/account-notes.js';
import { importTransactions } from '../../application/account-transactions.js';
import type { LedgerContext } from '../../application/context.js';
import { importHistoricalStatements } from '../../application/historical-statements.js';
import { transactionsFailedValidation } from '../../domain/ledger/decider.js';
import { validateImportTransactionsRequest } from '../../domain/ledger/transaction-payload.js';
import { notesFailedValidation } from '../../domain/notes/decider.js';
import { validateImportNotesRequest } from '../../domain/notes/note-payload.js';
import { historicalStatementsFailedValidation } from '../../domain/statements/decider.js';
import { validateImportHistoricalStatementsRequest } from '../../domain/statements/statement-payload.js';
import { answer } from '../answer.js';
import { recordImportAttempt, recordingRefusals } from '../attempts.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';
import { validated } from '../validation.js';

/** A flag of the platform's: exactly `true` (the default) or `false`, at most once (else 400 `invalid_query_parameter`). */
const flag = (description: string) => z.enum(['true', 'false']).default('true').describe(description);

/** The query parameters of transactions/create/. */
export const transactionsQuerySchema = z.object({
  check_previously_added: flag('A `transaction_id` already on the account: `true` skips it (`TRANSACTION_ALREADY_EXISTS`), `false` fails the request (`transaction_already_added`).'),
  force_add_to_current_statement: flag(
    "A transaction dated before the open statement period: `true` moves it to the period's first day (with a pinned note), `false` fails the request (`transaction_not_in_open_statement_period`).",
  ),
});

/**
 * The records added to an imported account: notes (spec 4.9), transactions (4.10) and historical
 * statements (4.11). Each is one flow: the body's supplier scoped, the payload validated, the records
 * imported, the answer presented. A refusal (payload rules included) is recorded on the account's audit stream.
 */
export function accountRecordRoutes(ctx: LedgerContext, documents: DocumentStore) {
  return new Hono<AppEnv>()
    .post('/notes/create/', recordingRefusals(ctx, recordImportAttempt('notes')), async (c) => {
      const request = validated(await scopedBody(c), validateImportNotesRequest, notesFailedValidation);
      return answer(c, notesAnswer(await importNotes(ctx, documents, request, httpActor(c))));
    })
    .post('/transactions/create/', recordingRefusals(ctx, recordImportAttempt('transactions', 'dry_run')), async (c) => {
      const body = await scopedBody(c);
      const query = parseQuery(c, transactionsQuerySchema);
      const options = { checkPreviouslyAdded: query.check_previously_added === 'true', forceAddToCurrentStatement: query.force_add_to_current_statement === 'true' };
      const request = validated(body, validateImportTransactionsRequest, transactionsFailedValidation);
      return answer(c, transactionsAnswer(await importTransactions(ctx, request, options, httpActor(c))));
    })
    .post('/historical-statements/create/', recordingRefusals(ctx, recordImportAttempt('historical_statements')), async (c) => {
      const request = validated(await scopedBody(c), validateImportHistoricalStatementsRequest, historicalStatementsFailedValidation);
      await importHistoricalStatements(ctx, documents, request, httpActor(c));
      return answer(c, historicalStatementsAnswer(request));
    });
}
