import {
  applyAddedRate,
  bandKey,
  canonicalBand,
  type AddedRate,
  type ProductEvent,
  type ProductRate,
} from '../../../events/product.js';
import type { Decider } from '../decider.js';
import { DomainError, type FieldError } from '../errors.js';
import type { ProductCommand, RateDraft } from './commands.js';
import { evolveProduct, initialProductState, type ProductState } from './state.js';

/** A date's instant: midnight UTC at its start, `2025-08-01T00:00:00Z`. */
export const midnightUtc = (date: string): string => `${date}T00:00:00Z`;
const dateOf = (instant: string): string => instant.slice(0, 10);

/** A rate that cannot be added; its code is also the top-level code the product is refused with. */
type RateError = FieldError & { readonly code: 'no_matching_rate' | 'rate_not_continuous' };

interface RatePlan {
  readonly added: AddedRate[];
  readonly errors: RateError[];
}

/**
 * Spec 4.3, rate after rate in valid_from order (one request may extend a band several times). A rate stored
 * identically (band, valid_from, price) is skipped, so a request can be sent again. Otherwise (2) the band
 * has a rate active at the new valid_from, else no_matching_rate; (3) the new valid_from falls strictly
 * inside the band's latest rate or equals its valid_to, else rate_not_continuous; (4) the latest rate closes
 * at midnight of the new valid_from. A product being created starts each band with its first rate; its later
 * rates of that band follow (3) and (4).
 */
function planRates(stored: readonly ProductRate[], drafts: readonly RateDraft[], creating: boolean, attr: (rate: RateDraft, field: string) => string): RatePlan {
  const added: AddedRate[] = [];
  const errors: { index: number; error: RateError }[] = [];
  let rates = [...stored];
  const ordered = [...drafts].sort((a, b) => (a.validFromDate < b.validFromDate ? -1 : a.validFromDate > b.validFromDate ? 1 : a.index - b.index));
  for (const draft of ordered) {
    const key = bandKey(draft.band);
    const validFrom = midnightUtc(draft.validFromDate);
    if (stored.some((r) => r.bandKey === key && r.validFrom === validFrom && r.pricePerUnit === draft.pricePerUnit)) continue;
    const band = rates.filter((r) => r.bandKey === key);
    let closes: AddedRate['closes'] = null;
    if (band.length === 0 && !creating) {
      errors.push({ index: draft.index, error: noMatchingRate(draft, attr(draft, 'params'), 'the product has no rate of this band') });
      continue;
    }
    if (band.length > 0) {
      if (!band.some((r) => r.validFrom <= validFrom && (r.validTo === null || validFrom < r.validTo))) {
        const first = band.reduce((a, b) => (b.validFrom < a.validFrom ? b : a));
        const reason = `its rates of this band start on ${dateOf(first.validFrom)}`;
        errors.push({ index: draft.index, error: noMatchingRate(draft, attr(draft, 'params'), reason) });
        continue;
      }
      const latest = band.reduce((a, b) => (b.validFrom > a.validFrom ? b : a));
      if (!(validFrom > latest.validFrom && (latest.validTo === null || validFrom <= latest.validTo))) {
        errors.push({ index: draft.index, error: notContinuous(draft, latest, attr(draft, 'valid_from_date')) });
        continue;
      }
      closes = { rateNumber: latest.rateNumber, validTo: validFrom };
    }
    const rate: AddedRate = {
      rateNumber: rates.length + 1,
      band: canonicalBand(draft.band),
      unitType: draft.unitType,
      validFrom,
      pricePerUnit: draft.pricePerUnit,
      closes,
    };
    added.push(rate);
    rates = applyAddedRate(rates, rate);
  }
  return { added, errors: errors.sort((a, b) => a.index - b.index).map((e) => e.error) };
}

function noMatchingRate(draft: RateDraft, attr: string, reason: string): RateError {
  return {
    code: 'no_matching_rate',
    attr,
    detail: `No ${draft.band.bandCategory} rate with these params is active on ${draft.validFromDate}: ${reason}.`,
  };
}

function notContinuous(draft: RateDraft, latest: ProductRate, attr: string): RateError {
  const period = latest.validTo === null ? `from ${dateOf(latest.validFrom)}, open-ended` : `${dateOf(latest.validFrom)} to ${dateOf(latest.validTo)}`;
  return {
    code: 'rate_not_continuous',
    attr,
    detail: `The latest rate of this band runs ${period}; a new rate must start after ${dateOf(latest.validFrom)}${latest.validTo === null ? '' : ` and no later than ${dateOf(latest.validTo)}`}, not on ${draft.validFromDate}.`,
  };
}

/** ImportProduct, the one command: create the product when its code is new, then add its rates. */
function decide(command: ProductCommand, state: ProductState): ProductEvent[] {
  const { product, index, now } = command;
  const creating = state.status === 'none';
  const attr = (rate: RateDraft, field: string) => `${index}.rates.${rate.index}.${field}`;
  const plan = planRates(creating ? [] : state.rates, product.rates, creating, attr);
  const [first] = plan.errors;
  if (first) {
    const detail = plan.errors.length === 1 ? first.detail : `${plan.errors.length} rates of product ${product.code} cannot be added.`;
    throw new DomainError(first.code, detail, { errors: plan.errors });
  }
  const events: ProductEvent[] = [];
  if (creating) {
    // Attributes are taken only here; later imports of the code ignore them (spec 4.3 rule 1).
    const { rates: _rates, ...attributes } = product;
    events.push({ type: 'ProductCreated', version: 1, data: { ...attributes, createdAt: now } });
  }
  if (plan.added.length > 0) {
    events.push({ type: 'RatesAdded', version: 1, data: { code: product.code, rates: plan.added, addedAt: now } });
  }
  return events;
}

export const productDecider: Decider<ProductCommand, ProductEvent, ProductEvent, ProductState> = {
  decide,
  evolve: evolveProduct,
  initialState: initialProductState,
};
