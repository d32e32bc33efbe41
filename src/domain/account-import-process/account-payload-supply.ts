import { z } from 'zod';
import type { core } from 'zod';
import { CONSENT_NAMES, PCE, SUPPLY_TYPES, isValidSupplyPointIdentifier } from './identifiers.js';
import { isoDate, isoDateTime, nextDay } from './iso-dates.js';
import { MAX_LINE, addDomainIssue, choice, money, postcode, requiredText, text, whenCleanIn, type SchemaForm } from './payload-fields.js';

/** Payment schedule frequencies we accept (MONTHLY seen; the others are French billing rhythms). */
export const PAYMENT_SCHEDULE_FREQUENCIES = ['MONTHLY', 'BIMONTHLY', 'QUARTERLY', 'YEARLY'] as const;
/** Payment means (DD seen): direct debit, card, cheque, bank transfer, TIP payment slip. */
export const PAYMENT_MEANS = ['DD', 'CARD', 'CHEQUE', 'BANK_TRANSFER', 'PAYMENT_SLIP'] as const;
/** The platform's payment instruction types (platform reference 5.2). */
export const PAYMENT_INSTRUCTION_TYPES = ['BPAY', 'CARD', 'CUSTOM', 'DIRECT_DEBIT', 'GMO_REFUND', 'PAYMENT_SLIP'] as const;

interface Agreement {
  readonly effective_from: string;
  readonly effective_to?: string | undefined;
}

const GAPS_OR_OVERLAPS = 'gaps_or_overlaps_in_agreement_dates';

/**
 * Agreements of one supply point must follow each other day after day: sorted by
 * effective_from, each one starts the day after the previous one's (inclusive)
 * effective_to; only the last may be open-ended. Reported on the offending agreement.
 */
export function checkAgreementContinuity(agreements: readonly Agreement[], ctx: core.$RefinementCtx<unknown>): void {
  const ordered = agreements
    .map((agreement, index) => ({ agreement, index }))
    .sort((a, b) => compare(a.agreement.effective_from, b.agreement.effective_from) || a.index - b.index);
  const inverted = new Set<number>();
  for (const { agreement, index } of ordered) {
    if (agreement.effective_to !== undefined && agreement.effective_to < agreement.effective_from) {
      inverted.add(index);
      addDomainIssue(ctx, GAPS_OR_OVERLAPS, 'effective_to is before effective_from.', [index]);
    }
  }
  const rest = ordered.filter(({ index }) => !inverted.has(index));
  rest.slice(1).forEach((current, i) => {
    const previous = rest[i]?.agreement;
    if (previous === undefined) return;
    if (previous.effective_to === undefined) {
      addDomainIssue(ctx, GAPS_OR_OVERLAPS, 'An open-ended agreement is followed by another agreement.', [current.index]);
    } else if (current.agreement.effective_from !== nextDay(previous.effective_to)) {
      const kind = current.agreement.effective_from <= previous.effective_to ? 'overlaps' : 'leaves a gap after';
      addDomainIssue(ctx, GAPS_OR_OVERLAPS, `This agreement ${kind} the previous agreement.`, [current.index]);
    }
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Which consents a supply point may carry, by its supply type. */
const CONSENTS = `Consents by name: ${Object.entries(CONSENT_NAMES)
  .map(([type, names]) => `${type} ${names.map((name) => `\`${name}\``).join(', ')}`)
  .join('; ')} (else \`invalid_consent_name\`).`;

/** The days a payment schedule may pick (the platform's own code when not): 29-31 do not exist every month. */
const PAYMENT_DAYS = { minimum: 1, maximum: 28 } as const;

/** A supply address of the account payload (spec 2.2) and its supply points, in either form (payload-fields.ts). */
export function supplyAddressSchemaIn(form: SchemaForm) {
  const paymentScheduleSchema = z.object({
    amount: money(),
    day_of_month: z
      .int()
      .refine((day) => day >= PAYMENT_DAYS.minimum && day <= PAYMENT_DAYS.maximum, {
        message: 'day_of_month must be between 1 and 28.',
        params: { code: 'invalid_payment_day_for_payment_schedule' },
      })
      .meta(PAYMENT_DAYS),
    frequency: choice(PAYMENT_SCHEDULE_FREQUENCIES),
    means: choice(PAYMENT_MEANS),
    start_date: isoDate(),
  });

  const paymentInstructionSchema = z.object({
    vendor: requiredText(),
    reference: requiredText(MAX_LINE),
    type: choice(PAYMENT_INSTRUCTION_TYPES),
    valid_from: isoDate().optional(),
  });

  const agreementSchema = z.object({
    tariff_code: requiredText(),
    agreed_at: isoDateTime().optional(),
    effective_from: isoDate(),
    effective_to: isoDate().optional(),
    addons: z.array(z.object({ band: requiredText() })).optional(),
  });

  const supplyPointSchema = z
    .object({
      identifier: z.string().meta({
        pattern: PCE.source,
        description: 'ELECTRICITY: a PRM, 14 digits; GAS: a PCE, 14 digits or `GI` and 6 digits; else `invalid_supply_point_identifier`.',
      }),
      supply_type: choice(SUPPLY_TYPES),
      supply_start_date: isoDate(),
      billing_frequency: z.int().min(1).optional(),
      payment_schedules: z.array(paymentScheduleSchema).optional(),
      payment_instructions: z.array(paymentInstructionSchema).optional(),
      agreements: z.array(agreementSchema).superRefine(checkAgreementContinuity, whenCleanIn(form, [])).optional(),
      consent_data: z.record(z.string(), z.boolean()).optional().meta({ description: CONSENTS }),
    })
    .superRefine((point, ctx) => {
      if (!isValidSupplyPointIdentifier(point.supply_type, point.identifier)) {
        const expected = point.supply_type === 'ELECTRICITY' ? '14 digits (PRM)' : '14 digits or GI + 6 digits (PCE)';
        addDomainIssue(ctx, 'invalid_supply_point_identifier', `Not a valid ${point.supply_type} identifier: expected ${expected}.`, ['identifier']);
      }
    }, whenCleanIn(form, ['identifier'], ['supply_type']))
    .superRefine((point, ctx) => {
      const allowed = CONSENT_NAMES[point.supply_type];
      for (const name of Object.keys(point.consent_data ?? {})) {
        if (!allowed.includes(name)) {
          addDomainIssue(ctx, 'invalid_consent_name', `Not a consent name for ${point.supply_type}; expected one of ${allowed.join(', ')}.`, ['consent_data', name]);
        }
      }
    }, whenCleanIn(form, ['supply_type'], ['consent_data']));

  return z.object({
    supply_address1: requiredText(MAX_LINE),
    supply_address2: text(MAX_LINE).optional(),
    supply_address3: text(MAX_LINE).optional(),
    supply_address4: text(MAX_LINE).optional(),
    supply_postcode: postcode({ allowEmpty: false }),
    customer_at_supply_address_from_date: isoDate(),
    supply_points: z.array(supplyPointSchema).min(1),
  });
}

export type SupplyAddress = z.output<ReturnType<typeof supplyAddressSchemaIn>>;
export type SupplyPoint = SupplyAddress['supply_points'][number];
