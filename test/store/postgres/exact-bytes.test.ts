import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { supplyPointPopulateRequestStreamId } from '../../../events/supply-point-populate.js';
import { SUPPLIER } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { payloadFor } from '../contract/seed.js';
import { expectProjectionsVerify, metadata, openInstances, settle, type Instances } from './instances.js';

/** The stored text of a column, and its UTF-8 bytes as PostgreSQL holds them. */
async function stored(t: Instances, column: 'data' | 'metadata' | 'bulk', streamId: string) {
  const [row] = await t.sql<{ text: string; bytes: Buffer }>(`SELECT ${column} AS text, convert_to(${column}, 'UTF8') AS bytes FROM events WHERE stream_id = $1`, [streamId]);
  return row!;
}

/** Keys in reverse order, all the way down (objects only; arrays keep their order). */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

/**
 * The log holds what was decided, byte for byte: event data, metadata and
 * bulk fields are JSON text (not jsonb, which would sort keys, drop
 * duplicates and reformat), so key order, escapes and non-ASCII text come back
 * exactly as the store wrote them, and U+0000 (as the `\u0000` escape JSON
 * text carries it) is stored where jsonb would refuse it.
 */
describe('PostgreSQL: event JSON is stored as exact text', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  it('the event columns are text, not json or jsonb', async () => {
    const columns = await t.sql<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'events' AND column_name IN ('data', 'metadata', 'bulk') ORDER BY column_name`,
    );
    expect(columns).toEqual([
      { column_name: 'bulk', data_type: 'text' },
      { column_name: 'data', data_type: 'text' },
      { column_name: 'metadata', data_type: 'text' },
    ]);
  });

  it('keys in a non-sorted order, non-ASCII text and escapes read back byte-identical from the events table', async () => {
    const data = {
      status: 'Ongoing',
      code: 'ORDER',
      documentRoot: '/zz/a b/é/日本/😀/\u2028/"quoted"\\back\\slash/\t',
      sendEmails: false,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const event = { type: 'ImportSupplierCreated', version: 1, data } as LedgerEvent;
    const meta = { requestId: 'req-z', actor: 'operator:ü', causationId: 'c', correlationId: null };
    const [appended] = await t.a.store.appendToStream(importSupplierStreamId('ORDER'), 0, [event], { metadata: meta });
    const text = JSON.stringify(data);
    const row = await stored(t, 'data', importSupplierStreamId('ORDER'));
    expect(row.text).toBe(text);
    expect(row.bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
    // Not what jsonb would have made of it (sorted keys, spaces after the colons).
    expect(row.text.startsWith('{"status":"Ongoing","code":"ORDER",')).toBe(true);
    expect((await stored(t, 'metadata', importSupplierStreamId('ORDER'))).text).toBe(JSON.stringify({ eventId: appended!.metadata.eventId, ...meta }));
    // Both instances read the same event back, and the projection holds the same string.
    for (const ledger of [t.a, t.b]) {
      const [read] = await ledger.store.readStream(importSupplierStreamId('ORDER'));
      expect(read!.event.data).toEqual(data);
      expect((await ledger.read.findImportSupplier('ORDER'))?.documentRoot).toBe(data.documentRoot);
    }
  });

  it('an append of 64 events (rows of parameters) and one of 65 (column arrays) store the same exact bytes', async () => {
    const tricky = (i: number) => ({
      status: 'Ongoing',
      code: `C${i}`,
      documentRoot: `/zz/é/日本/😀/\u2028/"quoted"\\back\\slash/{a,b}/NULL/${i}\t`,
      sendEmails: false,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    for (const count of [64, 65]) {
      const stream = `exact-${count}`;
      const events = Array.from({ length: count }, (_, i) => ({ type: 'ImportSupplierCreated', version: 1, data: tricky(i) }) as LedgerEvent);
      await t.a.store.appendToStream(stream, 0, events, { metadata: { requestId: 'r', actor: 'a', causationId: null, correlationId: null } });
      const rows = await t.sql<{ data: string; bytes: Buffer; stream_position: string }>(
        'SELECT data, convert_to(data, $2) AS bytes, stream_position FROM events WHERE stream_id = $1 ORDER BY stream_position',
        [stream, 'UTF8'],
      );
      expect(rows).toHaveLength(count);
      rows.forEach((row, i) => {
        expect(Number(row.stream_position)).toBe(i + 1);
        expect(row.data).toBe(JSON.stringify(tricky(i)));
        expect(row.bytes.equals(Buffer.from(JSON.stringify(tricky(i)), 'utf8'))).toBe(true);
      });
      expect((await t.b.store.readStream(stream)).map((e) => e.event.data)).toEqual(events.map((e) => e.data));
    }
  });

  it('U+0000 inside event JSON is stored as its escape and reads back; a JSON projection column keeps the exact text too', async () => {
    const details = { zeta: 1, alpha: { z: 'a\u0000b', a: [3, 1, 2] }, 'ключ': '\u0000', mid: 1.5e-7, big: 12345678901234 };
    const event = {
      type: 'SupplyPointImported',
      version: 1,
      data: {
        batchId: 'b1',
        sequence: 1,
        supplyType: 'ELECTRICITY',
        identifier: '12345678901234',
        attempt: 1,
        customerCategory: 'Domestic',
        address: { postcode: '75001', line1: '1 rue', city: 'Paris' },
        details,
        importedAt: '2026-01-01T00:00:00.000Z',
      },
    } as LedgerEvent;
    const streamId = supplyPointPopulateRequestStreamId('b1', 1);
    await t.b.store.appendToStream(streamId, 0, [event], { metadata });
    const row = await stored(t, 'data', streamId);
    expect(row.text).toBe(JSON.stringify(event.data));
    expect(row.text).toContain('"z":"a\\u0000b"');
    const [read] = await t.a.store.readStream(streamId);
    const readDetails = (read!.event.data as { details: Record<string, unknown> }).details;
    expect(readDetails).toEqual(details);
    expect(Object.keys(readDetails)).toEqual(Object.keys(details));
    // The supply point's details column (JSON as text) holds the same bytes.
    const [point] = await t.sql<{ details: string }>(`SELECT details FROM supply_points WHERE identifier = '12345678901234'`);
    expect(point!.details).toBe(JSON.stringify(details));
    expect((await t.a.read.findSupplyPoint('ELECTRICITY', '12345678901234'))?.details).toEqual(details);
  });

  it('the bulk column (a staged payload) keeps its key order byte for byte', async () => {
    const payload = reversed(payloadFor('BULK-1', 'WEB')) as Record<string, unknown>;
    const event = {
      type: 'AccountStaged',
      version: 1,
      data: { stagedAt: '2026-01-01T00:00:00.000Z', payload, externalAccountNumber: 'BULK-1', importSupplier: SUPPLIER },
    } as LedgerEvent;
    const streamId = accountImportProcessStreamId(SUPPLIER, 'BULK-1');
    await t.a.store.appendToStream(streamId, 0, [event], { metadata });
    expect((await stored(t, 'bulk', streamId)).text).toBe(JSON.stringify({ payload }));
    expect((await stored(t, 'data', streamId)).text).toBe(JSON.stringify({ stagedAt: '2026-01-01T00:00:00.000Z', externalAccountNumber: 'BULK-1', importSupplier: SUPPLIER }));
  });

  it('U+0000 that a projection would store in a text column fails that unit alone (PostgreSQL refuses NUL in text); the batch and the ledger go on', async () => {
    const created = (code: string, documentRoot: string): LedgerEvent => ({
      type: 'ImportSupplierCreated',
      version: 1,
      data: { code, status: 'Ongoing', sendEmails: false, documentRoot, createdAt: '2026-01-01T00:00:00.000Z' },
    });
    const outcomes = await Promise.all([
      settle(t.a.store.appendToStream(importSupplierStreamId('BEFORE'), 0, [created('BEFORE', '/ok')], { metadata })),
      settle(t.a.store.appendToStream(importSupplierStreamId('NUL'), 0, [created('NUL', '/a\u0000b')], { metadata })),
      settle(t.a.store.appendToStream(importSupplierStreamId('AFTER'), 0, [created('AFTER', '/ok')], { metadata })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22021' });
    expect(await t.sql('SELECT stream_id, global_position::int AS p FROM events ORDER BY global_position')).toEqual([
      { stream_id: importSupplierStreamId('BEFORE'), p: 1 },
      { stream_id: importSupplierStreamId('AFTER'), p: 2 },
    ]);
    expect(await t.b.read.findImportSupplier('NUL')).toBeNull();
    await expectProjectionsVerify(t.b);
  });
});
