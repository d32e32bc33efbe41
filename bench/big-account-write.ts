// tsx bench/big-account-write.ts [--transactions=N] [--posts=N]: the write path on one large stream. Starts the
// service (bundled, as `npm start` runs it) on a temp SQLite file, stages and processes one account, gives it N
// transactions (default 10,000) through transactions/create/ in requests of 1,000, then times --posts (default 20)
// sequential POSTs of 10 new transactions to it while /healthz is polled every 10 ms: each POST folds the whole
// stream (from its snapshot), and a fold that blocks the event loop shows as a slow /healthz. Prints one JSON line.
// BIG_PROF=DIR runs the service under `node --cpu-prof` with its profile written to DIR.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, root, run, start, stop } from './lib.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const TRANSACTIONS = arg('transactions', 10_000);
const POSTS = arg('posts', 20);
const PER_SETUP_REQUEST = 1_000;
const EXT = 'BIG-1';
const bin = join(root, 'dist/import-ledger.mjs');
const work = mkdtempSync(join(tmpdir(), 'import-ledger-big-account-'));
const env = { LEDGER_DATABASE: join(work, 'ledger.db'), NODE_ENV: 'production', LOG_LEVEL: 'warn' };
const progress = (line: string) => process.stderr.write(`${line}\n`);

const transactions = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, n) => ({
    transaction_id: `${prefix}-${n}`,
    transaction_date: '2025-07-15',
    amount: Number((1 + (n % 50) / 100).toFixed(2)),
    type: n % 3 === 0 ? 'PAYMENT' : 'CHARGE',
    ...(n % 3 === 0 ? {} : { reason: 'IMPORTED_CHARGE' }),
  }));

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

async function main() {
  await run(process.execPath, [join(root, 'scripts/build.mjs')], {});
  await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
  await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
  const port = await freePort();
  const service = await start(process.execPath, [...(process.env['BIG_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BIG_PROF']}`] : []), bin, 'serve'], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  try {
    while (!(await fetch(`${base}/healthz`).catch(() => null))?.ok) await new Promise((r) => setTimeout(r, 20));
    const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();
    const tokenRes = await fetch(`${base}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
    });
    const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
    const post = async (path: string, body: unknown, expected: number) => {
      const res = await fetch(`${base}/v1/data-import/${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      if (res.status !== expected) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post('products/', readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'), 201);
    const account = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8')
      .replace('"LEG-0000001"', `"${EXT}"`)
      .replace('"LEGACY_ENERGIE"', '"BENCH"');
    await post('account-import-process/create-or-update/', account, 201);
    await post('account-import-process/process/', { external_account_number: EXT, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }, 201);

    const setupStarted = performance.now();
    for (let done = 0; done < TRANSACTIONS; done += PER_SETUP_REQUEST) {
      const count = Math.min(PER_SETUP_REQUEST, TRANSACTIONS - done);
      await post('transactions/create/', { import_supplier: 'BENCH', external_account_number: EXT, transactions: transactions(`SETUP-${done}`, count) }, 201);
      progress(`  ${(done + count).toLocaleString()} transactions on ${EXT}`);
    }
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    // The POSTs, one after another, with /healthz polled beside them: its worst answer is the longest block.
    let polling = true;
    let worstHealthzMs = 0;
    let healthzFailures = 0;
    const poller = (async () => {
      while (polling) {
        const sent = performance.now();
        // A socket the blocked server let idle past its keep-alive may be reset: that poll counts as slow too.
        await fetch(`${base}/healthz`).catch(() => healthzFailures++);
        worstHealthzMs = Math.max(worstHealthzMs, performance.now() - sent);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const latencies: number[] = [];
    for (let i = 0; i < POSTS; i++) {
      const sent = performance.now();
      await post('transactions/create/', { import_supplier: 'BENCH', external_account_number: EXT, transactions: transactions(`POST-${i}`, 10) }, 201);
      latencies.push(performance.now() - sent);
    }
    polling = false;
    await poller;
    const sorted = [...latencies].sort((a, b) => a - b);
    process.stdout.write(
      `${JSON.stringify({
        scenario: `POST 10 transactions to an account with ${TRANSACTIONS.toLocaleString()}`,
        posts: POSTS,
        p50Ms: round(percentile(sorted, 50)),
        maxMs: round(sorted[sorted.length - 1]!),
        meanMs: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
        worstHealthzMs: round(worstHealthzMs),
        healthzFailures,
        setupSeconds: round(setupSeconds),
      })}\n`,
    );
  } finally {
    await stop(service);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
