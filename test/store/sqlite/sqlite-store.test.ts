import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { importProgressCountsProjection } from '../../../projections/import-progress-tallies.js';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { stageAccount } from '../../../src/application/account-import-processes.js';
import { createImportSupplier, createOperationsTeam, setImportSupplierStatus } from '../../../src/application/operator.js';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import { openLedger } from '../../../src/ledger.js';
import { assembleLedger, type Ledger } from '../../../src/ledger.js';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { ProjectionTable } from '../../../src/store/sqlite/projection-writer.js';
import { sqliteLedger, type SqliteLedgerOptions } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { PURGE_WINDOW } from '../../../src/store/idempotency-keys.js';
import { startWalCheckpointer } from '../../../src/store/sqlite/wal-checkpointer.js';
import { BIN, PROJECT_ROOT, cliEnv, runCli } from '../../cli/run-cli.js';
import { operator, SUPPLIER, TestClock, tempDatabaseFile } from '../../support/ledger.js';
import { withSqlite } from '../../support/sqlite.js';
import { createSupplier, metadata, settle, templateAnswer } from '../contract/harness.js';
import { payloadFor, seedAccounts } from '../contract/seed.js';

/** A SQLite ledger whose connection the test keeps, to look at what only this adapter has. */
interface Opened {
  readonly ledger: Ledger;
  readonly database: OpenDatabase;
  readonly file: string;
  close(): Promise<void>;
}

const opened: Opened[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

function openSqlite(options: Partial<SqliteLedgerOptions> = {}): Opened {
  const { file, cleanup } = tempDatabaseFile();
  const database = openDatabase(file);
  const clock = new TestClock().read;
  const ledger = assembleLedger(sqliteLedger(database, { clock, newId: randomIds.uuid, rebuildAnswer: templateAnswer, ...options }), { clock, ids: randomIds });
  const o = { ledger, database, file, close: async () => (await ledger.close(), cleanup()) };
  opened.push(o);
  return o;
}

/** Every row of account_import_processes, in a stable order. */
const processes = (file: string) =>
  withSqlite(file, (sqlite) => sqlite.prepare('SELECT * FROM account_import_processes ORDER BY external_account_number').raw().all());

describe('SQLite storage settings', () => {
  it('runs in WAL mode with synchronous=FULL, temp_store=MEMORY, a busy timeout, and an SQLite with the WAL-reset fix', () => {
    const { sqlite } = openSqlite().database;
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL
    // Savepoints' statement journals in memory: on disk, every batch past 64 KiB of changed pages created, wrote and deleted one.
    expect(sqlite.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
    expect(Number(sqlite.pragma('busy_timeout', { simple: true }))).toBeGreaterThanOrEqual(1000);
    const version = String(sqlite.prepare('select sqlite_version() as v').pluck().get());
    const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
    expect(major * 1_000_000 + minor * 1_000 + (patch ?? 0)).toBeGreaterThanOrEqual(3_051_003);
  });

  it('keeps the small keyed projection tables WITHOUT ROWID, which drizzle-kit does not express, and the log without an index on the type', () => {
    const { sqlite } = openSqlite().database;
    const withoutRowid = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%WITHOUT ROWID' ORDER BY name")
      .pluck()
      .all();
    expect(withoutRowid).toEqual(['account_historical_statements', 'account_import_progress', 'account_ledgers', 'account_notes']);
    // Their primary key is the table itself: no second b-tree to write on each insert.
    expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'sqlite_autoindex_account_%' ORDER BY name").pluck().all()).toEqual([
      'sqlite_autoindex_account_import_processes_1',
      'sqlite_autoindex_account_import_statuses_1',
      'sqlite_autoindex_account_ledger_transactions_1',
    ]);
    expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").pluck().all()).toEqual([
      'events_event_id_unique',
      'events_stream_id_global_position_idx',
      'events_stream_id_stream_position_unique',
    ]);
  });

  it('creates the database directory when it is missing and applies migrations', async () => {
    const { file } = openSqlite();
    const nested = `${file}.d/deeper/ledger.db`;
    const ledger = await openLedger({ sqliteFile: nested });
    try {
      expect(ledger.location).toBe(nested);
      expect(withSqlite(nested, (sqlite) => sqlite.prepare("select count(*) from sqlite_master where name = 'events'").pluck().get())).toBe(1);
      expect(await ledger.healthCheck()).toBe(true);
    } finally {
      await ledger.close();
    }
  });

  it('enforces unique (stream id, stream position) and unique event id in the schema itself', () => {
    withSqlite(openSqlite().file, (raw) => {
      const insert = raw.prepare(
        `INSERT INTO events (stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at) VALUES (?, ?, 'T', 1, '{}', '{}', ?, 'now')`,
      );
      insert.run('s', 1, 'e1');
      expect(() => insert.run('s', 1, 'e2')).toThrow(/UNIQUE/);
      expect(() => insert.run('s2', 1, 'e1')).toThrow(/UNIQUE/);
    });
  });

  it('keeps the generated token secret in the database, the same for every process on the file', async () => {
    const o = openSqlite();
    const secret = await o.ledger.tokenSecret(undefined);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(await o.ledger.tokenSecret(undefined)).toBe(secret);
    expect(await o.ledger.tokenSecret('from-the-environment-0123456789-abcdef')).toBe('from-the-environment-0123456789-abcdef');
    const other = await openLedger({ sqliteFile: o.file });
    try {
      expect(await other.tokenSecret(undefined)).toBe(secret);
    } finally {
      await other.close();
    }
  });
});

