import { z } from 'zod';
import { MAX_LINE, addDomainIssue, requiredText, whenClean } from '../account-import-process/payload-fields.js';

/**
 * The instruction's reference at the vendor: payment-instruction/create/ takes `reference` or its deprecated
 * alias `instruction_reference`, exactly one; business-payment-instruction/create/ has `reference` alone,
 * optional in the platform's schema. Every instruction is checked with the vendor by its reference, so one
 * without it answers the platform's code for that, `mutually_exclusive_field_required`, never `required`.
 */
export const referenceField = {
  reference: requiredText(MAX_LINE)
    .optional()
    .meta({ description: 'The instruction\'s reference at the vendor. Optional in the platform\'s schema; required here to ask the vendor (`mutually_exclusive_field_required` when missing).' }),
};

export const referenceOrAliasFields = {
  reference: requiredText(MAX_LINE)
    .optional()
    .meta({ description: 'The instruction\'s reference at the vendor. Exactly one of `reference` and `instruction_reference` (else `mutually_exclusive_field_required`).' }),
  instruction_reference: requiredText(128)
    .optional()
    .meta({ deprecated: true, description: 'Deprecated alias of `reference` (the platform\'s, at most 128): exactly one of the two.' }),
};

interface References {
  readonly reference?: string | undefined;
  readonly instruction_reference?: string | undefined;
}

/** Exactly one reference, answered as `reference` only; checked even when other fields fail. */
export function withOneReference<S extends z.ZodType<References>>(schema: S, detail: string) {
  return schema
    .superRefine((request, ctx) => {
      if ((request.reference === undefined) === (request.instruction_reference === undefined)) {
        addDomainIssue(ctx, 'mutually_exclusive_field_required', detail, ['reference']);
      }
    }, whenClean(['reference'], ['instruction_reference']))
    .transform((request) => {
      const { instruction_reference: alias, ...rest } = request as z.output<S> & References;
      return { ...rest, reference: request.reference ?? alias ?? '' } as Omit<z.output<S>, 'instruction_reference' | 'reference'> & { reference: string };
    });
}
