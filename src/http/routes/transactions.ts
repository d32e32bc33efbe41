import { Hono, type Context } from 'hono';
import { transactionsAnswer } from '../../answers/account-records.js';
import { importTransactions } from '../../application/account-transactions.js';
import type { LedgerContext } from '../../application/context.js';
import { transactionsFailedValidation } from '../../domain/ledger/decider.js';
import { importTransactionsRequestSchema, validateImportTransactionsRequest } from '../../domain/ledger/transaction-payload.js';
import { DomainError } from '../../domain/errors.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/** POST transactions/create/ (spec 4.10); query parameters below. */
export const createTransactionsRequestSchema = importTransactionsRequestSchema;
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

export function transactionRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().post('/transactions/create/', async (c) => {
    const body = await scopedBody(c);
    const options = {
      checkPreviouslyAdded: booleanQuery(c, 'check_previously_added', true),
      forceAddToCurrentStatement: booleanQuery(c, 'force_add_to_current_statement', true),
    };
    const request = validated(body, validateImportTransactionsRequest, transactionsFailedValidation);
    return answer(c, transactionsAnswer(await importTransactions(ctx, request, options, httpActor(c))));
  });
}
