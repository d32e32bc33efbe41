import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestLedger, type TestLedger } from '../support/ledger.js';
import { skipWithoutPostgres } from '../support/postgres.js';
import { createExampleProducts } from '../support/products.js';

/**
 * Every account validation asks the markets of the products its agreements name. A product's market is
 * fixed at creation (no event changes it or removes the product), so once seen it is answered from
 * memory; a code not seen yet is asked of the database every time (it may be created meanwhile).
 */
describe.each(['sqlite', 'postgres'] as const)('read models: product markets (%s)', (store) => {
  if (store === 'postgres' && skipWithoutPostgres()) return;
  let t: TestLedger;
  beforeEach(async () => {
    t = await createTestLedger({ store });
  });
  afterEach(() => t.close());

  it('answers every code asked, in one lookup, and remembers the markets it found', async () => {
    expect(await t.ledger.read.productMarkets(['ELEC-FIXE-2025', 'NOPE'])).toEqual(new Map());
    await createExampleProducts({ ...t.ledger, clock: t.clock.read });
    const markets = await t.ledger.read.productMarkets(['ELEC-FIXE-2025', 'GAZ-FIXE-2025', 'ELEC-FIXE-2025', 'NOPE']);
    expect(markets).toEqual(new Map([['ELEC-FIXE-2025', 'FRA_ELECTRICITY'], ['GAZ-FIXE-2025', 'FRA_GAS']]));
    // The rows gone from the table (no command does this): the markets seen are still known, from memory.
    await t.execute('DELETE FROM products');
    expect(await t.ledger.read.productMarkets(['GAZ-FIXE-2025', 'ELEC-FIXE-2025'])).toEqual(new Map([['GAZ-FIXE-2025', 'FRA_GAS'], ['ELEC-FIXE-2025', 'FRA_ELECTRICITY']]));
  });

  it('asks for more codes than one statement takes', async () => {
    await createExampleProducts({ ...t.ledger, clock: t.clock.read });
    const codes = [...Array.from({ length: 40 }, (_, i) => `MISSING-${i}`), 'GAZ-FIXE-2025'];
    expect(await t.ledger.read.productMarkets(codes)).toEqual(new Map([['GAZ-FIXE-2025', 'FRA_GAS']]));
  });
});
