import { z } from 'zod';
import { isoDate } from '../account-import-process/iso-dates.js';
import { datesInOrder, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { centsAmount } from '../account-records/money.js';
import { accountEnvelopeFields, MAX_RECORDS_PER_REQUEST, validateAccountRequest, withAccountNumberAlias } from '../account-records/request-fields.js';
import { noRepeatedKeys, type Validation } from '../validation/field-errors.js';

/**
 * One statement of historical-statements/create/ (spec 4.11): its period and id are required; `issued_date`,
 * `number` and `gross_amount` may be left out or null, as the platform's documents allow.
 */
const statementInputSchema = z
  .object({
    bill_period_from_date: isoDate(),
    bill_period_to_date: isoDate(),
    statement_id: requiredText(128),
    issued_date: isoDate().nullable().optional(),
    number: requiredText(128).nullable().optional(),
    /** Major units in the request (the spec's example sends 71.4), cents inside; a credit statement may be negative. */
    gross_amount: centsAmount().nullable().optional(),
    statement_path: requiredText(1024).optional(),
  })
  .superRefine(...datesInOrder('report', 'bill_period_from_date', 'bill_period_to_date'));
export type StatementInput = z.output<typeof statementInputSchema>;

const repeatedStatementIds = noRepeatedKeys(
  (statement: StatementInput) => statement.statement_id,
  'duplicate_statement_ids',
  (id) => `Duplicate statement_id "${id}" in this request.`,
  (index) => ['statements', index, 'statement_id'],
);

export const importHistoricalStatementsRequestSchema = withAccountNumberAlias(
  z
    .object({
      ...accountEnvelopeFields,
      statements: z.array(statementInputSchema).min(1).max(MAX_RECORDS_PER_REQUEST),
    })
    .superRefine((request, ctx) => repeatedStatementIds(request.statements, ctx), whenClean(['statements'])),
);
export type ImportHistoricalStatementsRequest = z.output<typeof importHistoricalStatementsRequestSchema>;

export function validateImportHistoricalStatementsRequest(input: unknown): Validation<ImportHistoricalStatementsRequest> {
  return validateAccountRequest(importHistoricalStatementsRequestSchema, input);
}