describe('group commit on SQLite', () => {
  it('commits commands that arrive together in one transaction, and a failing one alone rolls back', async () => {
    const o = openSqlite();
    const { sqlite } = o.database;
    let commits = 0;
    const exec = sqlite.exec.bind(sqlite);
    sqlite.exec = ((sql: string) => {
      if (sql === 'COMMIT') commits++;
      return exec(sql);
    }) as typeof sqlite.exec;
    const create = (code: string) => settle(o.ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, createSupplier(code), { metadata }));
    const results = await Promise.all([...Array.from({ length: 10 }, (_, i) => create(`S${i}`)), create('S3'), create('S10')]);
    expect(commits).toBe(1);
    expect(results.map((r) => r.status)).toEqual([...Array(10).fill('fulfilled'), 'rejected', 'fulfilled']);
    expect((await o.ledger.store.readAll(0, 100)).map((e) => e.streamId)).toEqual(
      [...Array.from({ length: 10 }, (_, i) => `S${i}`), 'S10'].map(importSupplierStreamId),
    );
  });

  it('refuses an asynchronous beforeCommit hook, which could not run inside the synchronous unit of work', async () => {
    const o = openSqlite();
    const hook = async () => undefined;
    await expect(o.ledger.store.handle(importSupplierStreamId('A'), importSupplierDecider, createSupplier('A'), { metadata, beforeCommit: hook })).rejects.toThrow(
      /must be synchronous/,
    );
    expect(await o.ledger.store.isEmpty()).toBe(true);
  });
});

