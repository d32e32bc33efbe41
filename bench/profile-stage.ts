// tsx bench/profile-stage.ts [seconds] [--store=postgres]: runs the service under `node --cpu-prof`, loads
// stage-account for a while, stops it and prints the functions with the most self time (a developer's aid
// for the hot path; the profiles, one per thread, are left in the printed directory for Chrome DevTools). With
// --store=postgres the service runs on a new database of LEDGER_BENCH_DATABASE_URL's server.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, freshPostgresDatabase, root, run, start, stop } from './lib.js';

const seconds = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 8);
const postgres = process.argv.includes('--store=postgres')
  ? await freshPostgresDatabase(process.env['LEDGER_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'ledger_profile')
  : null;
// The service runs as `npm start` runs it: bundled (scripts/build.mjs), without the TypeScript loader.
const bin = join(root, 'dist/import-ledger.mjs');
const work = mkdtempSync(join(tmpdir(), 'import-ledger-profile-'));
const database = join(work, 'ledger.db');
const env = { ...(postgres ? { LEDGER_DATABASE_URL: postgres.url } : { LEDGER_DATABASE: database }), NODE_ENV: 'production', LOG_LEVEL: 'warn' };
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8')
  .replace('"LEGACY_ENERGIE"', '"BENCH"')
  .replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);

await run(process.execPath, [join(root, 'scripts/build.mjs')], {});
// Migrates the new database (the CLI does too).
await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
const port = await freePort();
const service = await start(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${work}`, bin, 'serve'], { ...env, PORT: String(port) });
const base = `http://127.0.0.1:${port}`;
while (!(await fetch(`${base}/healthz`).catch(() => null))?.ok) await new Promise((r) => setTimeout(r, 20));
const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();
const tokenRes = await fetch(`${base}/v1/graphql/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
});
const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
await fetch(`${base}/v1/data-import/products/`, {
  method: 'POST',
  headers,
  body: readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'),
});
let i = 0;
const result = await autocannon({
  url: `${base}/v1/data-import/account-import-process/create-or-update/`,
  method: 'POST',
  connections: 10,
  duration: seconds,
  headers,
  requests: [{ setupRequest: (req) => ({ ...req, body: example.replace('"LEG-0000001"', `"P-${i++}"`) }) }],
});
process.stderr.write(`stage: ${Math.round(result.requests.total / result.duration)} req/s, non-2xx ${result.non2xx}, p99 ${result.latency.p99} ms\n`);
await stop(service);
await postgres?.drop();

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }
// One profile per thread: the event loop's, the SQLite writer thread's (LEDGER_SQLITE_WRITER=thread) and the
// WAL checkpointer's. Each is printed by self time, as shares of its busy (not idle) samples.
for (const file of readdirSync(work).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const profile = JSON.parse(readFileSync(join(work, file), 'utf8')) as { nodes: Node[] };
  const self = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const where = node.callFrame.url.replace(/^.*\/(node_modules\/)?/, '');
    const name = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    total += node.hitCount;
    if (node.callFrame.functionName === '(idle)') {
      idle += node.hitCount;
      continue;
    }
    self.set(name, (self.get(name) ?? 0) + node.hitCount);
  }
  const busy = total - idle;
  const thread = profile.nodes.some((n) => n.callFrame.url.includes('sqlite-writer')) ? 'the writer thread' : profile.nodes.some((n) => n.callFrame.url.includes('wal-checkpointer')) ? 'the WAL checkpointer' : 'the event loop';
  process.stdout.write(`\n== ${thread} (${file}): busy ${((busy / Math.max(total, 1)) * 100).toFixed(0)}% of ${total} samples; self time as shares of busy\n`);
  if (busy < total * 0.02) continue;
  for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    process.stdout.write(`${((hits / busy) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
  }
}
process.stdout.write(`profiles: ${work}\n`);
