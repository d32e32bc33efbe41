import { bandKey } from '../../events/product.js';
import { productDraftFrom, type RateDraft } from '../domain/product/commands.js';
import { midnightUtc } from '../domain/product/decider.js';
import { validateProducts } from '../domain/product/product-payload.js';
import type { BusinessAnswer, ProductAnswer, VerifyClient } from './api-client.js';
import { isUnreadable, type MigrationInput } from './input.js';
import { MigrationAborted, answered, pool } from './folder-run.js';
import type { Progress } from './progress.js';
import type { Sender } from './retry.js';
import { shown, type VerifyReport } from './verify-report.js';

/**
 * The folder's products and businesses compared with the service's, one read each (a catalogue is small).
 * A product's rates are expected as the continuity rule (spec 4.3) leaves them: per band, in valid_from
 * order, each closed at the next one's valid_from, the latest open-ended.
 */
export interface CatalogueContext {
  readonly client: VerifyClient;
  readonly sender: Sender;
  readonly supplier: string;
  readonly input: MigrationInput;
  readonly report: VerifyReport;
  readonly progress: Progress;
  readonly concurrency: number;
  readonly stopped: () => boolean;
  readonly log: (line: string) => void;
}

interface ExpectedRate {
  readonly unit_type: string;
  readonly valid_to: string | null;
  readonly price_per_unit: string;
}

/** The rates a product's drafts (every entry of products.json with its code) leave, by `band_key@valid_from`. */
export function expectedRates(drafts: readonly RateDraft[]): Map<string, ExpectedRate> {
  const bands = new Map<string, RateDraft[]>();
  for (const draft of drafts) {
    const key = bandKey(draft.band);
    const band = bands.get(key) ?? [];
    // A rate sent again (same valid_from and price) is skipped by the service: kept once.
    if (!band.some((r) => r.validFromDate === draft.validFromDate && r.pricePerUnit === draft.pricePerUnit)) band.push(draft);
    bands.set(key, band);
  }
  const rates = new Map<string, ExpectedRate>();
  for (const [key, band] of bands) {
    band.sort((a, b) => (a.validFromDate < b.validFromDate ? -1 : a.validFromDate > b.validFromDate ? 1 : 0));
    band.forEach((rate, i) => {
      const next = band[i + 1];
      rates.set(`${key}@${midnightUtc(rate.validFromDate)}`, { unit_type: rate.unitType, valid_to: next ? midnightUtc(next.validFromDate) : null, price_per_unit: rate.pricePerUnit });
    });
  }
  return rates;
}

async function verifyProducts(ctx: CatalogueContext): Promise<void> {
  const items = ctx.input.products();
  if (!items) return ctx.log('products: no products.json in the folder');
  const drafts = new Map<string, RateDraft[]>();
  for (const item of items) {
    if (isUnreadable(item)) {
      ctx.report.add({ kind: 'products', item: item.id, difference: 'different', field: 'source', source: item.problem, service: null });
      continue;
    }
    const parsed = validateProducts([item.body]);
    if (!parsed.ok) {
      ctx.report.add({ kind: 'products', item: item.id, difference: 'different', field: 'source', source: `not a valid product (${item.source})`, service: null });
      continue;
    }
    drafts.set(item.id, [...(drafts.get(item.id) ?? []), ...productDraftFrom(parsed.data[0]!).rates]);
  }
  const p = ctx.progress.begin('products', drafts.size);
  await pool(drafts, ctx.concurrency, ctx.stopped, async ([code, rates]) => {
    const answer = answered<ProductAnswer>(await ctx.sender.send((token) => ctx.client.readProduct(code, token)), `reading product ${code}`);
    p.done++;
    if (answer.status === 404) {
      ctx.report.add({ kind: 'products', item: code, difference: 'missing', field: 'present', source: code, service: null });
      p.failed++;
      return;
    }
    const body = answer.body as { rates: { band_key: string; unit_type: string; valid_from: string; valid_to: string | null; price_per_unit: string }[] };
    if (answer.status !== 200) throw new MigrationAborted(`reading product ${code} answered ${answer.status}`, false);
    ctx.report.identical('products');
    const expected = expectedRates(rates);
    const before = ctx.report.differences;
    for (const held of body.rates) {
      const id = `${held.band_key}@${held.valid_from}`;
      const mine = expected.get(id);
      expected.delete(id);
      const item = `${code}/${id}`;
      if (!mine) {
        ctx.report.add({ kind: 'rates', item, difference: 'extra', field: 'present', source: null, service: `${held.price_per_unit} to ${held.valid_to ?? 'open'}` });
        continue;
      }
      const fields = (['price_per_unit', 'unit_type', 'valid_to'] as const).filter((f) => mine[f] !== held[f]);
      if (fields.length === 0) ctx.report.identical('rates');
      fields.forEach((f, n) => ctx.report.add({ kind: 'rates', item, difference: 'different', field: f, source: shown(mine[f]), service: shown(held[f]) }, n === 0));
    }
    for (const [id, mine] of expected) {
      ctx.report.add({ kind: 'rates', item: `${code}/${id}`, difference: 'missing', field: 'present', source: `${mine.price_per_unit} to ${mine.valid_to ?? 'open'}`, service: null });
    }
    if (ctx.report.differences > before) p.failed++;
  });
  ctx.progress.end(p);
}

