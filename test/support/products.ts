import type { LedgerContext } from '../../src/application/context.js';
import { importProducts } from '../../src/application/products.js';
import { validateProducts } from '../../src/domain/product/product-payload.js';
import { loadExample, operator } from './ledger.js';

/**
 * Creates the products of test/fixtures/examples/products.json (ELEC-FIXE-2025,
 * GAZ-FIXE-2025), which the account examples' agreements name, through the
 * application as products/ would.
 */
export async function createExampleProducts(ledger: LedgerContext): Promise<void> {
  const validation = validateProducts(loadExample('products.json'));
  if (!validation.ok) throw new Error(`products.json must validate: ${JSON.stringify(validation.errors)}`);
  await importProducts(ledger, validation.data, operator, { dryRun: false });
}