describe('Idempotency-Key claims on SQLite', () => {
  const request = (key: string) => ({ keyId: 'key_test', idempotencyKey: key, fingerprint: `fp-${key}`, requestPath: '/v1/data-import/x/' });
  const answer = { status: 201, body: '{"ok":true}', contentType: 'application/json' };

  it('a key claimed with its writes costs one commit, its events\'; claimed in the store first, three', async () => {
    let batches = 0;
    const { ledger, file } = openSqlite({ onBatch: (units) => (batches += units > 0 ? 1 : 0) });
    const write = async (code: string, claim: 'store' | 'with-writes') => {
      const before = batches;
      const reservation = await ledger.idempotency.reserve(request(code.toLowerCase()), { claim, answerFrom: { body: answer } });
      if (!reservation.held) throw new Error('expected to hold the key');
      await ledger.store.handle(importSupplierStreamId(code), importSupplierDecider, createSupplier(code), { metadata, beforeCommit: reservation.beforeCommit });
      if (claim === 'store') await reservation.complete(answer);
      else await reservation.keepRecorded();
      await ledger.durable();
      return batches - before;
    };
    expect(await write('ONE', 'with-writes')).toBe(1);
    expect(await write('THREE', 'store')).toBe(3);
    const rows = withSqlite(file, (sqlite) => sqlite.prepare('SELECT idempotency_key, status, response_body FROM idempotency_keys ORDER BY idempotency_key').all());
    expect(rows).toEqual([
      { idempotency_key: 'one', status: 201, response_body: '{"ok":true}' },
      { idempotency_key: 'three', status: 201, response_body: '{"ok":true}' },
    ]);
  });

  it('a key claimed with its writes has no row until its events: a request that ends without any leaves none', async () => {
    const { ledger, file } = openSqlite();
    const reservation = await ledger.idempotency.reserve(request('none'), { claim: 'with-writes' });
    if (!reservation.held) throw new Error('expected to hold the key');
    const count = () => withSqlite(file, (sqlite) => sqlite.prepare('SELECT count(*) FROM idempotency_keys').pluck().get());
    expect(count()).toBe(0);
    await reservation.release();
    expect(count()).toBe(0);
    expect((await ledger.idempotency.reserve(request('none'), { claim: 'with-writes' })).held).toBe(true);
  });
  it("writes a completion, a release and a purge in units of the group commit: with another connection holding the writers' lock, they wait on timers", async () => {
    const { ledger, file } = openSqlite();
    const held = await ledger.idempotency.reserve(request('released'), { claim: 'store' });
    if (!held.held) throw new Error('expected to hold the key');
    // Another connection in a write transaction: the WAL checkpointer's TRUNCATE, or the command line.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const began = performance.now();
    const writes = [ledger.idempotency.complete(request('completed'), answer), held.release(), ledger.idempotency.purgeExpired()];
    // A statement run on its own waits in SQLite's busy handler, asleep on this thread, for the busy timeout (5 s).
    expect(performance.now() - began).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    other.exec('ROLLBACK');
    other.close();
    await Promise.all(writes);
    expect(await ledger.idempotency.find('key_test', 'completed')).toMatchObject({ response: answer });
    expect(await ledger.idempotency.find('key_test', 'released')).toBeNull();
  });

  it('purges the expired rows among the oldest PURGE_WINDOW, in the order they were written, with no index on created_at', async () => {
    const clock = new TestClock();
    const { ledger, file } = openSqlite({ clock: clock.read });
    const old = 2 * PURGE_WINDOW + 500;
    await Promise.all(Array.from({ length: old }, (_, i) => ledger.idempotency.complete(request(`old-${i}`), answer)));
    clock.advanceSeconds(12 * 3600);
    await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.idempotency.complete(request(`fresh-${i}`), answer)));
    // The first row's key taken over since: an old row with a newer created_at waits, the rows after it do not.
    withSqlite(file, (sqlite) =>
      sqlite.prepare("UPDATE idempotency_keys SET created_at = ? WHERE idempotency_key = 'old-0'").run(clock.read().toISOString()),
    );
    clock.advanceSeconds(12 * 3600 + 1);
    const purged: number[] = [];
    for (let i = 0; i < 4; i++) purged.push(await ledger.idempotency.purgeExpired());
    // The taken-over row keeps its place at the head, one row of every window.
    expect(purged).toEqual([PURGE_WINDOW - 1, PURGE_WINDOW - 1, old - 1 - 2 * (PURGE_WINDOW - 1), 0]);
    const left = withSqlite(file, (sqlite) => sqlite.prepare('SELECT idempotency_key FROM idempotency_keys ORDER BY rowid').pluck().all());
    expect(left).toEqual(['old-0', ...Array.from({ length: 10 }, (_, i) => `fresh-${i}`)]);
    const indexes = withSqlite(file, (sqlite) => sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotency_keys'").pluck().all());
    expect(indexes).toEqual(['sqlite_autoindex_idempotency_keys_1']);
  });
});

