import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { productStreamId, type ProductEvent } from '../../../events/product.js';
import { inlineProjections } from '../../../projections/index.js';
import type { ProductRow } from '../../../projections/products.js';
import { DomainError } from '../../../src/domain/errors.js';
import { productDecider as decider } from '../../../src/domain/product/decider.js';
import { createTestLedger, type TestLedger } from '../../support/ledger.js';
import { command, expectContinuousBands, productDraft } from './product-arbitraries.js';

const CODES = ['P', 'Q'] as const;
const metadata = { actor: 'operator:test', requestId: null, correlationId: null, causationId: null };

/** A products/ request: 1-3 products (codes may repeat), real or dry run. */
const batch = fc.record({
  drafts: fc.array(fc.constantFrom(...CODES).chain(productDraft), { minLength: 1, maxLength: 3 }),
  dryRun: fc.boolean(),
});

const productRows = (t: Pick<TestLedger, 'execute'>) => t.execute('SELECT * FROM products ORDER BY code');

async function streamVersions(t: TestLedger) {
  return Promise.all(CODES.map((code) => t.ledger.store.streamVersion(productStreamId(code))));
}

describe('products through the store (properties)', () => {
  it('for any sequence of requests: all or nothing, dry runs decide alike and write nothing, replay rebuilds the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 10 }), async (batches) => {
        const t = await createTestLedger();
        try {
          for (const [i, { drafts, dryRun }] of batches.entries()) {
            const commands = drafts.map((draft, index) => ({
              streamId: productStreamId(draft.code),
              decider,
              command: { ...command(draft, i), index },
            }));
            const before = { rows: await productRows(t), versions: await streamVersions(t) };
            const attempt = async (dry: boolean) => {
              try {
                const results = await t.ledger.store.handleMany(commands, { metadata, dryRun: dry });
                return { ok: true as const, events: results.map((r) => r.events.map((e) => e.event)) };
              } catch (error) {
                expect(error).toBeInstanceOf(DomainError);
                return { ok: false as const, code: (error as DomainError).code, errors: (error as DomainError).errors };
              }
            };
            // validate-products/ is a dry run of the same path: same outcome, nothing written.
            const dry = await attempt(true);
            expect({ rows: await productRows(t), versions: await streamVersions(t) }).toEqual(before);
            if (dryRun) continue;
            const real = await attempt(false);
            expect(real).toEqual(dry);
            if (!real.ok) {
              // (3) one refused product and nothing of the request is written, on any stream.
              expect({ rows: await productRows(t), versions: await streamVersions(t) }).toEqual(before);
            }
          }

          // The projection holds what folding each stream gives, and (1) its bands are continuous.
          const rows = await productRows(t);
          for (const code of CODES) {
            const stream = await t.ledger.store.readStream(productStreamId(code));
            expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
            const state = stream.map((e) => e.event as ProductEvent).reduce(decider.evolve, decider.initialState);
            const row = (await t.ledger.read.findProduct(code)) as ProductRow | null;
            if (state.status === 'none') {
              expect(row).toBeNull();
              continue;
            }
            expect(row?.rates).toEqual(state.rates);
            expect(row?.fullName).toBe(state.product.fullName);
            expectContinuousBands(row?.rates ?? []);
          }

          // (4) replaying the stored events rebuilds the same rows, byte for byte (products among them).
          const { differences } = await t.ledger.projections.verify(inlineProjections);
          expect(differences).toEqual([]);
          expect(await productRows(t)).toEqual(rows);
        } finally {
          await t.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
