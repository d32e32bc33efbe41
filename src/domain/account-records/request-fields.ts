import type { z } from 'zod';
import { addDomainIssue, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { validateWith, type Validation } from '../validation/field-errors.js';

/** Most notes, transactions or statements one request may carry (spec 8.2 leaves array sizes open). */
export const MAX_RECORDS_PER_REQUEST = 1000;

/**
 * The account a post-import request names (spec 4.9-4.11): `external_account_number`, or the platform's
 * deprecated alias `account_number` its clients still send; both only with the same value.
 */
export const accountEnvelopeFields = {
  import_supplier: requiredText(),
  external_account_number: requiredText(128).meta({ description: 'The account. The deprecated `account_number` may be sent instead.' }),
  account_number: requiredText(128)
    .optional()
    .meta({ deprecated: true, description: 'Deprecated alias of `external_account_number` (the platform\'s): send either; both only with the same value (else `fields_are_mutually_exclusive`).' }),
};

interface AccountEnvelope {
  readonly external_account_number: string;
  readonly account_number?: string | undefined;
}

/**
 * Wraps a schema that spreads accountEnvelopeFields: two different values are the platform's
 * `fields_are_mutually_exclusive` (checked even when other fields fail); the parsed request keeps
 * `external_account_number` only.
 */
export function withAccountNumberAlias<S extends z.ZodType<AccountEnvelope>>(schema: S) {
  return schema
    .superRefine((request, ctx) => {
      if (request.account_number !== undefined && request.account_number !== request.external_account_number) {
        const detail = 'account_number is a deprecated alias of external_account_number: send one of them.';
        addDomainIssue(ctx, 'fields_are_mutually_exclusive', detail, ['account_number']);
      }
    }, whenClean(['external_account_number'], ['account_number']))
    .transform((request) => {
      const { account_number: _alias, ...rest } = request as z.output<S> & AccountEnvelope;
      return rest as Omit<z.output<S>, 'account_number'>;
    });
}

/** The alias stands in for a missing `external_account_number` before parsing, so that field keeps its codes. */
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