describe('event ids on SQLite', () => {
  it('are time-ordered: the events of a run of writes carry ids in the order of their global positions', async () => {
    const { ledger, database } = openSqlite();
    await seedAccounts(ledger, 20);
    const ids = database.sqlite.prepare('SELECT event_id FROM events ORDER BY global_position').pluck().all() as string[];
    expect(ids.length).toBeGreaterThan(20);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('event storage: bulk fields in their own column', () => {
  it('stores a staged payload in `bulk`, the rest in `data`, and reads the event back whole', async () => {
    const o = openSqlite();
    await seedAccounts(o.ledger, 6);
    const row = o.database.sqlite
      .prepare<[], { data: string; bulk: string | null }>("SELECT data, bulk FROM events WHERE type = 'AccountStaged' ORDER BY global_position LIMIT 1")
      .get()!;
    expect(JSON.parse(row.data)).not.toHaveProperty('payload');
    expect(JSON.parse(row.bulk!)).toEqual({ payload: expect.objectContaining({ external_account_number: 'ACC-0', sales_channel: 'WEB' }) });
    const processed = o.database.sqlite.prepare("SELECT bulk FROM events WHERE type = 'AccountProcessed' LIMIT 1").pluck().get();
    expect(processed).toBeNull();
    const [staged] = await o.ledger.store.readStream(`account-import-process:${SUPPLIER}:ACC-0`);
    expect(staged!.event.type).toBe('AccountStaged');
    expect((staged!.event.data as { payload: Record<string, unknown> }).payload.sales_channel).toBe('WEB');
  });

  it('rows written before the split read the same (inline and in the worker), and the 0005 migration moves their payloads', async () => {
    const inline = openSqlite();
    const clock = new TestClock().read;
    const worker = assembleLedger(sqliteLedger(inline.database, { clock, newId: randomIds.uuid, rebuildAnswer: templateAnswer, workerFromEvents: 0 }), { clock, ids: randomIds });
    await seedAccounts(inline.ledger, 6);
    const { sqlite } = inline.database;
    const all = () => inline.ledger.store.readAll(0, 1_000_000);
    const staged = async (ledger: Ledger) => {
      const events = [];
      for await (const batch of await ledger.log.open({ types: ['AccountStaged'] })) events.push(...batch.map((e) => e.event));
      return events;
    };
    const before = await all();
    // The layout before migration 0005: the payload inside `data`, no `bulk`.
    const rewritten = sqlite.prepare("UPDATE events SET data = json_set(data, '$.payload', json(json_extract(bulk, '$.payload'))), bulk = NULL WHERE bulk IS NOT NULL").run();
    expect(rewritten.changes).toBe(9);
    expect(await all()).toEqual(before);
    const expected = before.filter((e) => e.event.type === 'AccountStaged').map((e) => e.event);
    expect(await staged(inline.ledger)).toEqual(expected);
    expect(await staged(worker)).toEqual(expected);

    const migration = readFileSync(join(PROJECT_ROOT, 'drizzle/0005_event_bulk_column.sql'), 'utf8').split('--> statement-breakpoint')[1]!;
    expect(sqlite.prepare(migration).run().changes).toBe(9);
    expect(sqlite.prepare('SELECT COUNT(*) FROM events WHERE bulk IS NOT NULL').pluck().get()).toBe(9);
    expect(await all()).toEqual(before);
  });
});

describe('projection rebuild on SQLite', () => {
  for (const workerFromEvents of [0, Infinity]) {
    it(`a malformed stored event fails the rebuild with a clear error and leaves the live tables intact (${workerFromEvents === 0 ? 'worker' : 'inline'})`, async () => {
      const o = openSqlite({ workerFromEvents });
      await seedAccounts(o.ledger, 6);
      const live = processes(o.file);
      o.database.sqlite
        .prepare(
          "UPDATE events SET data = '{\"importSupplier\": broken' WHERE type = 'AccountProcessed' AND global_position = (SELECT MAX(global_position) FROM events WHERE type = 'AccountProcessed')",
        )
        .run();
      await expect(o.ledger.projections.rebuild(inlineProjections)).rejects.toThrow(workerFromEvents === 0 ? /reading the event log: .*malformed JSON/ : SyntaxError);
      expect(processes(o.file)).toEqual(live);
      expect(o.database.sqlite.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%__rebuild'").pluck().get()).toBeGreaterThan(0);
    });
  }

  it('a rebuild killed midway leaves the live tables intact, and the next rebuild succeeds', async () => {
    const o = openSqlite();
    await seedAccounts(o.ledger, 0);
    for (let i = 0; i < 400; i++) await stageAccount(o.ledger, payloadFor(`ACC-${i}`, `c${i % 3}`), operator);
    const before = processes(o.file);
    // A child rebuild, killed with SIGKILL as soon as it has written its first batch into the scratch tables.
    const child = spawn(process.execPath, [BIN, 'projections', 'rebuild'], { cwd: PROJECT_ROOT, env: cliEnv({ LEDGER_DATABASE: o.file }) });
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        if (/rebuild:\s+\d+%/.test(chunk.toString())) child.kill('SIGKILL');
      });
      child.once('exit', () => resolve());
    });
    const { sqlite } = o.database;
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(processes(o.file)).toEqual(before);
    const result = await runCli(o.file, ['projections', 'rebuild']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/events read, .* rows written .* events\/s/);
    expect(processes(o.file)).toEqual(before);
    expect(sqlite.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%__rebuild'").pluck().get()).toBe(0);
    const verify = await runCli(o.file, ['projections', 'verify']);
    expect(verify.code).toBe(0);
    sqlite.prepare('UPDATE account_import_processes SET stage_count = 7').run();
    const failing = await runCli(o.file, ['projections', 'verify', '--name', 'account_import_processes']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('"stage_count":7');
  });
});

describe('events tail', () => {
  it('prints the log as JSON lines from a position, filtered by type', async () => {
    const o = openSqlite();
    await createImportSupplier(o.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createOperationsTeam(o.ledger, 'Migrations', operator);
    await setImportSupplierStatus(o.ledger, SUPPLIER, 'Paused', operator);
    const all = await runCli(o.file, ['events', 'tail']);
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as { position: number; type: string });
    expect(lines.map((l) => l.type)).toEqual(['ImportSupplierCreated', 'OperationsTeamCreated', 'ImportSupplierStatusChanged']);
    const from = await runCli(o.file, ['events', 'tail', '--from', String(lines[0]!.position), '--type', 'ImportSupplierStatusChanged']);
    expect(from.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ImportSupplierStatusChanged']);
  });
});

describe('WAL checkpointer', () => {
  async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('takes checkpoints off the server connection and keeps the WAL bounded', async () => {
    const o = openSqlite();
    const { sqlite } = o.database;
    const checkpointer = startWalCheckpointer(sqlite, pino({ level: 'silent' }), { intervalMs: 10, truncateAboveBytes: 1 });
    try {
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      for (let i = 0; i < 50; i++) {
        await createImportSupplier(o.ledger, { code: `S${i}`, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
      }
      // Written by the server connection, copied into the database file and the WAL reset by the worker,
      // which begins it again itself: the WAL's header and one frame of its own, so the server connection's
      // next write does not sync a new header on the event loop.
      const walHeader = 32;
      const frame = 24 + (sqlite.pragma('page_size', { simple: true }) as number);
      await until(() => statSync(`${o.file}-wal`).size === walHeader + frame);
      expect((await o.ledger.read.listImportSuppliers()).length).toBe(50);
    } finally {
      await checkpointer.stop();
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    }
  });

  it('is the upkeep the ledger starts for a server', async () => {
    const o = openSqlite();
    const upkeep = o.ledger.startUpkeep(pino({ level: 'silent' }));
    expect(o.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await upkeep.stop();
    expect(o.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});

describe('projection writes on SQLite', () => {
  /** The WAL frames (pages) `write` adds, in a transaction of its own on the service's connection. */
  const pagesWritten = (sqlite: OpenDatabase['sqlite'], write: () => void): number => {
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.transaction(write)();
    return (sqlite.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
  };

  it('an update sets the columns that changed: the primary key index is not written again, an unchanged row not at all', () => {
    const { database } = openSqlite();
    const { sqlite } = database;
    sqlite.pragma('wal_autocheckpoint = 0');
    const table = new ProjectionTable(sqlite, importProgressCountsProjection);
    const zero = { total: 0, pending: 0, imported: 0, skipped: 0, failing: 0, transferPending: 0, transferInProgress: 0, transferRejected: 0, transferCompleted: 0 };
    // A rowid table with a text primary key: an insert writes the table and its primary key index.
    expect(pagesWritten(sqlite, () => table.insert({ importSupplier: 'A', ...zero, total: 1, pending: 1 }))).toBe(2);
    const key = { importSupplier: 'A' };
    expect(pagesWritten(sqlite, () => table.update(key, table.load(key)!, { importSupplier: 'A', ...zero, total: 2, pending: 1, imported: 1 }))).toBe(1);
    expect(table.load(key)).toEqual({ importSupplier: 'A', ...zero, total: 2, pending: 1, imported: 1 });
    expect(pagesWritten(sqlite, () => table.update(key, table.load(key)!, { importSupplier: 'A', ...zero, total: 2, pending: 1, imported: 1 }))).toBe(0);
    // A row that did not come from `load` has every column written.
    table.update(key, { importSupplier: 'A', ...zero, total: 2, pending: 1, imported: 1 }, { importSupplier: 'A', ...zero, total: 3, skipped: 3 });
    expect(table.load(key)).toEqual({ importSupplier: 'A', ...zero, total: 3, skipped: 3 });
  });
});
