// tsx bench/pg-stage-probe.ts [--instances=N] [--seconds=S] [--then-process]: stage-account against N instances on a new
// PostgreSQL database, with the CPU each side used (the instances, PostgreSQL's processes, the load
// generator): a developer's aid for the PostgreSQL write path (npm run bench gives the figures to report).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, freshPostgresDatabase, processCpuMs, root, run, start, stop } from './lib.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const instances = arg('instances', 1);
const seconds = arg('seconds', 6);
const bin = join(root, 'dist/import-ledger.mjs');
const server = process.env['LEDGER_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8')
  .replace('"LEGACY_ENERGIE"', '"BENCH"')
  .replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);

/** CPU used so far by the processes whose command line matches, in ms. */
function cpuMs(match: (cmdline: string, pid: number) => boolean): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!match(cmdline, Number(entry))) continue;
      total += processCpuMs(entry);
    } catch {
      // gone
    }
  }
  return total;
}

await run(process.execPath, [join(root, 'scripts/build.mjs')], {});
const database = await freshPostgresDatabase(server, 'ledger_probe');
const env = { LEDGER_DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
// The instances log (on stderr) how their writer batched every 5 s at debug level: units, and the writers' lock held.
const batches: {
  units: number;
  lockHeldMsPerUnit: number;
  pipelined: number;
  redone: number;
  batches: number;
  phases?: { readMs: number; decideMs: number; loadMs: number; commitMs: number };
  rowsGuessed?: number;
  rowsMissed?: number;
}[] = [];
await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
const services = [];
for (let i = 0; i < instances; i++) {
  const port = await freePort();
  // PROBE_PROFILE=<dir>: each instance writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env['PROBE_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['PROBE_PROFILE']}`] : [];
  const child = await start(process.execPath, [...profile, bin, 'serve'], { ...env, PORT: String(port), LOG_LEVEL: 'debug' });
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"write batches"')) continue;
      batches.push(JSON.parse(line) as (typeof batches)[number]);
    }
  });
  const base = `http://127.0.0.1:${port}`;
  while (!(await fetch(`${base}/healthz`).catch(() => null))?.ok) await new Promise((r) => setTimeout(r, 20));
  if (process.env['PROBE_STDERR']) child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  services.push({ child, base });
}
const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();
const tokenRes = await fetch(`${services[0]!.base}/v1/graphql/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
});
const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
await fetch(`${services[0]!.base}/v1/data-import/products/`, { method: 'POST', headers, body: readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8') });

const pids = new Set(services.map((s) => s.child.pid));
const measure = () => ({
  service: cpuMs((_, pid) => pids.has(pid)),
  postgres: cpuMs((cmdline) => cmdline.startsWith('postgres')),
  self: cpuMs((_, pid) => pid === process.pid),
});
// Transactions the database ran (each statement outside a transaction is one): how many round trips a request costs it.
const { default: pg } = await import('pg');
const stats = new pg.Client({ connectionString: server });
await stats.connect();
const transactions = async () =>
  Number((await stats.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [new URL(database.url).pathname.slice(1)])).rows[0]!.n);
await new Promise((r) => setTimeout(r, 1_100)); // backends flush their counts at most once a second
const transactionsBefore = await transactions();
const before = measure();
let i = 0;
const results = await Promise.all(
  services.map((s) =>
    autocannon({
      url: `${s.base}/v1/data-import/account-import-process/create-or-update/`,
      method: 'POST',
      connections: Math.round(10 / instances),
      duration: seconds,
      headers,
      requests: [{ setupRequest: (req) => ({ ...req, body: example.replace('"LEG-0000001"', `"P-${i++}"`) }) }],
    }),
  ),
);
const after = measure();
const total = results.reduce((n, r) => n + r.requests.total, 0);
const bad = results.reduce((n, r) => n + r.non2xx + r.errors, 0);
// A tick is 10 ms of CPU: the share of one core over the run, and the CPU milliseconds each request cost that side.
const cpu = (k: keyof typeof before) => `${Math.round((after[k] - before[k]) / seconds / 10)}% (${((after[k] - before[k]) / Math.max(1, total)).toFixed(2)} ms a request)`;
process.stdout.write(
  `stage, ${instances} instance(s): ${Math.round(total / seconds)} req/s, ${bad} bad, p99 ${Math.max(...results.map((r) => r.latency.p99))} ms; ` +
    `CPU (100% = one core): service ${cpu('service')}, postgres ${cpu('postgres')}, load generator ${cpu('self')}\n`,
);
await new Promise((r) => setTimeout(r, 1_100));
process.stdout.write(`database: ${((await transactions()) - transactionsBefore) / Math.max(1, total)} transactions a request\n`);
if (process.argv.includes('--then-process')) {
  // --then-process: the staged accounts processed (spread as the stage was), with the CPU each side used.
  const staged = i;
  let next = 0;
  const processBefore = measure();
  const startedAt = performance.now();
  const processed = await Promise.all(
    services.map((s) =>
      autocannon({
        url: `${s.base}/v1/data-import/account-import-process/process/`,
        method: 'POST',
        connections: Math.round(10 / instances),
        amount: Math.floor(staged / instances),
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ external_account_number: `P-${next++}`, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }) }) }],
      }),
    ),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const processAfter = measure();
  const done = processed.reduce((n, r) => n + r.requests.total, 0);
  const side = (k: keyof typeof before) => `${((processAfter[k] - processBefore[k]) / Math.max(1, done)).toFixed(2)} ms a request`;
  process.stdout.write(
    `process, ${instances} instance(s): ${Math.round(done / elapsed)} req/s, ${processed.reduce((n, r) => n + r.non2xx + r.errors, 0)} bad; ` +
      `CPU: service ${side('service')}, postgres ${side('postgres')}, load generator ${side('self')}\n`,
  );
}
await stats.end();
for (const s of services) await stop(s.child);
const units = batches.reduce((n, b) => n + b.units, 0);
const held = batches.reduce((n, b) => n + b.units * b.lockHeldMsPerUnit, 0);
const count = batches.reduce((n, b) => n + b.batches, 0);
process.stdout.write(
  `writer: ${count} batches, ${(units / Math.max(1, count)).toFixed(1)} commands a batch (${batches.reduce((n, b) => n + b.pipelined, 0)} pipelined, ` +
    `${batches.reduce((n, b) => n + b.redone, 0)} redone); writers' lock held ${(held / Math.max(1, units)).toFixed(2)} ms a command, ` +
    `${Math.round(held / (seconds * 10))}% of the run (over all instances)\n`,
);
// Where a pipelined batch's lock hold goes (means over the 5 s summaries, weighted by their batches).
const phased = batches.filter((b) => b.phases);
const phaseCount = phased.reduce((n, b) => n + b.pipelined, 0);
if (phaseCount > 0) {
  const mean = (name: 'readMs' | 'decideMs' | 'loadMs' | 'commitMs') => (phased.reduce((n, b) => n + b.pipelined * b.phases![name], 0) / phaseCount).toFixed(2);
  const guessed = batches.reduce((n, b) => n + (b.rowsGuessed ?? 0), 0);
  const missed = batches.reduce((n, b) => n + (b.rowsMissed ?? 0), 0);
  process.stdout.write(`projection rows: ${guessed} read with the streams on a guess, ${missed} missed by it (loaded after deciding)\n`);
  process.stdout.write(`lock held a batch: streams read ${mean('readMs')} ms, decided ${mean('decideMs')} ms, rows loaded ${mean('loadMs')} ms, written and committed ${mean('commitMs')} ms\n`);
}
await database.drop();
