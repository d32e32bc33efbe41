import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { HeldReservation, IdempotentRequest } from '../../../src/store/idempotency.js';
import { IDEMPOTENCY_LEASE_MS } from '../../../src/store/idempotency.js';
import { createSupplier, metadata, settle, type ContractLedger, type LedgerFactory } from './harness.js';

const request = (key: string, fingerprint = `fp-${key}`): IdempotentRequest => ({
  keyId: 'key_test',
  idempotencyKey: key,
  fingerprint,
  requestPath: '/v1/data-import/x/',
});
const response = (status: number, body = '{"ok":true}') => ({ status, body, contentType: 'application/json' });

/**
 * Idempotency-Key records: the reservation is atomic (one holder at a time,
 * whatever the number of processes), the events a request appends are
 * recorded with its key in their own transaction, the first response stored
 * wins, and records past the retention are forgotten.
 */
export function idempotencyContract(open: LedgerFactory): void {
  describe('idempotency records', () => {
    let t: ContractLedger;
    beforeEach(async () => {
      t = await open();
    });
    afterEach(() => t.close());

    async function hold(key: string, fingerprint?: string): Promise<HeldReservation> {
      const reservation = await t.ledger.idempotency.reserve(request(key, fingerprint));
      if (!reservation.held) throw new Error(`${key} was expected to be free`);
      return reservation;
    }
    const handle = (code: string, reservation?: HeldReservation, dryRun = false) =>
      t.ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, createSupplier(code), {
        metadata,
        dryRun,
        ...(reservation ? { beforeCommit: reservation.beforeCommit } : {}),
      });

    it('a reservation holds the key: another reservation gets the record, in flight (no events, no response)', async () => {
      await hold('a');
      const again = await t.ledger.idempotency.reserve(request('a', 'other body'));
      expect(again).toMatchObject({ held: false, record: { fingerprint: 'fp-a', eventPositions: [], response: null } });
    });

    it('concurrent reservations of one key: exactly one holds it', async () => {
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => t.ledger.idempotency.reserve(request('race'))));
      expect(outcomes.filter((o) => o.held)).toHaveLength(1);
    });

    it('the events of the request are recorded with the key in their transaction; a failed or dry-run write records nothing', async () => {
      await handle('DUP');
      const reservation = await hold('b');
      const first = await handle('B1', reservation);
      await expect(handle('DUP', reservation)).rejects.toMatchObject({ code: 'import_supplier_already_exists' });
      await handle('DRY', reservation, true);
      const second = await handle('B2', reservation);
      const record = await t.ledger.idempotency.find('key_test', 'b');
      expect(record?.eventPositions).toEqual([first.events[0]!.globalPosition, second.events[0]!.globalPosition]);
      expect(record?.response).toBeNull();
    });

    it('complete stores the response once: the first one wins, and a held key is then replayed', async () => {
      const reservation = await hold('c');
      await handle('C', reservation);
      await reservation.complete(response(201));
      await reservation.complete(response(500, '{}'));
      await t.ledger.idempotency.complete(request('c'), response(400, '{}'));
      const again = await t.ledger.idempotency.reserve(request('c'));
      expect(again).toMatchObject({ held: false, record: { response: response(201) } });
    });

    it('a request that appended nothing gets its record at completion', async () => {
      const reservation = await hold('d');
      await reservation.complete(response(400, '{"code":"x"}'));
      expect(await t.ledger.idempotency.find('key_test', 'd')).toMatchObject({ eventPositions: [], response: response(400, '{"code":"x"}') });
    });

    it('release gives the key back unless events were recorded with it', async () => {
      const empty = await hold('e');
      await empty.release();
      expect(await t.ledger.idempotency.find('key_test', 'e')).toBeNull();
      expect((await t.ledger.idempotency.reserve(request('e'))).held).toBe(true);

      const written = await hold('f');
      await handle('F', written);
      await written.release();
      expect(await t.ledger.idempotency.find('key_test', 'f')).toMatchObject({ response: null, eventPositions: [expect.any(Number)] });
    });

    it('a reservation that recorded nothing is taken over past its lease; the old holder can then write nothing with it', async () => {
      const stale = await hold('g');
      t.clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000 - 1);
      expect((await t.ledger.idempotency.reserve(request('g'))).held).toBe(false);
      t.clock.advanceSeconds(2);
      const fresh = await hold('g');
      // The first holder was only slow: its write is refused and rolled back, the new holder's goes through.
      const outcomes = await Promise.all([settle(handle('G1', stale)), settle(handle('G2', fresh))]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'idempotency_key_in_progress' });
      expect(await t.ledger.store.streamVersion(importSupplierStreamId('G1'))).toBe(0);
      await stale.complete(response(201, '{"stale":true}'));
      await fresh.complete(response(201));
      expect(await t.ledger.idempotency.find('key_test', 'g')).toMatchObject({ response: response(201) });
    });

    it('a reservation left by a service that stopped before writing anything is taken over at once after the restart', async () => {
      await hold('crash');
      const done = await hold('crash-done');
      await handle('DONE', done);
      await t.restart();
      // The client's retry after the restart runs: the key is free again, without waiting for the lease.
      expect((await t.ledger.idempotency.reserve(request('crash'))).held).toBe(true);
      // A key whose events committed before the crash is not: its retry gets the response rebuilt from them.
      expect(await t.ledger.idempotency.reserve(request('crash-done'))).toMatchObject({ held: false, record: { eventPositions: [expect.any(Number)] } });
    });

    it('records are kept 24 hours, then forgotten and purged', async () => {
      const c = await hold('h');
      await handle('H', c);
      await c.complete(response(201));
      t.clock.advanceSeconds(12 * 3600);
      const d = await hold('i');
      await d.complete(response(400, '{}'));
      t.clock.advanceSeconds(12 * 3600 + 1);
      expect(await t.ledger.idempotency.purgeExpired()).toBe(1);
      expect(await t.ledger.idempotency.find('key_test', 'h')).toBeNull();
      expect(await t.ledger.idempotency.find('key_test', 'i')).toMatchObject({ response: response(400, '{}') });
      t.clock.advanceSeconds(12 * 3600);
      // Past the retention the key may be used afresh, even without a purge.
      expect((await t.ledger.idempotency.reserve(request('i', 'another body'))).held).toBe(true);
    });
  });
}