async function verifyBusinesses(ctx: CatalogueContext): Promise<void> {
  const items = ctx.input.businesses();
  if (!items) return ctx.log('businesses: no businesses/ folder');
  const p = ctx.progress.begin('businesses', items.length);
  await pool(items, ctx.concurrency, ctx.stopped, async (item) => {
    p.done++;
    if (isUnreadable(item)) {
      ctx.report.add({ kind: 'businesses', item: item.id, difference: 'different', field: 'source', source: item.problem, service: null });
      p.failed++;
      return;
    }
    const body = item.body as { import_supplier_code?: unknown; business?: Record<string, unknown> };
    if (body.import_supplier_code !== ctx.supplier) return; // migrate sends it, but for another supplier: not this one's
    const answer = answered<BusinessAnswer>(await ctx.sender.send((token) => ctx.client.readBusiness(ctx.supplier, item.id, token)), `reading business ${item.id}`);
    if (answer.status === 404) {
      ctx.report.add({ kind: 'businesses', item: item.id, difference: 'missing', field: 'present', source: item.id, service: null });
      p.failed++;
      return;
    }
    if (answer.status !== 200) throw new MigrationAborted(`reading business ${item.id} answered ${answer.status}`, false);
    const held = answer.body as { business_type: string; company_name: string; siret: string; contracts: { identifier: string }[] };
    const before = ctx.report.differences;
    const business = body.business ?? {};
    const fields = (['business_type', 'company_name', 'siret'] as const).filter((f) => business[f] !== held[f]);
    if (fields.length === 0) ctx.report.identical('businesses');
    fields.forEach((f, n) => ctx.report.add({ kind: 'businesses', item: item.id, difference: 'different', field: f, source: shown(business[f]), service: shown(held[f]) }, n === 0));
    const theirs = new Set(held.contracts.map((c) => c.identifier));
    const contracts = Array.isArray(business['business_contracts']) ? (business['business_contracts'] as { identifier?: unknown }[]) : [];
    for (const contract of contracts) {
      const id = typeof contract.identifier === 'string' ? contract.identifier : '';
      if (theirs.delete(id)) ctx.report.identical('contracts');
      else ctx.report.add({ kind: 'contracts', item: `${item.id}/${id}`, difference: 'missing', field: 'present', source: id, service: null });
    }
    for (const id of theirs) ctx.report.add({ kind: 'contracts', item: `${item.id}/${id}`, difference: 'extra', field: 'present', source: null, service: id });
    if (ctx.report.differences > before) p.failed++;
  });
  ctx.progress.end(p);
}

export async function verifyCatalogue(ctx: CatalogueContext): Promise<void> {
  await verifyProducts(ctx);
  await verifyBusinesses(ctx);
}
