import { Hono } from 'hono';
import type { DocumentStore } from '../../adapters/document-store.js';
import { historicalStatementsAnswer } from '../../answers/account-records.js';
import type { LedgerContext } from '../../application/context.js';
import { importHistoricalStatements } from '../../application/historical-statements.js';
import { historicalStatementsFailedValidation } from '../../domain/statements/decider.js';
import {
  importHistoricalStatementsRequestSchema,
  validateImportHistoricalStatementsRequest,
} from '../../domain/statements/statement-payload.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/** POST historical-statements/create/ (spec 4.11). */
export const createHistoricalStatementsRequestSchema = importHistoricalStatementsRequestSchema;

export function historicalStatementRoutes(ctx: LedgerContext, documents: DocumentStore) {
  return new Hono<AppEnv>().post('/historical-statements/create/', async (c) => {
    const request = validated(await scopedBody(c), validateImportHistoricalStatementsRequest, historicalStatementsFailedValidation);
    await importHistoricalStatements(ctx, documents, request, httpActor(c));
    return answer(c, historicalStatementsAnswer(request));
  });
}
