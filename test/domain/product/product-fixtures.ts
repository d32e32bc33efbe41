import { expect } from 'vitest';
import { productDraftFrom, type ImportProduct } from '../../../src/domain/product/commands.js';
import { validateProducts, type ProductPayload } from '../../../src/domain/product/product-payload.js';
import { loadExample } from '../../support/ledger.js';

/** Products as a caller sends them: plain JSON the tests mutate. */
export type ProductsInput = Record<string, unknown>[];

/** A fresh deep copy of products.json (ELEC-FIXE-2025 with 5 rates, GAZ-FIXE-2025 with 2). */
export const exampleProducts = (): ProductsInput => structuredClone(loadExample('products.json')) as unknown as ProductsInput;
/** A fresh deep copy of product-rate-update.json (one new BASE consumption rate of ELEC-FIXE-2025 from 2025-08-01). */
export const exampleRateUpdate = (): ProductsInput => structuredClone(loadExample('product-rate-update.json')) as unknown as ProductsInput;

/** Writes a value at a dot path (`0.rates.2.unit_type`); undefined deletes the key. */
export function setAt<T>(input: T, attr: string, value: unknown): T {
  const parts = attr.split('.');
  const last = parts.pop() ?? '';
  let node = input as Record<string, unknown>;
  for (const part of parts) node = node[part] as Record<string, unknown>;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return input;
}

export function validated(input: unknown): ProductPayload[] {
  const result = validateProducts(input);
  if (!result.ok) throw new Error(`expected valid products: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** Asserts the products fail and that the errors include exactly `{ code, attr }`. */
export function expectError(input: unknown, code: string, attr: string | null): void {
  const result = validateProducts(input);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.errors.map(({ code: c, attr: a }) => ({ code: c, attr: a }))).toContainEqual({ code, attr });
}

export const NOW = '2026-11-21T10:00:00.000Z';

/** The ImportProduct command for product `index` of a (valid) products input. */
export function importCommand(input: unknown, index = 0, now = NOW): ImportProduct {
  const product = validated(input)[index];
  if (!product) throw new Error(`no product ${index}`);
  return { type: 'ImportProduct', index, product: productDraftFrom(product), now };
}
