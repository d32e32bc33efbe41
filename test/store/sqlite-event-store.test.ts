import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../events/import-supplier.js';
import type { LedgerEvent } from '../../events/registry.js';
import { DomainError } from '../../src/domain/errors.js';
import { importSupplierDecider } from '../../src/domain/import-supplier/import-supplier-decider.js';
import { openLedger } from '../../src/ledger.js';
import { ConcurrencyError } from '../../src/store/event-store.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

const metadata = { actor: 'operator:test', requestId: 'req-1', correlationId: 'req-1', causationId: 'cmd-1' };

const created = (code: string): LedgerEvent => ({
  type: 'ImportSupplierCreated',
  version: 1,
  data: { code, status: 'Ongoing', sendEmails: false, documentRoot: null, createdAt: '2026-01-01T00:00:00.000Z' },
});
const statusChanged = (code: string, from: 'Ongoing' | 'Paused', to: 'Ongoing' | 'Paused'): LedgerEvent => ({
  type: 'ImportSupplierStatusChanged',
  version: 1,
  data: { code, from, to, changedAt: '2026-01-02T00:00:00.000Z' },
});

describe('SqliteEventStore', () => {
  let t: TestLedger;
  beforeEach(() => {
    t = createTestLedger();
  });
  afterEach(() => t.close());

  it('appends with an expected version, contiguous from 1, and reads the stream back', async () => {
    const stream = importSupplierStreamId('A');
    await t.ledger.store.appendToStream(stream, 0, [created('A')], metadata);
    await t.ledger.store.appendToStream(stream, 1, [statusChanged('A', 'Ongoing', 'Paused'), statusChanged('A', 'Paused', 'Ongoing')], metadata);
    const events = await t.ledger.store.readStream(stream);
    expect(events.map((e) => e.streamPosition)).toEqual([1, 2, 3]);
    expect(events.map((e) => e.event.type)).toEqual(['ImportSupplierCreated', 'ImportSupplierStatusChanged', 'ImportSupplierStatusChanged']);
    expect(events[0]?.metadata).toMatchObject({ ...metadata });
    expect(new Set(events.map((e) => e.metadata.eventId)).size).toBe(3);
    expect(await t.ledger.store.streamVersion(stream)).toBe(3);
  });

  it('refuses a stale expected version with a typed ConcurrencyError and writes nothing', async () => {
    const stream = importSupplierStreamId('A');
    await t.ledger.store.appendToStream(stream, 0, [created('A')], metadata);
    await expect(t.ledger.store.appendToStream(stream, 0, [created('A')], metadata)).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(t.ledger.store.appendToStream(stream, 5, [created('A')], metadata)).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await t.ledger.store.streamVersion(stream)).toBe(1);
  });

  it('updates the inline projections in the same transaction as the append', async () => {
    await t.ledger.store.appendToStream(importSupplierStreamId('A'), 0, [created('A'), statusChanged('A', 'Ongoing', 'Paused')], metadata);
    expect(await t.ledger.read.findImportSupplier('A')).toMatchObject({ code: 'A', status: 'Paused', streamVersion: 2 });
  });

  it('handle: a DomainError from decide leaves nothing written', async () => {
    const stream = importSupplierStreamId('A');
    const command = { type: 'CreateImportSupplier' as const, code: 'A', status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: 'x' };
    await t.ledger.store.handle(stream, importSupplierDecider, command, { metadata });
    await expect(t.ledger.store.handle(stream, importSupplierDecider, command, { metadata })).rejects.toBeInstanceOf(DomainError);
    expect(await t.ledger.store.streamVersion(stream)).toBe(1);
  });

  it('handle: a dry run decides, appends and projects, then rolls everything back', async () => {
    const stream = importSupplierStreamId('A');
    const command = { type: 'CreateImportSupplier' as const, code: 'A', status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: 'x' };
    const result = await t.ledger.store.handle(stream, importSupplierDecider, command, { metadata, dryRun: true });
    expect(result.events).toHaveLength(1);
    expect(await t.ledger.store.streamVersion(stream)).toBe(0);
    expect(await t.ledger.read.findImportSupplier('A')).toBeNull();
    expect(await t.ledger.store.isEmpty()).toBe(true);
  });

  it('handle: a guard on another stream that moved on is a ConcurrencyError', async () => {
    await t.ledger.store.appendToStream(importSupplierStreamId('G'), 0, [created('G')], metadata);
    const command = { type: 'CreateImportSupplier' as const, code: 'A', status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: 'x' };
    await expect(
      t.ledger.store.handle(importSupplierStreamId('A'), importSupplierDecider, command, {
        metadata,
        guards: [{ streamId: importSupplierStreamId('G'), expectedVersion: 0 }],
      }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await t.ledger.store.streamVersion(importSupplierStreamId('A'))).toBe(0);
  });

  it('enforces unique (stream id, stream position) and unique event id in the schema itself', () => {
    const raw = new Database(t.file);
    const insert = raw.prepare(
      `INSERT INTO events (stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at) VALUES (?, ?, 'T', 1, '{}', '{}', ?, 'now')`,
    );
    insert.run('s', 1, 'e1');
    expect(() => insert.run('s', 1, 'e2')).toThrow(/UNIQUE/);
    expect(() => insert.run('s2', 1, 'e1')).toThrow(/UNIQUE/);
    raw.close();
  });

  it('reads the whole log in global order', async () => {
    await t.ledger.store.appendToStream(importSupplierStreamId('A'), 0, [created('A')], metadata);
    await t.ledger.store.appendToStream(importSupplierStreamId('B'), 0, [created('B')], metadata);
    const all = await t.ledger.store.readAll(0, 10);
    expect(all.map((e) => e.streamId)).toEqual([importSupplierStreamId('A'), importSupplierStreamId('B')]);
    expect(all[1]!.globalPosition).toBeGreaterThan(all[0]!.globalPosition);
    expect(await t.ledger.store.readAll(all[0]!.globalPosition, 10)).toHaveLength(1);
  });
});

describe('SQLite storage settings', () => {
  it('runs in WAL mode with synchronous=FULL, a busy timeout, and an SQLite with the WAL-reset fix', () => {
    const t = createTestLedger();
    try {
      const { sqlite } = t.ledger.database;
      expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(Number(sqlite.pragma('busy_timeout', { simple: true }))).toBeGreaterThanOrEqual(1000);
      const version = String(sqlite.prepare('select sqlite_version() as v').pluck().get());
      const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
      expect(major * 1_000_000 + minor * 1_000 + (patch ?? 0)).toBeGreaterThanOrEqual(3_051_003);
    } finally {
      t.close();
    }
  });

  it('creates the database directory when it is missing and applies migrations', () => {
    const t = createTestLedger();
    t.ledger.close();
    const nested = `${t.file}.d/deeper/ledger.db`;
    const ledger = openLedger(nested);
    expect(ledger.database.sqlite.prepare("select count(*) from sqlite_master where name = 'events'").pluck().get()).toBe(1);
    ledger.close();
  });
});
