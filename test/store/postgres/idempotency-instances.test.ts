import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { HeldReservation, IdempotentRequest } from '../../../src/store/idempotency.js';
import type { Ledger } from '../../../src/ledger.js';
import { IDEMPOTENCY_LOCK_CLASS } from '../../../src/store/postgres/pg-database.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { metadata, openInstances, settle, sleep, supplierCommand, type Instances } from './instances.js';

const request = (key: string): IdempotentRequest => ({ keyId: 'key_test', idempotencyKey: key, fingerprint: `fp-${key}`, requestPath: '/v1/data-import/x/' });
const response = (status: number, body = '{"ok":true}') => ({ status, body, contentType: 'application/json' });

/**
 * The same Idempotency-Key sent to two instances: the key's advisory lock
 * (held by the reserving instance's session) and its row make exactly one of
 * them run the request; the other sees it in flight, then gets the stored
 * response; an instance that stops without completing frees the key at once.
 */
describe('PostgreSQL: one Idempotency-Key, two instances', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  const create = (ledger: Ledger, code: string, reservation: HeldReservation) =>
    ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, supplierCommand('create', code), { metadata, beforeCommit: reservation.beforeCommit });

  /** Reserves `key` on both instances at once; returns the holder first. */
  async function race(key: string) {
    const [onA, onB] = await Promise.all([t.a.idempotency.reserve(request(key)), t.b.idempotency.reserve(request(key))]);
    expect([onA.held, onB.held].filter(Boolean), `${key}: exactly one instance holds it`).toHaveLength(1);
    return onA.held ? { holder: t.a, held: onA, other: t.b, otherSaw: onB } : { holder: t.b, held: onB as HeldReservation, other: t.a, otherSaw: onA };
  }

  it('reserved on both at once: one holds it, the other sees it in flight, then gets the stored response', async () => {
    for (let i = 0; i < 8; i++) {
      const key = `race-${i}`;
      const { holder, held, other, otherSaw } = await race(key);
      expect(otherSaw).toMatchObject({ held: false, record: { fingerprint: `fp-${key}`, eventPositions: [], response: null } });

      const { events } = await create(holder, `CODE-${i}`, held);
      const position = events[0]!.globalPosition;
      // In flight with its events recorded: still not the other's to run.
      expect(await other.idempotency.reserve(request(key))).toMatchObject({ held: false, record: { eventPositions: [position], response: null } });

      await held.complete(response(201, `{"code":"CODE-${i}"}`));
      for (const ledger of [other, holder]) {
        expect(await ledger.idempotency.reserve(request(key))).toMatchObject({
          held: false,
          record: { eventPositions: [position], response: response(201, `{"code":"CODE-${i}"}`) },
        });
      }
    }
  });

  it('the holder instance stops without completing (its session ends): the other takes the key over at once, not after the lease', async () => {
    const { holder, other } = await race('crash');
    await t.closeOne(holder);
    // A retry a moment later (the clock is not moved anywhere near the lease).
    t.clock.advanceSeconds(1);
    const retry = await other.idempotency.reserve(request('crash'));
    expect(retry.held).toBe(true);
    const { events } = await create(other, 'CRASH', retry as HeldReservation);
    await (retry as HeldReservation).complete(response(201));
    expect(await other.idempotency.find('key_test', 'crash')).toMatchObject({ eventPositions: [events[0]!.globalPosition], response: response(201) });
  });

  it('the holder stops without completing, and the retry comes within the same millisecond: it is taken over too', async () => {
    const { holder, other } = await race('crash-same-ms');
    await t.closeOne(holder);
    expect((await other.idempotency.reserve(request('crash-same-ms'))).held).toBe(true);
  });

  it('the holder stops after its events committed: the other gets the record with them (to answer from), not the key', async () => {
    const { holder, held, other } = await race('crash-done');
    const { events } = await create(holder, 'DONE', held);
    await t.closeOne(holder);
    t.clock.advanceSeconds(1);
    expect(await other.idempotency.reserve(request('crash-done'))).toMatchObject({
      held: false,
      record: { eventPositions: [events[0]!.globalPosition], response: null },
    });
  });

  it('the holder loses its session while its request still runs: the other takes the key over, and the old holder can write nothing with it', async () => {
    const { holder, held: stale, other } = await race('lost');
    const holders = await t.sql<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::int::oid AND objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [IDEMPOTENCY_LOCK_CLASS],
    );
    expect(holders).toHaveLength(1);
    await t.sql('SELECT pg_terminate_backend($1)', [holders[0]!.pid]);
    t.clock.advanceSeconds(1);
    let fresh: Awaited<ReturnType<Ledger['idempotency']['reserve']>> | null = null;
    // The session's end takes a moment to reach the server's lock table: bounded retries.
    for (let i = 0; i < 50 && !fresh?.held; i++) {
      fresh = await other.idempotency.reserve(request('lost'));
      if (!fresh.held) await sleep(20);
    }
    expect(fresh?.held).toBe(true);
    const [old, now] = await Promise.all([settle(create(holder, 'LOST-OLD', stale)), settle(create(other, 'LOST-NEW', fresh as HeldReservation))]);
    expect(old).toMatchObject({ status: 'rejected', reason: { code: 'idempotency_key_in_progress' } });
    expect(now.status).toBe('fulfilled');
    expect(await t.sql("SELECT stream_id FROM events WHERE stream_id LIKE 'import-supplier:LOST%'")).toEqual([{ stream_id: 'import-supplier:LOST-NEW' }]);
    await stale.complete(response(500, '{"stale":true}'));
    await (fresh as HeldReservation).complete(response(201));
    expect(await t.a.idempotency.find('key_test', 'lost')).toMatchObject({ response: response(201) });
  });
});
