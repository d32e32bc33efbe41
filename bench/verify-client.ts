// `import-ledger verify` on a supplier of 100,000 imported accounts with their records, for bench/run.ts
// (`-- --only=verify`). One account is migrated through the service (staged, processed, two notes and two
// transactions sent); its projection rows are then copied to 100,000 account numbers in the database (what
// the records export reads: a migration of 100,000 accounts through the API would cost the bench half an
// hour), and the folder that matches them is written. The command is the real one (bin/import-ledger.js);
// its wall time and peak RSS are the figures. Target: under a minute, exit 0.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freePort, peakRssMb, root, run, start, stop } from './lib.js';

const bin = join(root, 'bin/import-ledger.js');
/** The projections the records export reads, copied per account. */
const TABLES = ['account_import_processes', 'account_notes', 'account_historical_statements', 'account_ledger_transactions', 'account_ledgers'] as const;
const TEMPLATE = 'VER-0000000';
const ext = (i: number) => `VER-${String(i).padStart(7, '0')}`;

export interface VerifyFigures {
  readonly accounts: number;
  /** Records per account the comparison covers (notes of the payload and of records/, statements, transactions). */
  readonly recordsPerAccount: number;
  readonly seconds: number;
  readonly accountsPerSecond: number;
  readonly clientPeakRssMb: number | null;
  readonly exitCode: number | null;
  readonly meetsTarget: boolean;
}

const records = {
  notes: [
    { body: 'Migrated note A', created_at: '2025-07-01T10:00:00Z' },
    { body: 'Migrated note B', created_at: '2025-07-02T10:00:00Z' },
  ],
  transactions: [
    { transaction_id: 'TX-1', transaction_date: '2025-07-02', amount: 35.2, type: 'CHARGE', reason: 'IMPORTED_CHARGE' },
    { transaction_id: 'TX-2', transaction_date: '2025-07-05', amount: 20, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION', reference: 'PMT-1' },
  ],
};

async function serve(database: string) {
  const port = await freePort();
  const child = await start(process.execPath, [join(root, 'dist/import-ledger.mjs'), 'serve'], { LEDGER_DATABASE: database, NODE_ENV: 'production', PORT: String(port), LOG_LEVEL: 'warn' });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, base };
}

async function post(base: string, token: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}/v1/data-import/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** Copies the template account's rows of every table to accounts 1..n (one INSERT ... SELECT per table). */
function copyRows(database: string, n: number): void {
  const db = new Database(database);
  try {
    db.transaction(() => {
      for (const table of TABLES) {
        const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
        const values = columns.map((c) =>
          c === 'external_account_number' ? `printf('VER-%07d', n.i)` : c === 'platform_account_number' ? `printf('B-%08X', n.i)` : `src."${c}"`,
        );
        db.prepare(
          `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')})
           WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
           SELECT ${values.join(', ')} FROM n, ${table} AS src WHERE src.import_supplier = 'BENCH' AND src.external_account_number = ?`,
        ).run(n, TEMPLATE);
      }
    })();
  } finally {
    db.close();
  }
}

export async function measureVerify(accountBody: (ext: string) => string, progress: (line: string) => void, accounts = 100_000): Promise<VerifyFigures> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-bench-verify-'));
  try {
    const database = join(work, 'ledger.db');
    const env = { LEDGER_DATABASE: database, NODE_ENV: 'production' };
    await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
    await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
    const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();

    // The template account, migrated through the service.
    let service = await serve(database);
    const res = await fetch(`${service.base}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
    });
    const token = ((await res.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
    await post(service.base, token, 'products/', readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'));
    await post(service.base, token, 'account-import-process/create-or-update/', accountBody(TEMPLATE));
    await post(service.base, token, 'account-import-process/process/', { external_account_number: TEMPLATE, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' });
    await post(service.base, token, 'notes/create/', { import_supplier: 'BENCH', external_account_number: TEMPLATE, notes: records.notes });
    await post(service.base, token, 'transactions/create/', { import_supplier: 'BENCH', external_account_number: TEMPLATE, transactions: records.transactions });
    await stop(service.child);

    progress(`  verify: copying the template's rows to ${accounts.toLocaleString()} accounts and writing the folder ...`);
    copyRows(database, accounts);
    const dir = join(work, 'folder');
    mkdirSync(join(dir, 'records'), { recursive: true });
    // Line by line: the file of a few hundred thousand accounts is longer than a JavaScript string can be.
    const ndjson = openSync(join(dir, 'accounts.ndjson'), 'w');
    try {
      for (let i = 0; i <= accounts; i++) {
        writeSync(ndjson, `${JSON.stringify(JSON.parse(accountBody(ext(i))))}\n`);
        mkdirSync(join(dir, 'records', ext(i)));
        writeFileSync(join(dir, 'records', ext(i), 'notes.json'), JSON.stringify(records.notes));
        writeFileSync(join(dir, 'records', ext(i), 'transactions.json'), JSON.stringify(records.transactions));
      }
    } finally {
      closeSync(ndjson);
    }
    const payload = JSON.parse(accountBody(TEMPLATE)) as { notes?: unknown[]; statements?: unknown[] };
    const recordsPerAccount = (payload.notes?.length ?? 0) + (payload.statements?.length ?? 0) + records.notes.length + records.transactions.length;

    service = await serve(database);
    progress(`  verify: import-ledger verify of ${(accounts + 1).toLocaleString()} accounts ...`);
    const startedAt = performance.now();
    const child = spawn(process.execPath, [bin, 'verify', dir, '--url', service.base, '--supplier', 'BENCH', '--api-key', key, '--report', join(work, 'verify.ndjson')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    let peak: number | null = null;
    const sampler = setInterval(() => (peak = Math.max(peak ?? 0, peakRssMb(child.pid!) ?? 0)), 100);
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(sampler);
    const seconds = (performance.now() - startedAt) / 1000;
    await stop(service.child);
    if (exitCode !== 0) progress(`  verify exited ${exitCode}: ${stderr}`);
    return {
      accounts: accounts + 1,
      recordsPerAccount,
      seconds: Math.round(seconds * 10) / 10,
      accountsPerSecond: Math.round((accounts + 1) / seconds),
      clientPeakRssMb: peak,
      exitCode,
      meetsTarget: exitCode === 0 && seconds < 60,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
