// tsx bench/pages-per-commit.ts [--accounts=N] [--concurrency=C]: the pages each commit writes, and whose they
// are. Through the real app in-process on a fresh SQLite ledger, N accounts are staged, then processed, then
// given 10 transactions each, C requests at a time (1: one command a commit). Before each phase the WAL is
// truncated and a reader opens a snapshot on a connection of its own, so no checkpoint can restart the WAL
// during the phase; afterwards every WAL frame is read (its page number; a commit frame carries the size of the
// database) and each page is put down to the b-tree holding it now (dbstat). Prints per phase the commits,
// the frames a commit and an account, and the b-trees by frames written, with how many commits wrote each.
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import Database from 'better-sqlite3';
import { accessToken } from '../test/support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample } from '../test/support/ledger.js';
import { tenTransactions } from './lib.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ACCOUNTS = arg('accounts', 300);
const CONCURRENCY = arg('concurrency', 1);
const BASE = '/v1/data-import';

const example = loadExample('account-domestic.json');
const accountBody = (ext: string) => ({ ...example, external_account_number: ext, metadata: [{ key: 'legacy_crm', value: { segment: 'GOLD', history: 'x'.repeat(1500) } }] });
const transactionsBody = (i: number) => tenTransactions(SUPPLIER, `PAGES-${i}`, i);

interface Frame {
  readonly page: number;
  readonly commit: boolean;
}

/** The frames of a WAL file, in order, up to the first whose salt is not the header's (left over from before a restart). */
function walFrames(file: string): Frame[] {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size < 32) return [];
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    const frames: Frame[] = [];
    const frameHeader = Buffer.alloc(24);
    for (let offset = 32; offset + 24 + pageSize <= size; offset += 24 + pageSize) {
      readSync(fd, frameHeader, 0, 24, offset);
      if (frameHeader.readUInt32BE(8) !== salt1 || frameHeader.readUInt32BE(12) !== salt2) break;
      frames.push({ page: frameHeader.readUInt32BE(0), commit: frameHeader.readUInt32BE(4) !== 0 });
    }
    return frames;
  } finally {
    closeSync(fd);
  }
}

const api = await createTestApi();
const file = (api.location as { sqliteFile: string }).sqliteFile;
const token = await accessToken(api);

async function phase(name: string, path: string, body: (i: number) => unknown) {
  const watcher = new Database(file);
  watcher.pragma('wal_checkpoint(TRUNCATE)');
  // A snapshot held open through the phase: no checkpoint restarts the WAL under it.
  watcher.exec('BEGIN');
  watcher.prepare('SELECT COUNT(*) FROM projection_versions').get();
  let next = 0;
  const worker = async () => {
    while (next < ACCOUNTS) {
      const i = next++;
      const res = await api.post(`${BASE}${path}`, body(i), token);
      if (res.status >= 300) throw new Error(`${name} ${i}: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  watcher.exec('COMMIT');
  const frames = walFrames(`${file}-wal`);
  const owner = new Map(
    (watcher.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[]).map((r) => [r.pageno, r.name]),
  );
  watcher.close();
  const commits = frames.filter((f) => f.commit).length;
  const byTree = new Map<string, { frames: number; commits: number }>();
  let inCommit = new Set<string>();
  for (const frame of frames) {
    const tree = frame.page === 1 ? 'page 1 (header, schema)' : (owner.get(frame.page) ?? 'free or new');
    const entry = byTree.get(tree) ?? { frames: 0, commits: 0 };
    entry.frames++;
    if (!inCommit.has(tree)) {
      inCommit.add(tree);
      entry.commits++;
    }
    byTree.set(tree, entry);
    if (frame.commit) inCommit = new Set();
  }
  console.log(
    `\n${name}: ${commits} commits, ${frames.length} frames: ${(frames.length / commits).toFixed(2)} a commit, ${(frames.length / ACCOUNTS).toFixed(2)} an account`,
  );
  console.log('| b-tree | frames | a commit | commits writing it |');
  console.log('|---|---|---|---|');
  for (const [tree, entry] of [...byTree].sort((a, b) => b[1].frames - a[1].frames)) {
    console.log(`| ${tree} | ${entry.frames} | ${(entry.frames / commits).toFixed(2)} | ${((100 * entry.commits) / commits).toFixed(0)}% |`);
  }
}

try {
  console.log(`${ACCOUNTS} accounts, ${CONCURRENCY} request(s) at a time`);
  await phase('stage', '/account-import-process/create-or-update/', (i) => accountBody(`PAGES-${i}`));
  await phase('process', '/account-import-process/process/', (i) => ({
    external_account_number: `PAGES-${i}`,
    import_supplier_code: SUPPLIER,
    operations_team_name: TEAM,
  }));
  await phase('transactions', '/transactions/create/', transactionsBody);
} finally {
  await api.close();
}
