// The migrate client's figures, for bench/run.ts:
// - "migrate 2,000 accounts": `import-ledger migrate` (the real command, as built by `npm ci`) stages and
//   processes 2,000 accounts through a fresh service at --concurrency 8, beside the service's own
//   stage+process rate measured with autocannon (8 connections, the same 2,000 payloads) in the same run.
//   Target: the client reaches at least 80% of it.
// - CLI start-up: `--help` and `supplier list`, each run N times (min and median). Target: under 300 ms.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { clientNodeFlags, freePort, median, processCpuMs, processWrittenKb, root, run, start, stop } from './lib.js';

const bin = join(root, 'bin/import-ledger.js');
const ACCOUNTS = 2_000;
const CONCURRENCY = 8;

export interface MigrateFigures {
  readonly accounts: number;
  readonly concurrency: number;
  /** Each round's accounts a second: the service alone, alone with keys, the client (the figures below are medians). */
  readonly rounds: readonly { readonly alone: number; readonly keyed: number; readonly client: number }[];
  /** Accounts a second through the service alone (autocannon: all stagings, then all processings). */
  readonly serviceAccountsPerSecond: number;
  /** The same with an Idempotency-Key on every request, as the client sends them. */
  readonly serviceWithKeysAccountsPerSecond: number;
  readonly ratioToServiceWithKeys: number;
  /** Accounts a second through `import-ledger migrate`, from its start to its exit (token, list, stage, process). */
  readonly clientAccountsPerSecond: number;
  readonly clientSeconds: number;
  /** The client process's CPU (user + system) over the whole run, per account: robust on a loaded machine. */
  readonly clientCpuMsPerAccount: number;
  readonly ratio: number;
  readonly meetsTarget: boolean;
  /**
   * The service's CPU per account (user + system, every thread) in each of the three runs: alone, alone
   * with keys, under the client. Unlike the rates, it hardly moves when other work shares the machine,
   * so the key store's own cost shows as the difference between the first two.
   */
  readonly serviceCpuMsPerAccount: { readonly alone: number; readonly keyed: number; readonly underClient: number };
  /**
   * What the service handed to write(2) per account, in KB, in the same three runs (`processWrittenKb`):
   * the WAL's frames and the checkpoints' pages, mostly. Steady from run to run where the CPU and the rates
   * are not, so what the key store writes shows as the difference between the first two.
   */
  readonly serviceWrittenKbPerAccount: { readonly alone: number; readonly keyed: number; readonly underClient: number };
}

export interface StartupFigures {
  readonly command: string;
  readonly runs: number;
  readonly minMs: number;
  readonly medianMs: number;
  readonly meetsTarget: boolean;
}

async function service(work: string, name: string) {
  const database = join(work, `${name}.db`);
  const env = { LEDGER_DATABASE: database, NODE_ENV: 'production' };
  await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
  await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
  const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();
  const port = await freePort();
  // BENCH_SERVICE_PROFILE=<dir>: each service writes a CPU profile in <dir>/<name> (alone, keyed, client), a developer's aid.
  const profileDir = process.env['BENCH_SERVICE_PROFILE'];
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : [];
  const child = await start(process.execPath, [...profile, join(root, 'dist/import-ledger.mjs'), 'serve'], { ...env, PORT: String(port), LOG_LEVEL: 'warn' });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const res = await fetch(`${base}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
  });
  const token = ((await res.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
  const products = await fetch(`${base}/v1/data-import/products/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
    body: readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'),
  });
  if (products.status !== 201) throw new Error(`creating the example products failed: ${products.status}`);
  return { child, base, key, token };
}

const hundredths = (value: number) => Math.round(value * 100) / 100;
const perAccount = (cpuMs: number) => hundredths(cpuMs / ACCOUNTS);

async function timedLoad(url: string, token: string, body: (i: number) => string, keyed: boolean): Promise<number> {
  let i = 0;
  const startedAt = performance.now();
  // Timed to the last answer: autocannon notices that `amount` is reached only at its next 1-second sample,
  // so its own end (and the former figures here) rounded each phase up to a whole second.
  let lastAnswer = startedAt;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONCURRENCY,
    amount: ACCOUNTS,
    headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
    requests: [
      {
        setupRequest: (req) => {
          const n = i++;
          return { ...req, body: body(n), ...(keyed ? { headers: { ...req.headers, 'idempotency-key': `bench-${url.length}-${n}` } } : {}) };
        },
        onResponse: () => {
          lastAnswer = performance.now();
        },
      },
    ],
  });
  if (result.non2xx + result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return (lastAnswer - startedAt) / 1000;
}

