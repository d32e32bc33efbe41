// Writes a realistic event log straight into a new ledger database: per account a staging (a ~3.5 KB
// payload), a re-staging for one account in four, the processing, and transfer status changes, so that
// the log holds exactly `--events` events. Usage: tsx bench/generate-log.ts <file> --events N
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { splitEventData } from '../src/store/event-codec.js';
import { openDatabase } from '../src/store/sqlite/database.js';

const file = process.argv[2];
const total = Number(process.argv[process.argv.indexOf('--events') + 1] ?? 1_000_000);
if (!file || !Number.isFinite(total)) throw new Error('usage: generate-log.ts <file> --events N');

const SUPPLIER = 'BENCH';
const example = JSON.parse(readFileSync(new URL('../test/fixtures/examples/account-domestic.json', import.meta.url), 'utf8')) as Record<string, unknown>;
// Straight into the SQLite file (created and migrated as the service would), bypassing the event store for speed.
const database = openDatabase(file);
const { sqlite } = database;
const insert = sqlite.prepare(
  `INSERT INTO events (stream_id, stream_position, type, schema_version, data, bulk, metadata, event_id, recorded_at)
   VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)`,
);
const metadata = (actor: string) => JSON.stringify({ eventId: randomUUID(), actor, requestId: null, correlationId: null, causationId: null });
let written = 0;
let clock = Date.parse('2026-01-01T00:00:00Z');
const now = () => new Date((clock += 7)).toISOString();

function append(stream: string, position: number, type: string, data: unknown, actor = 'key_bench') {
  const meta = metadata(actor);
  const stored = splitEventData(type, data); // stored the way the event store stores it
  insert.run(stream, position, type, stored.data, stored.bulk, meta, JSON.parse(meta).eventId, now());
  written++;
}

const writeBatch = sqlite.transaction((from: number, to: number) => {
  for (let i = from; i < to && written < total; i++) {
    const ext = `GEN-${String(i).padStart(8, '0')}`;
    const stream = `account-import-process:${SUPPLIER}:${ext}`;
    const payload = { ...example, import_supplier: SUPPLIER, external_account_number: ext };
    const base = { importSupplier: SUPPLIER, externalAccountNumber: ext };
    let position = 0;
    append(stream, ++position, 'AccountStaged', { ...base, payload, stagedAt: now() });
    if (i % 4 === 0 && written < total) append(stream, ++position, 'AccountRestaged', { ...base, payload: { ...payload, sales_channel: 'PHONE' }, stagedAt: now() });
    if (written < total) {
      append(stream, ++position, 'AccountProcessed', {
        ...base,
        platformAccountNumber: `A-${i.toString(16).toUpperCase().padStart(8, '0')}`,
        operationsTeamName: 'Migrations',
        processedAt: now(),
      });
    }
    if (written < total) append(stream, ++position, 'AccountTransferStatusChanged', { ...base, from: 'PENDING', to: 'IN_PROGRESS', changedAt: now() }, 'operator:bench');
    if (i % 4 !== 0 && written < total) append(stream, ++position, 'AccountTransferStatusChanged', { ...base, from: 'IN_PROGRESS', to: 'COMPLETED', changedAt: now() }, 'operator:bench');
  }
});

sqlite.transaction(() => {
  append(`import-supplier:${SUPPLIER}`, 1, 'ImportSupplierCreated', { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null, createdAt: now() }, 'operator:bench');
  append('operations-team:Migrations', 1, 'OperationsTeamCreated', { name: 'Migrations', createdAt: now() }, 'operator:bench');
})();
const started = performance.now();
for (let account = 0; written < total; account += 5_000) {
  writeBatch(account, account + 5_000);
  if (process.stderr.isTTY) process.stderr.write(`\r  generating log: ${written.toLocaleString()} / ${total.toLocaleString()} events`);
}
if (process.stderr.isTTY) process.stderr.write('\n');
sqlite.pragma('wal_checkpoint(TRUNCATE)');
database.close();
process.stdout.write(`${JSON.stringify({ events: written, seconds: (performance.now() - started) / 1000 })}\n`);
