import type { z } from 'zod';
import { addDomainIssue, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { validateWith, type Validation } from '../validation/field-errors.js';

/** Most notes, transactions or statements one request may carry (spec 8.2 leaves array sizes open). */
export const MAX_RECORDS_PER_REQUEST = 1000;

/**
 * The account a post-import request names (spec 4.9-4.11 call the supplier
 * `import_supplier`): `external_account_number`, or the platform's deprecated
 * alias `account_number` that its clients still send (x-use-instead:
 * external_account_number). Either one, or both with the same value: see
 * validateAccountRequest and withAccountNumberAlias.
 */
export const accountEnvelopeFields = {
  import_supplier: requiredText(),
  external_account_number: requiredText(128).meta({ description: 'The account. The deprecated `account_number` may be sent instead.' }),
  account_number: requiredText(128)
    .optional()
    .meta({ deprecated: true, description: 'Deprecated alias of `external_account_number` (the platform\'s): send either; both only with the same value.' }),
};

/** The platform's code for two fields of which only one may be given. */
export const FIELDS_ARE_MUTUALLY_EXCLUSIVE = 'fields_are_mutually_exclusive';

interface AccountEnvelope {
  readonly external_account_number: string;
  readonly account_number?: string | undefined;
}

/**
 * Wraps a schema that spreads accountEnvelopeFields: two different values are
 * `fields_are_mutually_exclusive` at `account_number` (checked even when other
 * fields fail, so every problem is listed at once), and the parsed request
 * names the account under `external_account_number` only.
 */
export function withAccountNumberAlias<S extends z.ZodType<AccountEnvelope>>(schema: S) {
  return schema
    .superRefine((request, ctx) => {
      if (request.account_number !== undefined && request.account_number !== request.external_account_number) {
        addDomainIssue(ctx, FIELDS_ARE_MUTUALLY_EXCLUSIVE, 'account_number is a deprecated alias of external_account_number: send one of them.', ['account_number']);
      }
    }, whenClean(['external_account_number'], ['account_number']))
    .transform((request) => {
      const { account_number: _alias, ...rest } = request as z.output<S> & AccountEnvelope;
      return rest as Omit<z.output<S>, 'account_number'>;
    });
}

/**
 * The alias stands in for a missing `external_account_number` before the
 * request is parsed, so the account's field keeps its place and its codes
 * (`required` when neither is sent, `blank`, `max_length`).
 */
function withAliasResolved(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const fields = input as Record<string, unknown>;
  const alias = fields['account_number'];
  if (fields['external_account_number'] !== undefined || typeof alias !== 'string' || alias.trim() === '') return input;
  return { ...fields, external_account_number: alias };
}

/** validateWith for a post-import request: its account named by `external_account_number` or the deprecated `account_number`. */
export function validateAccountRequest<S extends z.ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  return validateWith(schema, withAliasResolved(input));
}
