import { z } from 'zod';
import { isValidSupplyPointIdentifier, PCE, PRM, type SupplyType } from '../account-import-process/identifiers.js';
import { NON_FIELD_ERRORS, type FieldError } from '../errors.js';

/** The spec shows `Domestic`; `Business` is the platform's other. Recorded with the batch, never sent to the operators. */
export const CUSTOMER_CATEGORIES = ['Domestic', 'Business'] as const;
export type CustomerCategory = (typeof CUSTOMER_CATEGORIES)[number];

/** Most identifiers (PRM and PCE together) one populate request may carry. */
export const MAX_IDENTIFIERS_PER_BATCH = 1_000;

/** Which list of the payload holds which supply type. */
const IDENTIFIER_LISTS = [
  { field: 'prm_ids', supplyType: 'ELECTRICITY' },
  { field: 'pce_ids', supplyType: 'GAS' },
] as const satisfies readonly { field: string; supplyType: SupplyType }[];

/**
 * The identifier rules of a populate request: each PRM and PCE well formed (as on accounts), none repeated
 * within its list, 1 to MAX_IDENTIFIERS_PER_BATCH in all. The same identifier may be in both lists: a PRM and
 * a PCE are different supply points at different operators.
 */
export function populateIdentifierErrors(prmIds: readonly string[], pceIds: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const lists = { prm_ids: prmIds, pce_ids: pceIds };
  for (const { field, supplyType } of IDENTIFIER_LISTS) {
    const seen = new Set<string>();
    lists[field].forEach((id, index) => {
      const attr = `${field}.${index}`;
      if (!isValidSupplyPointIdentifier(supplyType, id)) {
        const expected = supplyType === 'ELECTRICITY' ? '14 digits' : '14 digits, or GI followed by 6 digits';
        errors.push({ code: 'invalid_supply_point_identifier', attr, detail: `"${id}" is not a valid ${field === 'prm_ids' ? 'PRM' : 'PCE'} (${expected}).` });
      } else if (seen.has(id)) {
        errors.push({ code: 'duplicate_supply_point_identifier', attr, detail: `"${id}" is given more than once.` });
      }
      seen.add(id);
    });
  }
  const total = prmIds.length + pceIds.length;
  if (total === 0) {
    errors.push({ code: 'no_supply_point_identifiers', attr: NON_FIELD_ERRORS, detail: 'Give at least one identifier in prm_ids or pce_ids.' });
  }
  if (total > MAX_IDENTIFIERS_PER_BATCH) {
    errors.push({
      code: 'too_many_supply_point_identifiers',
      attr: NON_FIELD_ERRORS,
      detail: `At most ${MAX_IDENTIFIERS_PER_BATCH} identifiers (prm_ids and pce_ids together) per request; ${total} were given.`,
    });
  }
  return errors;
}

/**
 * A list of identifiers of one form, each once: what populateIdentifierErrors checks of one list, as the
 * document states it (the rules across both lists are in the operation's description).
 */
const identifierList = (form: RegExp) => z.array(z.string().meta({ pattern: form.source })).max(MAX_IDENTIFIERS_PER_BATCH).meta({ uniqueItems: true });

/** POST supply-point/populate/ (spec 4.5): an omitted list counts as empty; unknown fields are dropped. */
export const populateRequestSchema = z
  .object({
    prm_ids: identifierList(PRM).optional().default([]),
    pce_ids: identifierList(PCE).optional().default([]),
    customer_category: z.enum(CUSTOMER_CATEGORIES),
  })
  .superRefine((value, ctx) => {
    for (const error of populateIdentifierErrors(value.prm_ids, value.pce_ids)) {
      ctx.addIssue({
        code: 'custom',
        message: error.detail,
        path: error.attr === NON_FIELD_ERRORS ? [] : error.attr.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
        params: { code: error.code },
      });
    }
  });
export type PopulateRequest = z.infer<typeof populateRequestSchema>;
