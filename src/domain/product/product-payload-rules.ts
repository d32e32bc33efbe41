import { z } from 'zod';
import type { core } from 'zod';
import { bandCategories, bandKey, providerCalendars, tempClasses, unitTypes, type Band, type BandCategory, type UnitType } from '../../../events/product.js';
import { isoDate } from '../account-import-process/iso-dates.js';
import { addDomainIssue, choice, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { decimalNumber } from '../account-records/money.js';
import { noRepeatedKeys } from '../validation/field-errors.js';

/** Which unit type each band category is priced in. */
export const UNIT_TYPE_OF: Readonly<Record<BandCategory, UnitType>> = {
  STANDING_CHARGE: 'YEARS_ON_SUPPLY_PER_DIEM',
  CONSUMPTION_CHARGE: 'KWH_CONSUMPION',
};

/** The temp classes each provider calendar splits consumption into. */
export const TEMP_CLASSES_OF: Readonly<Record<'BASE' | 'HPHC', readonly string[]>> = {
  BASE: ['BASE'],
  HPHC: ['HP', 'HC'],
};

const bound = () => z.number().min(0, { message: 'Ensure this value is greater than or equal to 0.' });

/** A field of the other market: refused rather than dropped, since it would silently change the rate's band. */
export function notAllowed(market: string) {
  return z
    .unknown()
    .refine((value) => value === undefined, { message: `Only ${market} products have this field.`, params: { code: 'field_not_allowed' } })
    .transform((): undefined => undefined)
    .optional()
    .meta({ not: {}, description: `Only ${market} products have this field (\`field_not_allowed\`).` });
}

/** A refinement on params: the `min` bound is not above the `max` bound (reported on the max). */
function minNotAboveMax<K extends string>(min: K, max: K) {
  return [
    (params: { readonly [P in K]?: number | undefined }, ctx: core.$RefinementCtx<unknown>): void => {
      const low = params[min];
      const high = params[max];
      if (typeof low === 'number' && typeof high === 'number' && low > high) {
        addDomainIssue(ctx, 'min_greater_than_max', `${max} (${high}) is below ${min} (${low}).`, [max]);
      }
    },
    whenClean([min], [max]),
  ] as const;
}

const electricityRateParams = z
  .object({
    provider_calendar: choice(providerCalendars),
    temp_class: choice(tempClasses).optional(),
    min_subscribed_max_power: bound().optional(),
    max_subscribed_max_power: bound().optional(),
    consumption_class_id: notAllowed('FRA_GAS'),
    min_annual_consumption: notAllowed('FRA_GAS'),
    max_annual_consumption: notAllowed('FRA_GAS'),
    price_level: notAllowed('FRA_GAS'),
  })
  .superRefine(...minNotAboveMax('min_subscribed_max_power', 'max_subscribed_max_power'));

const gasRateParams = z
  .object({
    consumption_class_id: requiredText(32).optional(),
    min_annual_consumption: bound().optional(),
    max_annual_consumption: bound().optional(),
    price_level: z.int().min(1).max(6).optional(),
    provider_calendar: notAllowed('FRA_ELECTRICITY'),
    temp_class: notAllowed('FRA_ELECTRICITY'),
    min_subscribed_max_power: notAllowed('FRA_ELECTRICITY'),
    max_subscribed_max_power: notAllowed('FRA_ELECTRICITY'),
  })
  .superRefine(...minNotAboveMax('min_annual_consumption', 'max_annual_consumption'));

/** A rate of either market, its params as given; the unit type must be its band category's. */
export function rateSchema<P extends z.ZodType>(params: P) {
  return z
    .object({
      band_category: choice(bandCategories),
      unit_type: choice(unitTypes),
      valid_from_date: isoDate(),
      // Not negative, with at most 10 digits each side of the point, as the platform's decimal fields.
      price_per_unit: decimalNumber(bound(), 10, 10),
      params,
    })
    .superRefine((rate, ctx) => {
      const expected = UNIT_TYPE_OF[rate.band_category];
      if (rate.unit_type !== expected) {
        addDomainIssue(ctx, 'unit_type_does_not_match_band_category', `A ${rate.band_category} rate has unit_type ${expected}.`, ['unit_type']);
      }
    }, whenClean(['band_category'], ['unit_type']));
}

/** Electricity: a consumption rate names one of its calendar's temp classes; a standing charge names none. */
export const electricityRate = rateSchema(electricityRateParams).superRefine(
  (rate, ctx) => {
    const { provider_calendar: calendar, temp_class: tempClass } = rate.params;
    if (rate.band_category === 'STANDING_CHARGE') {
      if (tempClass !== undefined) addDomainIssue(ctx, 'field_not_allowed', 'A STANDING_CHARGE rate has no temp_class.', ['params', 'temp_class']);
    } else if (tempClass === undefined) {
      addDomainIssue(ctx, 'required', 'A CONSUMPTION_CHARGE electricity rate needs a temp_class.', ['params', 'temp_class']);
    } else if (calendar !== undefined && !TEMP_CLASSES_OF[calendar].includes(tempClass)) {
      const expected = TEMP_CLASSES_OF[calendar].join(' or ');
      addDomainIssue(ctx, 'temp_class_does_not_match_calendar', `temp_class ${tempClass} is not a class of the ${calendar} calendar; expected ${expected}.`, [
        'params',
        'temp_class',
      ]);
    }
  },
  whenClean(['band_category'], ['params', 'provider_calendar'], ['params', 'temp_class']),
);

/** Gas: consumption rates carry a price_level; standing charges do not. */
export const gasRate = rateSchema(gasRateParams).superRefine((rate, ctx) => {
  const level = rate.params.price_level;
  if (rate.band_category === 'STANDING_CHARGE' && level !== undefined) {
    addDomainIssue(ctx, 'field_not_allowed', 'A STANDING_CHARGE rate has no price_level.', ['params', 'price_level']);
  }
  if (rate.band_category === 'CONSUMPTION_CHARGE' && level === undefined) {
    addDomainIssue(ctx, 'required', 'A CONSUMPTION_CHARGE gas rate needs a price_level.', ['params', 'price_level']);
  }
}, whenClean(['band_category'], ['params', 'price_level']));

export type RateInput = z.output<typeof electricityRate> | z.output<typeof gasRate>;

/** The band a payload rate belongs to: its category plus its params (keys in the Band schema's order). */
export function bandOfRate(rate: RateInput): Band {
  const p = rate.params;
  const band: { -readonly [K in keyof Band]: Band[K] } = { bandCategory: rate.band_category };
  if (p.provider_calendar !== undefined) band.providerCalendar = p.provider_calendar;
  if (p.temp_class !== undefined) band.tempClass = p.temp_class;
  if (p.min_subscribed_max_power !== undefined) band.minSubscribedMaxPower = p.min_subscribed_max_power;
  if (p.max_subscribed_max_power !== undefined) band.maxSubscribedMaxPower = p.max_subscribed_max_power;
  if (p.consumption_class_id !== undefined) band.consumptionClassId = p.consumption_class_id;
  if (p.min_annual_consumption !== undefined) band.minAnnualConsumption = p.min_annual_consumption;
  if (p.max_annual_consumption !== undefined) band.maxAnnualConsumption = p.max_annual_consumption;
  if (p.price_level !== undefined) band.priceLevel = p.price_level;
  return band;
}

/** Within one product of a payload, two rates of one band never start on the same day. */
export const checkDistinctValidFrom = noRepeatedKeys(
  (rate: RateInput) => `${bandKey(bandOfRate(rate))}@${rate.valid_from_date}`,
  'duplicate_rate_valid_from',
  (_key, rate, first) => `Rate ${first} of the same band already starts on ${rate.valid_from_date}.`,
  (index) => [index, 'valid_from_date'],
);
