import type { core } from 'zod';
import { bandKey, type Band, type BandCategory, type UnitType } from '../../../events/product.js';
import { addDomainIssue } from '../account-import-process/payload-fields.js';
import { noRepeatedKeys } from '../validation/field-errors.js';

type Ctx = core.$RefinementCtx<unknown>;

/** The rate params of either market, as parsed (a market's schema leaves the other market's keys absent). */
export interface RateParamsInput {
  readonly provider_calendar?: 'BASE' | 'HPHC' | undefined;
  readonly temp_class?: 'BASE' | 'HP' | 'HC' | undefined;
  readonly min_subscribed_max_power?: number | undefined;
  readonly max_subscribed_max_power?: number | undefined;
  readonly consumption_class_id?: string | undefined;
  readonly min_annual_consumption?: number | undefined;
  readonly max_annual_consumption?: number | undefined;
  readonly price_level?: number | undefined;
}

export interface RateInput {
  readonly band_category: BandCategory;
  readonly unit_type: UnitType;
  readonly valid_from_date: string;
  readonly price_per_unit: number;
  readonly params: RateParamsInput;
}

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

export function checkUnitType(rate: Pick<RateInput, 'band_category' | 'unit_type'>, ctx: Ctx): void {
  const expected = UNIT_TYPE_OF[rate.band_category];
  if (rate.unit_type !== expected) {
    addDomainIssue(ctx, 'unit_type_does_not_match_band_category', `A ${rate.band_category} rate has unit_type ${expected}.`, ['unit_type']);
  }
}

/** Electricity: a consumption rate names one of its calendar's temp classes; a standing charge names none. */
export function checkElectricityBand(rate: Pick<RateInput, 'band_category' | 'params'>, ctx: Ctx): void {
  const { provider_calendar: calendar, temp_class: tempClass } = rate.params;
  if (rate.band_category === 'STANDING_CHARGE') {
    if (tempClass !== undefined) {
      addDomainIssue(ctx, 'field_not_allowed', 'A STANDING_CHARGE rate has no temp_class.', ['params', 'temp_class']);
    }
    return;
  }
  if (tempClass === undefined) {
    addDomainIssue(ctx, 'required', 'A CONSUMPTION_CHARGE electricity rate needs a temp_class.', ['params', 'temp_class']);
  } else if (calendar !== undefined && !TEMP_CLASSES_OF[calendar].includes(tempClass)) {
    addDomainIssue(
      ctx,
      'temp_class_does_not_match_calendar',
      `temp_class ${tempClass} is not a class of the ${calendar} calendar; expected ${TEMP_CLASSES_OF[calendar].join(' or ')}.`,
      ['params', 'temp_class'],
    );
  }
}

/** Gas: consumption rates carry a price_level; standing charges do not. */
export function checkGasBand(rate: Pick<RateInput, 'band_category' | 'params'>, ctx: Ctx): void {
  const level = rate.params.price_level;
  if (rate.band_category === 'STANDING_CHARGE' && level !== undefined) {
    addDomainIssue(ctx, 'field_not_allowed', 'A STANDING_CHARGE rate has no price_level.', ['params', 'price_level']);
  }
  if (rate.band_category === 'CONSUMPTION_CHARGE' && level === undefined) {
    addDomainIssue(ctx, 'required', 'A CONSUMPTION_CHARGE gas rate needs a price_level.', ['params', 'price_level']);
  }
}

/** A refinement on params: the `min` bound is not above the `max` bound (reported on the max). */
export function minNotAboveMax<K extends keyof RateParamsInput>(min: K, max: K) {
  return (params: RateParamsInput, ctx: Ctx): void => {
    const low = params[min];
    const high = params[max];
    if (typeof low === 'number' && typeof high === 'number' && low > high) {
      addDomainIssue(ctx, 'min_greater_than_max', `${String(max)} (${high}) is below ${String(min)} (${low}).`, [max]);
    }
  };
}

/** Within one product of a payload, two rates of one band never start on the same day. */
export const checkDistinctValidFrom = noRepeatedKeys(
  (rate: RateInput) => `${bandKey(bandOfRate(rate))}@${rate.valid_from_date}`,
  'duplicate_rate_valid_from',
  (_key, rate, first) => `Rate ${first} of the same band already starts on ${rate.valid_from_date}.`,
  (index) => [index, 'valid_from_date'],
);