/** One round's figures: the service alone, alone with keys, and the client, each on a fresh service. */
interface Round {
  readonly alone: { readonly rate: number; readonly cpu: number; readonly writtenKb: number };
  readonly keyed: { readonly rate: number; readonly cpu: number; readonly writtenKb: number };
  readonly client: { readonly rate: number; readonly seconds: number; readonly cpuMsPerAccount: number; readonly serviceCpu: number; readonly serviceWrittenKb: number };
}

/**
 * `rounds` rounds of: the service alone, alone with keys, the client (each on a fresh service); the
 * figures are the medians, the ratio that of the medians. Alternated because this machine's speed drifts
 * over minutes: one run of each, in sequence, measures the drift as much as the client.
 */
export async function measureMigrate(accountBody: (ext: string) => string, progress: (line: string) => void, rounds = 1): Promise<MigrateFigures> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-bench-migrate-'));
  try {
    const dir = join(work, 'folder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'accounts.ndjson'), `${Array.from({ length: ACCOUNTS }, (_, i) => JSON.stringify(JSON.parse(accountBody(`MIG-${i}`)))).join('\n')}\n`);
    const all: Round[] = [];
    for (let round = 1; round <= rounds; round++) {
      if (rounds > 1) progress(`  round ${round} of ${rounds}:`);
      all.push(await migrateRound(work, dir, round, accountBody, progress));
    }
    const serviceRate = median(all.map((r) => r.alone.rate));
    const keyedRate = median(all.map((r) => r.keyed.rate));
    const clientRate = median(all.map((r) => r.client.rate));
    const ratio = Math.round((clientRate / serviceRate) * 1000) / 1000;
    const keyedRatio = Math.round((clientRate / keyedRate) * 1000) / 1000;
    return {
      accounts: ACCOUNTS,
      concurrency: CONCURRENCY,
      rounds: all.map((r) => ({ alone: Math.round(r.alone.rate), keyed: Math.round(r.keyed.rate), client: Math.round(r.client.rate) })),
      serviceAccountsPerSecond: Math.round(serviceRate),
      serviceWithKeysAccountsPerSecond: Math.round(keyedRate),
      ratioToServiceWithKeys: keyedRatio,
      clientAccountsPerSecond: Math.round(clientRate),
      clientSeconds: Math.round(median(all.map((r) => r.client.seconds)) * 100) / 100,
      clientCpuMsPerAccount: Math.round(median(all.map((r) => r.client.cpuMsPerAccount)) * 1000) / 1000,
      ratio,
      meetsTarget: ratio >= 0.8,
      serviceCpuMsPerAccount: {
        alone: hundredths(median(all.map((r) => r.alone.cpu))),
        keyed: hundredths(median(all.map((r) => r.keyed.cpu))),
        underClient: hundredths(median(all.map((r) => r.client.serviceCpu))),
      },
      serviceWrittenKbPerAccount: {
        alone: Math.round(median(all.map((r) => r.alone.writtenKb))),
        keyed: Math.round(median(all.map((r) => r.keyed.writtenKb))),
        underClient: Math.round(median(all.map((r) => r.client.serviceWrittenKb))),
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function migrateRound(work: string, dir: string, round: number, accountBody: (ext: string) => string, progress: (line: string) => void): Promise<Round> {
  // The service alone: 2,000 stagings, then 2,000 processings, 8 connections; without, then with an
  // Idempotency-Key on each request (the client sends one on every write: the key store's cost is the
  // service's, and it is measured here so that the two are told apart).
  const serviceAlone = async (keyed: boolean) => {
    const alone = await service(work, `${keyed ? 'keyed' : 'alone'}-${round}`);
    const cpuBefore = processCpuMs(alone.child.pid!);
    const writtenBefore = processWrittenKb(alone.child.pid!);
    const stageSeconds = await timedLoad(`${alone.base}/v1/data-import/account-import-process/create-or-update/`, alone.token, (i) => accountBody(`MIG-${i}`), keyed);
    const processSeconds = await timedLoad(
      `${alone.base}/v1/data-import/account-import-process/process/`,
      alone.token,
      (i) => JSON.stringify({ external_account_number: `MIG-${i}`, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }),
      keyed,
    );
    const cpu = perAccount(processCpuMs(alone.child.pid!) - cpuBefore);
    const writtenKb = (processWrittenKb(alone.child.pid!) - writtenBefore) / ACCOUNTS;
    await stop(alone.child);
    const rate = ACCOUNTS / (stageSeconds + processSeconds);
    progress(
      `  service alone${keyed ? ' (Idempotency-Key on each request)' : ''}, stage+process of ${ACCOUNTS} accounts: ${rate.toFixed(0)} accounts/s (stage ${stageSeconds.toFixed(2)} s, process ${processSeconds.toFixed(2)} s); service CPU ${cpu.toFixed(2)} ms, writes ${writtenKb.toFixed(0)} KB an account`,
    );
    return { rate, cpu, writtenKb };
  };
  const alone = await serviceAlone(false);
  const keyed = await serviceAlone(true);

  // The client: the same 2,000 payloads in a folder, through `import-ledger migrate` on a fresh service
  // (its report and journal new each round: a journal left by an earlier round would have it resume).
  const client = await service(work, `client-${round}`);
  const cpuFile = join(work, `client-cpu-${round}.json`);
  const serviceCpuBefore = processCpuMs(client.child.pid!);
  const serviceWrittenBefore = processWrittenKb(client.child.pid!);
  const startedAt = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      [...clientNodeFlags(), '--import', pathToFileURL(join(root, 'bench/cpu-at-exit.mjs')).href, bin, 'migrate', dir, '--url', client.base, '--supplier', 'BENCH', '--team', 'Migrations', '--concurrency', String(CONCURRENCY), '--report', join(work, `report-${round}.csv`)],
      { cwd: root, env: { ...process.env, LEDGER_API_KEY: client.key, BENCH_CPU_FILE: cpuFile }, stdio: 'ignore' },
    );
    child.once('exit', resolve);
  });
  const clientSeconds = (performance.now() - startedAt) / 1000;
  const underClientCpu = perAccount(processCpuMs(client.child.pid!) - serviceCpuBefore);
  const underClientWrittenKb = (processWrittenKb(client.child.pid!) - serviceWrittenBefore) / ACCOUNTS;
  await stop(client.child);
  if (code !== 0) throw new Error(`import-ledger migrate exited with ${code}`);
  const clientRate = ACCOUNTS / clientSeconds;
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
  const clientCpuMsPerAccount = Math.round(((cpu.user + cpu.system) / 1000 / ACCOUNTS) * 1000) / 1000;
  progress(
    `  import-ledger migrate, ${ACCOUNTS} accounts at --concurrency ${CONCURRENCY}: ${clientRate.toFixed(0)} accounts/s in ${clientSeconds.toFixed(2)} s ` +
      `(${((clientRate / alone.rate) * 100).toFixed(0)}% of the service alone, ${((clientRate / keyed.rate) * 100).toFixed(0)}% of it with keys); ` +
      `client CPU ${clientCpuMsPerAccount.toFixed(3)} ms per account (stage + process: two requests); service CPU ${underClientCpu.toFixed(2)} ms, writes ${underClientWrittenKb.toFixed(0)} KB an account`,
  );
  return {
    alone,
    keyed,
    client: { rate: clientRate, seconds: clientSeconds, cpuMsPerAccount: clientCpuMsPerAccount, serviceCpu: underClientCpu, serviceWrittenKb: underClientWrittenKb },
  };
}

/** Wall time of `node bin/import-ledger.js ...args`, `runs` times: what an operator's or a script's every call pays. */
export async function measureStartup(runs: number, progress: (line: string) => void): Promise<StartupFigures[]> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-bench-start-'));
  const env = { ...process.env, LEDGER_DATABASE: join(work, 'ledger.db') };
  try {
    await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env); // the database exists and is migrated
    const figures: StartupFigures[] = [];
    // Node's own start-up first (`node -e 0`): the floor, and on a shared machine a gauge of its load.
    for (const args of [null, ['--help'], ['supplier', 'list']]) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const startedAt = performance.now();
        await new Promise<void>((resolve) =>
          spawn(process.execPath, args ? [bin, ...args] : ['-e', '0'], { cwd: root, env, stdio: 'ignore' }).once('exit', () => resolve()),
        );
        times.push(performance.now() - startedAt);
      }
      times.sort((a, b) => a - b);
      const figure = {
        command: args ? `import-ledger ${args.join(' ')}` : 'node -e 0 (the floor)',
        runs,
        minMs: Math.round(times[0]!),
        medianMs: Math.round(times[Math.floor(times.length / 2)]!),
        meetsTarget: times[Math.floor(times.length / 2)]! < 300,
      };
      progress(`  ${figure.command}: min ${figure.minMs} ms, median ${figure.medianMs} ms over ${runs} runs`);
      figures.push(figure);
    }
    return figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
