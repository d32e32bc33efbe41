import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { Ledger } from '../../../src/ledger.js';
import type { ClaimMode, HeldReservation, IdempotentRequest, StoredResponse } from '../../../src/store/idempotency.js';
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

    /** Holds the key; `answer`: what its writes record with their events (`templateAnswer`: `#` is their number). */
    async function hold(key: string, fingerprint?: string, claim?: ClaimMode, ledger: Ledger = t.ledger, answer?: StoredResponse): Promise<HeldReservation> {
      const options = { ...(claim ? { claim } : {}), ...(answer ? { answerFrom: { body: answer } } : {}) };
      const reservation = await ledger.idempotency.reserve(request(key, fingerprint), options);
      if (!reservation.held) throw new Error(`${key} was expected to be free`);
      return reservation;
    }
    /** A write under the reservation. */
    const handle = (code: string, reservation?: HeldReservation, dryRun = false, ledger: Ledger = t.ledger) =>
      ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, createSupplier(code), {
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

    it('an answer recorded with the events is the record\'s response; a completion replaces it, once', async () => {
      const reservation = await hold('rec', undefined, undefined, t.ledger, response(201, '{"rebuilt":true}'));
      await handle('REC', reservation);
      expect(await t.ledger.idempotency.find('key_test', 'rec')).toMatchObject({ eventPositions: [expect.any(Number)], response: response(201, '{"rebuilt":true}') });
      await reservation.complete(response(201, '{"rendered":true}'));
      await reservation.complete(response(500, '{}'));
      expect(await t.ledger.idempotency.find('key_test', 'rec')).toMatchObject({ response: response(201, '{"rendered":true}') });
    });

    it('keepRecorded ends the hold without writing: the key is then answered with what its events recorded', async () => {
      for (const claim of ['store', 'with-writes'] as const) {
        const reservation = await hold(`keep-${claim}`, undefined, claim, t.ledger, response(201, '{"kept":true}'));
        await handle(`KEEP-${claim.toUpperCase()}`, reservation);
        await reservation.keepRecorded();
        expect(await t.ledger.idempotency.reserve(request(`keep-${claim}`))).toMatchObject({
          held: false,
          record: { eventPositions: [expect.any(Number)], response: response(201, '{"kept":true}') },
        });
      }
    });

    describe('a key claimed with its writes', () => {
      it('is held: another claim while it runs gets a record in flight (no events, no response)', async () => {
        await hold('w', undefined, 'with-writes');
        for (const claim of ['store', 'with-writes'] as const) {
          expect(await t.ledger.idempotency.reserve(request('w', 'other body'), { claim })).toMatchObject({
            held: false,
            record: { eventPositions: [], response: null },
          });
        }
      });

      it('a key claimed in the store first, still held, is held against a claim with its writes', async () => {
        await hold('sw');
        expect(await t.ledger.idempotency.reserve(request('sw', 'other body'), { claim: 'with-writes' })).toMatchObject({
          held: false,
          record: { fingerprint: 'fp-sw', eventPositions: [], response: null },
        });
      });

      it('records its events, and their answer, in their unit of work; a dry run or a refused write records nothing', async () => {
        await handle('WDUP');
        const reservation = await hold('w2', undefined, 'with-writes', t.ledger, response(201, '{"n":#}'));
        await expect(handle('WDUP', reservation)).rejects.toMatchObject({ code: 'import_supplier_already_exists' });
        await handle('WDRY', reservation, true);
        const first = await handle('W1', reservation);
        const second = await handle('W2', reservation);
        expect(await t.ledger.idempotency.find('key_test', 'w2')).toMatchObject({
          eventPositions: [first.events[0]!.globalPosition, second.events[0]!.globalPosition],
          response: response(201, '{"n":2}'),
        });
      });

      it('a request that wrote nothing gets its record at completion; released, it leaves nothing and the key is free', async () => {
        const refused = await hold('w3', undefined, 'with-writes');
        await refused.complete(response(400, '{"code":"x"}'));
        expect(await t.ledger.idempotency.find('key_test', 'w3')).toMatchObject({ eventPositions: [], response: response(400, '{"code":"x"}') });
        const transient = await hold('w4', undefined, 'with-writes');
        await transient.release();
        expect(await t.ledger.idempotency.find('key_test', 'w4')).toBeNull();
        expect((await t.ledger.idempotency.reserve(request('w4'), { claim: 'with-writes' })).held).toBe(true);
      });

      it('two service processes given the same key at once: exactly one writes with it, the other writes nothing', async () => {
        const other = await t.another();
        const claims = await Promise.all(
          [t.ledger, other].map((ledger) => ledger.idempotency.reserve(request('both'), { claim: 'with-writes', answerFrom: { body: response(201) } })),
        );
        expect(claims.some((claim) => claim.held)).toBe(true);
        const outcomes = await Promise.all(
          claims.map((claim, i) => (claim.held ? settle(handle(`BOTH${i}`, claim, false, i === 0 ? t.ledger : other)) : null)),
        );
        const written = outcomes.filter((outcome) => outcome?.status === 'fulfilled');
        expect(written).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome?.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'idempotency_key_in_progress' });
        }
        const versions = await Promise.all([0, 1].map((i) => t.ledger.store.streamVersion(importSupplierStreamId(`BOTH${i}`))));
        expect(versions.sort()).toEqual([0, 1]);
        expect(await t.ledger.idempotency.find('key_test', 'both')).toMatchObject({ eventPositions: [expect.any(Number)], response: response(201) });
      });

      it('past the lease another request takes it over; the old holder can then write nothing with it', async () => {
        const stale = await hold('w5', undefined, 'with-writes');
        t.clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000 - 1);
        expect((await t.ledger.idempotency.reserve(request('w5'), { claim: 'with-writes' })).held).toBe(false);
        t.clock.advanceSeconds(2);
        const fresh = await hold('w5', undefined, 'with-writes');
        const outcomes = await Promise.all([settle(handle('W5A', stale)), settle(handle('W5B', fresh))]);
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
        expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'idempotency_key_in_progress' });
        expect(await t.ledger.store.streamVersion(importSupplierStreamId('W5A'))).toBe(0);
      });
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
