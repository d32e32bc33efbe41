import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import { inlineProjections } from '../../projections/index.js';
import { changeTransferStatus, processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { validateAccountPayload, type AccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { openLogReader } from '../../src/store/log-reader.js';
import { rebuildProjections } from '../../src/store/projection-rebuild.js';
import { PROJECT_ROOT } from '../cli/run-cli.js';
import { createExampleProducts } from '../support/products.js';
import { createTestLedger, loadExample, operator, SUPPLIER, TEAM, type TestLedger } from '../support/ledger.js';

const base = validateAccountPayload(loadExample('account-domestic.json'));
if (!base.ok) throw new Error('example must validate');
const payloadFor = (ext: string, channel: string): AccountPayload => ({ ...base.data, external_account_number: ext, sales_channel: channel });

/** A log with staged, re-staged, processed and transfer events for a few accounts. */
async function seededLedger(): Promise<TestLedger> {
  const t = createTestLedger();
  await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(t.ledger, TEAM, operator);
  await createExampleProducts(t.ledger);
  for (let i = 0; i < 6; i++) {
    const ext = `ACC-${i}`;
    await stageAccount(t.ledger, payloadFor(ext, 'WEB'), operator);
    if (i % 2 === 0) await stageAccount(t.ledger, payloadFor(ext, 'PHONE'), operator);
    if (i % 3 !== 0) {
      await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false }, operator);
      await changeTransferStatus(t.ledger, SUPPLIER, ext, 'IN_PROGRESS', operator);
    }
  }
  return t;
}

const allEvents = (t: TestLedger) => t.ledger.store.readAll(0, 1_000_000);

/** Plain values of stored events (a replayed event's metadata is a getter). */
const plain = (events: readonly StoredEvent<LedgerEvent>[]) =>
  events.map((e) => ({ globalPosition: e.globalPosition, streamId: e.streamId, streamPosition: e.streamPosition, event: e.event, metadata: e.metadata, recordedAt: e.recordedAt }));

function readAllThrough(t: TestLedger, options: { withBulk: boolean; inWorker: boolean; types: readonly string[] }): StoredEvent<LedgerEvent>[] {
  const reader = openLogReader(t.ledger.database.sqlite, { ...options, batchSize: 4 });
  try {
    const events: StoredEvent<LedgerEvent>[] = [];
    for (let batch = reader.next(); batch !== null; batch = reader.next()) {
      expect(batch.length).toBeLessThanOrEqual(4);
      events.push(...batch);
    }
    expect(events.length).toBe(reader.total);
    expect(reader.through).toBeGreaterThanOrEqual(Math.max(0, ...events.map((e) => e.globalPosition)));
    return events;
  } finally {
    reader.close();
  }
}

function projectionDump(sqlite: Database.Database): unknown[] {
  return sqlite.prepare('SELECT * FROM account_import_processes ORDER BY external_account_number').raw().all();
}

