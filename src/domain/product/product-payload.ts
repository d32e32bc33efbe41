import { z } from 'zod';
import type { core } from 'zod';
import { productMarkets } from '../../../events/product.js';
import { isoDate } from '../account-import-process/iso-dates.js';
import { choice, requiredText, text, whenClean } from '../account-import-process/payload-fields.js';
import { fieldErrorsFromIssues, type Validation } from '../validation/field-errors.js';
import { checkDistinctValidFrom, electricityRate, gasRate, notAllowed, rateSchema, type RateInput } from './product-payload-rules.js';

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

const flag = () => z.boolean().optional();
const productFlags = { is_variable: flag(), cost_stacking: flag(), next_product_code: productCode().optional(), is_default: flag() };
const electricityProductParams = z.object({ segments: requiredText(32), ...productFlags });
const gasProductParams = z.object({ segments: notAllowed('FRA_ELECTRICITY'), ...productFlags });

function productSchema<M extends (typeof productMarkets)[number], P extends z.ZodType, R extends z.ZodType<RateInput>>(markets: readonly [M, ...M[]], params: P, rate: R) {
  return z.object({
    code: productCode(),
    market_name: choice(markets),
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
export const electricityProductSchema = productSchema(['FRA_ELECTRICITY'], electricityProductParams, electricityRate);
/** Spec 2.5, gas: no `segments`; consumption rates need `price_level`. */
export const gasProductSchema = productSchema(['FRA_GAS'], gasProductParams, gasRate);
/** With market_name missing or unknown the market rules cannot apply; the other fields are still checked. */
const unknownMarketProductSchema = productSchema(
  productMarkets,
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
