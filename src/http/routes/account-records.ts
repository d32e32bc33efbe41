import { Hono, type Context } from 'hono';
import type { DocumentStore } from '../../adapters/document-store.js';
import { historicalStatementsAnswer, notesAnswer, transactionsAnswer } from '../../answers/account-records.js';
import { importNotes } from '../../application/account-notes.js';
import { importTransactions } from '../../application/account-transactions.js';
import type { LedgerContext } from '../../application/context.js';
import { importHistoricalStatements } from '../../application/historical-statements.js';
import { DomainError } from '../../domain/errors.js';
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
import { validated } from '../validation.js';

/** The query parameters of transactions/create/. */
export const transactionQueryParameters = ['check_previously_added', 'force_add_to_current_statement'] as const;

/** A boolean query parameter: absent is its default; present exactly once as `true` or `false`; anything else is a 400. */
function booleanQuery(c: Context<AppEnv>, name: (typeof transactionQueryParameters)[number], fallback: boolean): boolean {
  const values = c.req.queries(name);
  if (values === undefined) return fallback;
  if (values.length === 1 && (values[0] === 'true' || values[0] === 'false')) return values[0] === 'true';
  throw new DomainError('invalid_query_parameter', 'A query parameter is not valid.', {
    errors: [{ detail: `${name} must be given once, as "true" or "false".`, code: 'invalid', attr: name }],
  });
}

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
      const options = {
        checkPreviouslyAdded: booleanQuery(c, 'check_previously_added', true),
        forceAddToCurrentStatement: booleanQuery(c, 'force_add_to_current_statement', true),
      };
      const request = validated(body, validateImportTransactionsRequest, transactionsFailedValidation);
      return answer(c, transactionsAnswer(await importTransactions(ctx, request, options, httpActor(c))));
    })
    .post('/historical-statements/create/', recordingRefusals(ctx, recordImportAttempt('historical_statements')), async (c) => {
      const request = validated(await scopedBody(c), validateImportHistoricalStatementsRequest, historicalStatementsFailedValidation);
      await importHistoricalStatements(ctx, documents, request, httpActor(c));
      return answer(c, historicalStatementsAnswer(request));
    });
}