describe('event storage: bulk fields in their own column', () => {
  let open: TestLedger | undefined;
  afterEach(() => open?.close());

  it('stores a staged payload in `bulk`, the rest in `data`, and reads the event back whole', async () => {
    const t = (open = await seededLedger());
    const row = t.ledger.database.sqlite
      .prepare<[], { data: string; bulk: string | null }>("SELECT data, bulk FROM events WHERE type = 'AccountStaged' ORDER BY global_position LIMIT 1")
      .get()!;
    expect(JSON.parse(row.data)).not.toHaveProperty('payload');
    expect(JSON.parse(row.bulk!)).toEqual({ payload: expect.objectContaining({ external_account_number: 'ACC-0', sales_channel: 'WEB' }) });
    const processed = t.ledger.database.sqlite.prepare("SELECT bulk FROM events WHERE type = 'AccountProcessed' LIMIT 1").pluck().get();
    expect(processed).toBeNull();
    const [staged] = await t.ledger.store.readStream(`account-import-process:${SUPPLIER}:ACC-0`);
    expect(staged!.event.type).toBe('AccountStaged');
    expect((staged!.event.data as { payload: Record<string, unknown> }).payload.sales_channel).toBe('WEB');
  });

  it('rows written before the split read the same, and the 0005 migration moves their payloads', async () => {
    const t = (open = await seededLedger());
    const { sqlite } = t.ledger.database;
    const before = await allEvents(t);
    // The layout before migration 0005: the payload inside `data`, no `bulk`.
    const rewritten = sqlite.prepare("UPDATE events SET data = json_set(data, '$.payload', json(json_extract(bulk, '$.payload'))), bulk = NULL WHERE bulk IS NOT NULL").run();
    expect(rewritten.changes).toBe(9);
    expect(await allEvents(t)).toEqual(before);
    expect(readAllThrough(t, { withBulk: true, inWorker: true, types: ['AccountStaged'] }).map((e) => e.event)).toEqual(
      before.filter((e) => e.event.type === 'AccountStaged').map((e) => e.event),
    );

    const migration = readFileSync(join(PROJECT_ROOT, 'drizzle/0005_event_bulk_column.sql'), 'utf8').split('--> statement-breakpoint')[1]!;
    expect(sqlite.prepare(migration).run().changes).toBe(9);
    expect(sqlite.prepare('SELECT COUNT(*) FROM events WHERE bulk IS NOT NULL').pluck().get()).toBe(9);
    expect(await allEvents(t)).toEqual(before);
  });
});

describe('log reader', () => {
  let open: TestLedger | undefined;
  afterEach(() => open?.close());

  const types = [...new Set(inlineProjections.flatMap((p) => p.handles))];

  for (const inWorker of [false, true]) {
    it(`${inWorker ? 'in a worker thread' : 'inline'}: reads the snapshot in order, whole with bulk, payloads as {} without`, async () => {
      const t = (open = await seededLedger());
      const expected = (await allEvents(t)).filter((e) => types.includes(e.event.type));
      expect(plain(readAllThrough(t, { withBulk: true, inWorker, types }))).toEqual(plain(expected));

      const elided = plain(readAllThrough(t, { withBulk: false, inWorker, types }));
      const withoutPayloads = plain(expected).map((e) =>
        e.event.type === 'AccountStaged' || e.event.type === 'AccountRestaged' ? { ...e, event: { ...e.event, data: { ...e.event.data, payload: {} } } } : e,
      );
      expect(elided).toEqual(withoutPayloads);
    });
  }

  it('in a worker thread: keeps to its snapshot while the log grows', async () => {
    const t = (open = await seededLedger());
    const reader = openLogReader(t.ledger.database.sqlite, { types, withBulk: false, inWorker: true, batchSize: 2 });
    try {
      const through = reader.through;
      await stageAccount(t.ledger, payloadFor('ACC-LATE', 'WEB'), operator);
      const read: number[] = [];
      for (let batch = reader.next(); batch !== null; batch = reader.next()) read.push(...batch.map((e) => e.globalPosition));
      expect(Math.max(...read)).toBe(through);
    } finally {
      reader.close();
    }
  });

  it('a malformed stored event fails the rebuild with a clear error and leaves the live tables intact', async () => {
    const t = (open = await seededLedger());
    const { sqlite } = t.ledger.database;
    const live = projectionDump(sqlite);
    sqlite.prepare("UPDATE events SET data = '{\"importSupplier\": broken' WHERE type = 'AccountProcessed' AND global_position = (SELECT MAX(global_position) FROM events WHERE type = 'AccountProcessed')").run();
    expect(() => rebuildProjections(sqlite, inlineProjections, { readInWorker: true })).toThrow(/reading the event log: .*malformed JSON/);
    expect(() => rebuildProjections(sqlite, inlineProjections, { readInWorker: false })).toThrow(SyntaxError);
    expect(projectionDump(sqlite)).toEqual(live);
  });
});
