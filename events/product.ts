import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

export const productMarkets = ['FRA_ELECTRICITY', 'FRA_GAS'] as const;
export const productMarketSchema = z.enum(productMarkets);
export type ProductMarket = z.infer<typeof productMarketSchema>;

export const bandCategories = ['STANDING_CHARGE', 'CONSUMPTION_CHARGE'] as const;
export type BandCategory = (typeof bandCategories)[number];
/** `KWH_CONSUMPION` is spelled exactly as the platform spells it (spec 2.5). */
export const unitTypes = ['YEARS_ON_SUPPLY_PER_DIEM', 'KWH_CONSUMPION'] as const;
export type UnitType = (typeof unitTypes)[number];
export const providerCalendars = ['BASE', 'HPHC'] as const;
export const tempClasses = ['BASE', 'HP', 'HC'] as const;

/** Product codes are `A-Z 0-9 _ -`, so the stream id needs no escaping. */
export const productStreamId = (code: string): string => `product:${code}`;

/**
 * A rate band: the category plus the rate params; the rates of one band form one continuous timeline
 * within a product. Absent params are absent keys (never null), so two bands are equal when their keys are.
 */
export const bandSchema = z.object({
  bandCategory: z.enum(bandCategories),
  providerCalendar: z.enum(providerCalendars).optional(),
  tempClass: z.enum(tempClasses).optional(),
  minSubscribedMaxPower: z.number().optional(),
  maxSubscribedMaxPower: z.number().optional(),
  consumptionClassId: z.string().optional(),
  minAnnualConsumption: z.number().optional(),
  maxAnnualConsumption: z.number().optional(),
  priceLevel: z.number().int().optional(),
});
export type Band = z.infer<typeof bandSchema>;

/** A price as a plain decimal string (`0.2016`), exactly as the caller's number read: never a float inside. */
export const decimalStringSchema = z.string().regex(/^\d+(?:\.\d+)?$/);

/** Instants are UTC midnights written `YYYY-MM-DDT00:00:00Z`; they compare as strings. */
export const instantSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

export const productParamsSchema = z.object({
  segments: z.string().nullable(),
  isVariable: z.boolean().nullable(),
  costStacking: z.boolean().nullable(),
  nextProductCode: z.string().nullable(),
  isDefault: z.boolean().nullable(),
});
export type ProductParams = z.infer<typeof productParamsSchema>;

/**
 * A product entered the shared catalogue (spec 4.3), its attributes fixed from here on: later imports of
 * the code only add rates. The initial rates follow in a RatesAdded of the same command.
 */
export const productCreatedSchema = eventSchema(
  'ProductCreated',
  1,
  z.object({
    code: z.string(),
    marketName: productMarketSchema,
    fullName: z.string(),
    displayName: z.string(),
    description: z.string().nullable(),
    notes: z.string().nullable(),
    brand: z.string().nullable(),
    availableFromDate: z.string(),
    isHidden: z.boolean().nullable(),
    params: productParamsSchema,
    createdAt: z.string(),
  }),
);

/**
 * Rates were appended to a product (spec 4.3), numbered 1, 2, ... within it. `closes` names the earlier
 * rate of the same band this one ends and its valid_to (this rate's valid_from); null for a band's first.
 * Rates are in the order they apply: one may close an earlier one of the same event.
 */
export const ratesAddedSchema = eventSchema(
  'RatesAdded',
  1,
  z.object({
    code: z.string(),
    rates: z.array(
      z.object({
        rateNumber: z.number().int().min(1),
        band: bandSchema,
        unitType: z.enum(unitTypes),
        validFrom: instantSchema,
        pricePerUnit: decimalStringSchema,
        closes: z.object({ rateNumber: z.number().int().min(1), validTo: instantSchema }).nullable(),
      }),
    ),
    addedAt: z.string(),
  }),
);

export const productEventSchemas = [productCreatedSchema, ratesAddedSchema] as const;

export type ProductCreated = z.infer<typeof productCreatedSchema>;
export type RatesAdded = z.infer<typeof ratesAddedSchema>;
export type ProductEvent = EventsOf<typeof productEventSchemas>;

/**
 * One rate of a product's timeline, as the decider state and the products projection hold it: the added
 * rate with its band's key; `validTo` is null while the rate is the latest of its band (open-ended).
 */
export type ProductRate = Readonly<Omit<AddedRate, 'closes'> & { bandKey: string; validTo: string | null }>;

/** A band's params in schema order, each with its name in a band key. */
const bandParamNames = {
  providerCalendar: 'provider_calendar',
  tempClass: 'temp_class',
  minSubscribedMaxPower: 'min_subscribed_max_power',
  maxSubscribedMaxPower: 'max_subscribed_max_power',
  consumptionClassId: 'consumption_class_id',
  minAnnualConsumption: 'min_annual_consumption',
  maxAnnualConsumption: 'max_annual_consumption',
  priceLevel: 'price_level',
} as const satisfies { readonly [K in Exclude<keyof Band, 'bandCategory'>]: string };
const bandParamKeys = Object.keys(bandParamNames) as (keyof typeof bandParamNames)[];

/** The canonical key of a band: the category, then every param present in a fixed order (`CONSUMPTION_CHARGE|temp_class=HP|...`). */
export function bandKey(band: Band): string {
  const present = bandParamKeys.filter((key) => band[key] !== undefined);
  return [band.bandCategory, ...present.map((key) => `${bandParamNames[key]}=${String(band[key])}`)].join('|');
}

/** The band with its keys in schema order and no undefined values, so its JSON is the same live and replayed. */
export function canonicalBand(band: Band): Band {
  const out: Record<string, unknown> = { bandCategory: band.bandCategory };
  for (const key of bandParamKeys) if (band[key] !== undefined) out[key] = band[key];
  return out as Band;
}

export type AddedRate = RatesAdded['data']['rates'][number];

/** One added rate: the rate it closes gets its valid_to, the new one is appended open-ended (a `closes` naming no rate changes nothing). */
export function applyAddedRate(rates: readonly ProductRate[], rate: AddedRate): ProductRate[] {
  const closes = rate.closes;
  const next = closes ? rates.map((r) => (r.rateNumber === closes.rateNumber ? { ...r, validTo: closes.validTo } : r)) : [...rates];
  next.push({
    rateNumber: rate.rateNumber,
    bandKey: bandKey(rate.band),
    band: canonicalBand(rate.band),
    unitType: rate.unitType,
    validFrom: rate.validFrom,
    validTo: null,
    pricePerUnit: rate.pricePerUnit,
  });
  return next;
}

/** What a RatesAdded means for a product's rates: the one reading of it, shared by the decider state and the projection. */
export function applyRatesAdded(rates: readonly ProductRate[], event: RatesAdded): ProductRate[] {
  return event.data.rates.reduce<ProductRate[]>((acc, rate) => applyAddedRate(acc, rate), [...rates]);
}
