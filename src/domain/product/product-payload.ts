import { z } from 'zod';
import type { core } from 'zod';
import { bandCategories, productMarkets, providerCalendars, tempClasses, unitTypes } from '../../../events/product.js';
import { isoDate } from '../account-import-process/iso-dates.js';
import { choice, requiredText, text, whenClean } from '../account-import-process/payload-fields.js';
import { decimalDigitsWithin } from '../account-records/money.js';
import { fieldErrorsFromIssues, type Validation } from '../validation/field-errors.js';
import {
  checkDistinctValidFrom,
  checkElectricityBand,
  checkGasBand,
  checkUnitType,
  minNotAboveMax,
  type RateInput,
} from './product-payload-rules.js';

const MAX_NAME = 255;
const MAX_TEXT = 4096;

/** 1-128 characters of `A-Z 0-9 _ -` (blank, max_length, invalid). */
export function productCode() {
  return z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Z0-9_-]+$/, { message: 'Product codes use only the characters A-Z, 0-9, _ and -.' });
}

const bound = () => z.number().min(0, { message: 'Ensure this value is greater than or equal to 0.' });

/** Not negative, with at most 10 digits each side of the point, as the platform's decimal fields. */
const pricePerUnit = () => bound().superRefine(decimalDigitsWithin(10, 10));

/** A field of the other market: refused rather than dropped, since it would silently change the rate's band. */
function notAllowed(market: string) {
  return z
    .unknown()
    .refine((value) => value === undefined, { message: `Only ${market} products have this field.`, params: { code: 'field_not_allowed' } })
    .transform((): undefined => undefined)
    .optional();
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
  .superRefine(
    minNotAboveMax('min_subscribed_max_power', 'max_subscribed_max_power'),
    whenClean(['min_subscribed_max_power'], ['max_subscribed_max_power']),
  );

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
  .superRefine(
    minNotAboveMax('min_annual_consumption', 'max_annual_consumption'),
    whenClean(['min_annual_consumption'], ['max_annual_consumption']),
  );

function rateSchema<P extends z.ZodType>(params: P) {
  return z
    .object({
      band_category: choice(bandCategories),
      unit_type: choice(unitTypes),
      valid_from_date: isoDate(),
      price_per_unit: pricePerUnit(),
      params,
    })
    .superRefine(checkUnitType, whenClean(['band_category'], ['unit_type']));
}

const electricityRate = rateSchema(electricityRateParams).superRefine(
  checkElectricityBand,
  whenClean(['band_category'], ['params', 'provider_calendar'], ['params', 'temp_class']),
);
const gasRate = rateSchema(gasRateParams).superRefine(checkGasBand, whenClean(['band_category'], ['params', 'price_level']));

const flag = () => z.boolean().optional();
const productFlags = { is_variable: flag(), cost_stacking: flag(), next_product_code: productCode().optional(), is_default: flag() };
const electricityProductParams = z.object({ segments: requiredText(32), ...productFlags });
const gasProductParams = z.object({ segments: notAllowed('FRA_ELECTRICITY'), ...productFlags });

function productSchema<P extends z.ZodType, R extends z.ZodType<RateInput>>(params: P, rate: R) {
  return z.object({
    code: productCode(),
    market_name: choice(productMarkets),
    full_name: requiredText(MAX_NAME),
    display_name: requiredText(MAX_NAME),
    description: text(MAX_TEXT).optional(),
    notes: text(MAX_TEXT).optional(),
    brand: text(MAX_NAME).optional(),
    available_from_date: isoDate(),
    is_hidden: flag(),
    params,
    rates: z.array(rate).min(1).superRefine(checkDistinctValidFrom, whenClean([])),
  });
}

/** Spec 2.5, electricity: product params need `segments`; rates need `provider_calendar`. */
export const electricityProductSchema = productSchema(electricityProductParams, electricityRate);
/** Spec 2.5, gas: no `segments`; consumption rates need `price_level`. */
export const gasProductSchema = productSchema(gasProductParams, gasRate);
/** With market_name missing or unknown the market rules cannot apply; the other fields are still checked. */
const unknownMarketProductSchema = productSchema(
  z.record(z.string(), z.unknown()),
  rateSchema(z.record(z.string(), z.unknown())) as unknown as z.ZodType<RateInput>,
);

export type ElectricityProductPayload = z.output<typeof electricityProductSchema>;
export type GasProductPayload = z.output<typeof gasProductSchema>;
/** One validated product of a products/ or validate-products/ request (unknown fields dropped). */
export type ProductPayload = ElectricityProductPayload | GasProductPayload;

const productListSchema = z.array(z.unknown()).min(1);

function schemaFor(product: unknown) {
  const market = typeof product === 'object' && product !== null ? (product as Record<string, unknown>)['market_name'] : undefined;
  if (market === 'FRA_ELECTRICITY') return electricityProductSchema;
  if (market === 'FRA_GAS') return gasProductSchema;
  return unknownMarketProductSchema;
}

/** Validates a non-empty array of products, each by its market's rules; attrs start at its index (`0.rates.2.unit_type`). */
export function validateProducts(input: unknown): Validation<ProductPayload[]> {
  const list = productListSchema.safeParse(input, { reportInput: true });
  if (!list.success) return { ok: false, errors: fieldErrorsFromIssues(list.error.issues) };
  const data: ProductPayload[] = [];
  const issues: core.$ZodIssue[] = [];
  list.data.forEach((product, index) => {
    const result = schemaFor(product).safeParse(product, { reportInput: true });
    if (result.success) data.push(result.data as ProductPayload);
    else issues.push(...result.error.issues.map((issue) => ({ ...issue, path: [index, ...issue.path] })));
  });
  if (issues.length > 0) return { ok: false, errors: fieldErrorsFromIssues(issues) };
  return { ok: true, data };
}

/** What products/ reports for each product of the request, in request order. */
export interface ProductImportOutcome {
  readonly code: string;
  /** True when the code was new and the product was created; false when rates were added to an existing one. */
  readonly created: boolean;
  /** Rates appended by this request (rates already stored identically are not counted). */
  readonly ratesAdded: number;
}
