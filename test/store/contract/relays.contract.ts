import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ParkedMessage } from '../../../src/store/relay-store.js';
import type { ContractLedger, LedgerFactory } from './harness.js';

const LEASE_MS = 10_000;
const start = { position: 0, replaySeq: 0 };

/**
 * The relays' storage: one holder of a relay at a time across processes, taken over once its lease runs out;
 * the position moves only while the lease is the mover's; parked webhook messages kept in position order.
 */
export function relaysContract(open: LedgerFactory): void {
  describe('relay positions and leases', () => {
    let t: ContractLedger;
    beforeEach(async () => {
      t = await open();
    });
    afterEach(() => t.close());

    it('one holder at a time, across processes; the position moves only under the lease; an expired lease is taken over', async () => {
      const other = await t.another();
      const now = Date.parse('2026-11-29T10:00:00Z');
      expect(await t.ledger.relays.acquire('nats', 'a', now, LEASE_MS, start)).toEqual(start);
      expect(await other.relays.acquire('nats', 'b', now + 1, LEASE_MS, start)).toBeNull();
      // The holder renews, and moves the position.
      expect(await t.ledger.relays.advance('nats', 'a', now + 5_000, LEASE_MS, { position: 42, replaySeq: 0 })).toBe(true);
      expect(await other.relays.advance('nats', 'b', now + 5_000, LEASE_MS, { position: 99, replaySeq: 0 })).toBe(false);
      expect(await other.relays.acquire('nats', 'b', now + 12_000, LEASE_MS, start)).toBeNull();
      // Its lease runs out (renewed at +5 s, so until +15 s): the other process takes the relay where it stood.
      expect(await other.relays.acquire('nats', 'b', now + 15_001, LEASE_MS, start)).toEqual({ position: 42, replaySeq: 0 });
      expect(await t.ledger.relays.advance('nats', 'a', now + 15_002, LEASE_MS, { position: 50, replaySeq: 0 })).toBe(false);
      expect(await t.ledger.relays.acquire('nats', 'a', now + 15_003, LEASE_MS, start)).toBeNull();
      // A release lets it go at once.
      await other.relays.release('nats', 'b');
      expect(await t.ledger.relays.acquire('nats', 'a', now + 15_004, LEASE_MS, start)).toEqual({ position: 42, replaySeq: 0 });
      expect(await t.ledger.relays.cursors()).toEqual([{ name: 'nats', position: 42, replaySeq: 0, holder: 'a', leaseExpiresAtMs: now + 15_004 + LEASE_MS }]);
      // Relays are independent.
      expect(await other.relays.acquire('webhook:we_1', 'b', now, LEASE_MS, { position: 7, replaySeq: 3 })).toEqual({ position: 7, replaySeq: 3 });
    });

    it('parked messages come back in position order, updated in place, forgotten by position or from a position on', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 1_000_000 }), async (positions, from) => {
          const endpointId = `we_${positions.length}_${from}`;
          const message = (position: number, attempts = 1): ParkedMessage => ({
            endpointId,
            position,
            orderingKey: `account:S/${position % 3}`,
            attempts,
            nextAttemptAtMs: position % 2 === 0 ? null : 1_000 + position,
            firstFailedAtMs: 500,
          });
          await t.ledger.relays.park(positions.map((p) => message(p)));
          await t.ledger.relays.park([message(positions[0]!, 5)]);
          const sorted = [...positions].sort((a, b) => a - b);
          expect(await t.ledger.relays.countParked(endpointId)).toBe(positions.length);
          expect(await t.ledger.relays.parked(endpointId, 1_000)).toEqual(sorted.map((p) => message(p, p === positions[0] ? 5 : 1)));
          await t.ledger.relays.unpark(endpointId, { positions: [sorted[0]!] });
          await t.ledger.relays.unpark(endpointId, { from });
          expect((await t.ledger.relays.parked(endpointId, 1_000)).map((m) => m.position)).toEqual(sorted.slice(1).filter((p) => p < from));
          await t.ledger.relays.unpark(endpointId, { from: 0 });
        }),
        { numRuns: 15 },
      );
    });
  });
}
