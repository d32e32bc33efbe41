import { Hono } from 'hono';
import { z } from 'zod';
import type { DocumentStore } from '../../adapters/document-store.js';
import type { LedgerContext } from '../../application/context.js';
import { importHistoricalStatements } from '../../application/historical-statements.js';
import { centsToNumber } from '../../domain/account-records/money.js';
import { historicalStatementsFailedValidation } from '../../domain/statements/decider.js';
import {
  importHistoricalStatementsRequestSchema,
  validateImportHistoricalStatementsRequest,
} from '../../domain/statements/statement-payload.js';
import { httpActor, requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { scopedBody } from './record-requests.js';

/** POST historical-statements/create/ (spec 4.11). */
export const createHistoricalStatementsRequestSchema = importHistoricalStatementsRequestSchema;
/** 201: the validated data (unknown fields dropped). */
export const createHistoricalStatementsResponseSchema = z.object({
  import_supplier: z.string(),
  external_account_number: z.string(),
  statements: z.array(
    z.object({
      bill_period_from_date: z.string(),
      bill_period_to_date: z.string(),
      statement_id: z.string(),
      issued_date: z.string().nullable().optional(),
      number: z.string().nullable().optional(),
      gross_amount: z.number().nullable().optional(),
      statement_path: z.string().optional(),
    }),
  ),
});

export function historicalStatementRoutes(ctx: LedgerContext, documents: DocumentStore) {
  return new Hono<AppEnv>().post('/historical-statements/create/', async (c) => {
    const validation = validateImportHistoricalStatementsRequest(await scopedBody(c));
    if (!validation.ok) throw historicalStatementsFailedValidation(validation.errors);
    const request = validation.data;
    requireSupplierScope(c, request.import_supplier);
    await importHistoricalStatements(ctx, documents, request, httpActor(c));
    const body: z.input<typeof createHistoricalStatementsResponseSchema> = {
      import_supplier: request.import_supplier,
      external_account_number: request.external_account_number,
      statements: request.statements.map((statement) => ({ ...statement, gross_amount: centsToNumber(statement.gross_amount) })),
    };
    return c.json(body, 201);
  });
}
