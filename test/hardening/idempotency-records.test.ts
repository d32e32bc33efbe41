import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../events/import-supplier.js';
import { importSupplierDecider } from '../../src/domain/import-supplier/import-supplier-decider.js';
import type { IdempotentRequest } from '../../src/store/idempotency-records.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

/**
 * The Idempotency-Key row is written by the event store's unit of work, in the
 * savepoint that appends the request's events: it commits with them, and rolls
 * back with them when the command fails, also inside a group-commit batch.
 */

const metadata = { actor: 'key_test', requestId: 'req-1', correlationId: 'req-1', causationId: 'cmd-1' };
const create = (code: string) => ({ type: 'CreateImportSupplier' as const, code, status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: 'x' });
const request = (key: string): IdempotentRequest => ({ keyId: 'key_test', idempotencyKey: key, fingerprint: `fp-${key}`, requestPath: '/v1/data-import/x/' });

let t: TestLedger;
beforeEach(() => {
  t = createTestLedger();
});
afterEach(() => t.close());

const rows = () =>
  t.ledger.database.sqlite.prepare('SELECT idempotency_key AS k, event_positions AS p, status FROM idempotency_keys ORDER BY k').all() as {
    k: string;
    p: string;
    status: number | null;
  }[];
const handle = (code: string) => t.ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, create(code), { metadata });

describe('IdempotencyRecords with the SQLite event store', () => {
  it('a command handled for a keyed request records the key with the positions of its events, before any response', async () => {
    const result = await t.ledger.idempotency.run(request('a'), () => handle('A'));
    expect(rows()).toEqual([{ k: 'a', p: JSON.stringify(result.events.map((e) => e.globalPosition)), status: null }]);
    // Two commands of one request: both sets of positions.
    const [b1, b2] = await t.ledger.idempotency.run(request('b'), async () => [await handle('B1'), await handle('B2')]);
    expect(JSON.parse(rows()[1]!.p)).toEqual([b1!.events[0]!.globalPosition, b2!.events[0]!.globalPosition]);
  });

  it('a command that fails leaves no key (its savepoint is rolled back with the key), also among other commands of the same batch', async () => {
    await handle('DUP');
    const outcomes = await Promise.allSettled([
      t.ledger.idempotency.run(request('ok'), () => handle('NEW')),
      t.ledger.idempotency.run(request('refused'), () => handle('DUP')), // already exists: the decider refuses
      t.ledger.idempotency.run(request('ok2'), () => handle('NEW2')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(rows().map((r) => r.k)).toEqual(['ok', 'ok2']);
  });

  it('a dry run records nothing; commands outside a keyed request record nothing', async () => {
    await t.ledger.idempotency.run(request('dry'), () =>
      t.ledger.store.handle(importSupplierStreamId('D'), importSupplierDecider, create('D'), { metadata, dryRun: true }),
    );
    await handle('PLAIN');
    expect(rows()).toEqual([]);
  });

  it('the response completes the row; rows past 24 hours are forgotten and purged', async () => {
    await t.ledger.idempotency.run(request('c'), () => handle('C'));
    t.ledger.idempotency.complete(request('c'), { status: 201, body: '{"ok":true}', contentType: 'application/json' });
    expect(t.ledger.idempotency.find('key_test', 'c')).toMatchObject({ status: 201, responseBody: '{"ok":true}', fingerprint: 'fp-c' });
    t.clock.advanceSeconds(24 * 3600 + 1);
    t.ledger.idempotency.complete(request('d'), { status: 400, body: '{}', contentType: 'application/json' });
    expect(t.ledger.idempotency.purgeExpired()).toBe(1);
    expect(t.ledger.idempotency.find('key_test', 'c')).toBeNull();
    expect(t.ledger.idempotency.find('key_test', 'd')).toMatchObject({ status: 400, eventPositions: '[]' });
  });
});
