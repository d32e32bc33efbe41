import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createBusiness } from '../../../src/application/businesses.js';
import { validateBusinessPayload, type BusinessPayload } from '../../../src/domain/business/business-payload.js';
import { businessDecider } from '../../../src/domain/business/decider.js';
import { DomainError } from '../../../src/domain/errors.js';
import { minimalBusiness } from '../../support/business.js';
import { createTestLedger, operator, type TestLedger } from '../../support/ledger.js';

const SUPPLIERS = ['LEGACY_ENERGIE', 'OTHER_SUPPLIER'] as const;
const BUSINESSES = ['BIZ-1', 'BIZ-2', 'BIZ-3'] as const;
const CONTRACTS = ['CTR-A', 'CTR-B', 'CTR-C', 'CTR-D'] as const;
const NAMES = ['Boulangerie Martin EURL', 'Martin SARL'] as const;

interface Create {
  readonly supplier: number;
  readonly business: number;
  readonly name: number;
  readonly contracts: readonly number[];
}

const create: fc.Arbitrary<Create> = fc.record({
  supplier: fc.nat(SUPPLIERS.length - 1),
  business: fc.nat(BUSINESSES.length - 1),
  name: fc.nat(NAMES.length - 1),
  contracts: fc.uniqueArray(fc.nat(CONTRACTS.length - 1), { maxLength: 2 }),
});

function payloadOf(cmd: Create): BusinessPayload {
  const input = minimalBusiness({ supplier: SUPPLIERS[cmd.supplier], externalBusinessIdentifier: BUSINESSES[cmd.business] });
  input.business.company_name = NAMES[cmd.name]!;
  const template = input.business.business_contracts[0]!;
  input.business.business_contracts = cmd.contracts.map((c) => ({ ...template, identifier: CONTRACTS[c]! }));
  const result = validateBusinessPayload(input);
  if (!result.ok) throw new Error('generated payload must validate');
  return result.data;
}

describe('businesses (property)', () => {
  let open: TestLedger | undefined;
  afterEach(async () => {
    await open?.close();
  });

  it('for any sequence of creates: one business per key, first attributes win, contract identifiers unique per supplier, stable ids', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(create, { minLength: 1, maxLength: 12 }), async (commands) => {
        const t = await createTestLedger();
        open = t;
        try {
          /** The model: the first accepted create of each (supplier, business) and the owner of each contract. */
          const first = new Map<string, { name: string; id: number }>();
          const owners = new Map<string, string>();
          for (const cmd of commands) {
            const payload = payloadOf(cmd);
            const key = `${payload.import_supplier_code}/${payload.external_business_identifier}`;
            const before = (await t.ledger.store.readAll(0, 1_000_000)).length;
            const existing = first.get(key);
            try {
              const result = await createBusiness(t.ledger, payload, operator);
              if (existing) {
                // The same business again: the same id, nothing appended.
                expect(existing.name).toBe(payload.business.company_name);
                expect(result).toEqual({ platformBusinessId: existing.id, created: false });
                expect((await t.ledger.store.readAll(0, 1_000_000)).length).toBe(before);
              } else {
                expect(result.created).toBe(true);
                for (const contract of payload.business.business_contracts) {
                  const owner = `${payload.import_supplier_code}/${contract.identifier}`;
                  expect(owners.has(owner)).toBe(false);
                  owners.set(owner, key);
                }
                first.set(key, { name: payload.business.company_name, id: result.platformBusinessId });
              }
            } catch (error) {
              expect(error).toBeInstanceOf(DomainError);
              const code = (error as DomainError).code;
              if (existing) {
                expect(code).toBe('business_already_exists');
                expect(existing.name).not.toBe(payload.business.company_name);
              } else {
                expect(code).toBe('business_failed_validation');
                const taken = payload.business.business_contracts.some((c) => owners.has(`${payload.import_supplier_code}/${c.identifier}`));
                expect(taken).toBe(true);
              }
              // A refused create writes nothing.
              expect((await t.ledger.store.readAll(0, 1_000_000)).length).toBe(before);
            }
          }

          const log = await t.ledger.store.readAll(0, 1_000_000);
          // Every business's id is the global position of its BusinessCreated; one per stream, first in it.
          for (const [key, { id }] of first) {
            const [supplier, ext] = key.split('/') as [string, string];
            const stream = log.filter((e) => e.streamId === `business:${supplier}:${ext}`);
            expect(stream[0]).toMatchObject({ globalPosition: id, event: { type: 'BusinessCreated' } });
            expect(stream.filter((e) => e.event.type === 'BusinessCreated')).toHaveLength(1);
            // Folding the stream gives the first attributes.
            const state = stream.map((e) => e.event as Parameters<typeof businessDecider.evolve>[1]).reduce(businessDecider.evolve, businessDecider.initialState);
            expect(state).toMatchObject({ status: 'created', key: { company_name: first.get(key)?.name } });
          }
          // Replaying the log rebuilds the same rows, ids included (businesses and business_contracts among them).
          const { differences } = await t.ledger.projections.verify(inlineProjections);
          expect(differences).toEqual([]);
          expect(await t.tableRows('business_contracts')).toHaveLength(owners.size);
        } finally {
          await t.close();
          open = undefined;
        }
      }),
      { numRuns: 40 },
    );
  });
});
