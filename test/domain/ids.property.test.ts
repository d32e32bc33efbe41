import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomIds, uuidv7 } from '../../src/application/clock-and-ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('the service ids (UUID version 7)', () => {
  it('are RFC 9562 version 7 UUIDs, each sorting after the one made before it (the event_id index grows at its end)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 2_000 }), (count) => {
        const ids = Array.from({ length: count }, () => randomIds.uuid());
        for (const id of ids) expect(id).toMatch(V7);
        for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('carry the millisecond they were made in their first 48 bits', () => {
    const before = Date.now();
    const id = randomIds.uuid();
    const after = Date.now();
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it('never go backwards: past 4,096 ids in one millisecond, or with a clock set back, the millisecond is moved on', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 2 }), { minLength: 1, maxLength: 6_000 }), (steps) => {
        let now = Date.now() + 60_000;
        let previous = uuidv7(now);
        for (const step of steps) {
          now += step;
          const id = uuidv7(now);
          expect(id).toMatch(V7);
          expect(id > previous).toBe(true);
          previous = id;
        }
      }),
      { numRuns: 20 },
    );
    const same = Date.now() + 120_000;
    const ids = Array.from({ length: 4_097 }, () => uuidv7(same));
    expect(msOf(ids[4_095]!)).toBe(same);
    expect(msOf(ids[4_096]!)).toBe(same + 1);
  });
});
