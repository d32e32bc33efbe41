// tsx bench/cpu-per-request.ts [--requests=N] [--profile] [--runs=K] [--against=DIR]: the service's CPU time per request of
// stage-account, process and transactions (the bench's payloads, 10 connections, a fixed number of
// requests each after a warm-up), and the echo reference's under the stage body, with the budget per request
// the targets leave (30% of the echo's rate for stage, 20% for the others). CPU time is the service process's user + system time (/proc/PID/stat:
// every thread, the thread pool's fdatasync included) over the phase, divided by its requests: unlike
// req/s it hardly moves when other work shares the machine. With --profile the service runs under
// `node --cpu-prof` and each phase's samples (cut out of the one profile by time) are summed per function:
// self time, and total time (the function and what it calls) for the functions that take the most, as
// shares of the phase's busy (not idle) samples; the profile is kept (for Chrome DevTools) in the
// printed directory. With --against=DIR (another checkout of the project, built), each run measures both
// services in turn (the order alternating from run to run), without the echo, and the medians of both and
// their ratio are printed: one same-run comparison, fair to both under whatever else loads the machine.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, root, run, start, stop, tenTransactions } from './lib.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const REQUESTS = arg('requests', 3000);
const WARMUP = 400;
const RUNS = arg('runs', 1);
const profile = process.argv.includes('--profile');
const bin = join(root, 'dist/import-ledger.mjs');
const against = process.argv.find((a) => a.startsWith('--against='))?.split('=')[1];
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8');
const accountTemplate = example
  .replace('"LEG-0000001"', '"__EXT__"')
  .replace('"LEGACY_ENERGIE"', '"BENCH"')
  .replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);
const accountBody = (ext: string) => accountTemplate.replace('__EXT__', ext);
const transactionsBody = (i: number, accounts: number) => JSON.stringify(tenTransactions('BENCH', `BENCH-${i % accounts}`, i));


/** User + system CPU of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ": state is field 0, utime field 11, stime field 12 (clock ticks, 100 a second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface Phase { name: string; requests: number; cpuMs: number; seconds: number; non2xx: number; p99: number; from: number; to: number }

async function load(url: string, headers: Record<string, string>, amount: number, body: (i: number) => string) {
  let i = 0;
  return autocannon({
    url,
    method: 'POST',
    connections: 10,
    amount,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(i++) }) }],
  });
}

/**
 * The reference: the bare Hono echo (bench/echo-server.ts, one process: node with tsx's loader) under the stage
 * body, the same way. Its CPU per request over a target share gives the budget a write endpoint has per request.
 */
async function echoPhase(): Promise<Phase> {
  const port = await freePort();
  const echo = await start(process.execPath, ['--import', 'tsx', join(root, 'bench/echo-server.ts')], { PORT: String(port) }, /ready/);
  const url = `http://127.0.0.1:${port}/echo/`;
  // Warmed and measured longer than the service: at 400 and 3,000 requests its JIT is still warming and its
  // CPU per request reads about twice what it is at full speed.
  await load(url, {}, 5_000, (i) => accountBody(`WARM-${i}`));
  const before = cpuMs(echo.pid!);
  const from = performance.now();
  const result = await load(url, {}, Math.max(REQUESTS, 15_000), (i) => accountBody(`ECHO-${i}`));
  const to = performance.now();
  const used = cpuMs(echo.pid!) - before;
  await stop(echo);
  return { name: 'echo (stage body)', requests: result.requests.total, cpuMs: used, seconds: (to - from) / 1000, non2xx: result.non2xx + result.errors, p99: result.latency.p99, from, to };
}

/** The service's phases: stage-account, process and transactions (10), on a fresh database. */
async function servicePhases(bin: string): Promise<{ phases: Phase[]; work: string; stopAt: number }> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-cpu-'));
  const database = join(work, 'ledger.db');
  const env = { LEDGER_DATABASE: database, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
  await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
  const port = await freePort();
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${work}`] : [];
  const service = await start(process.execPath, [...flags, bin, 'serve'], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  while (!(await fetch(`${base}/healthz`).catch(() => null))?.ok) await new Promise((r) => setTimeout(r, 20));
  const key = (await run(process.execPath, [bin, 'api-key', 'create', '--supplier', 'BENCH'], env)).trim();
  const tokenRes = await fetch(`${base}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
  });
  const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
  const headers = { authorization: `Token ${token}` };
  await fetch(`${base}/v1/data-import/products/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'),
  });
  const pid = service.pid!;
  const phases: Phase[] = [];
  const measure = async (name: string, path: string, body: (i: number) => string, warm: (i: number) => string) => {
    await load(`${base}${path}`, headers, WARMUP, warm);
    const before = cpuMs(pid);
    const from = performance.now();
    const result = await load(`${base}${path}`, headers, REQUESTS, body);
    const to = performance.now();
    const used = cpuMs(pid) - before;
    phases.push({ name, requests: result.requests.total, cpuMs: used, seconds: (to - from) / 1000, non2xx: result.non2xx + result.errors, p99: result.latency.p99, from, to });
  };
  const stagePath = '/v1/data-import/account-import-process/create-or-update/';
  const processPath = '/v1/data-import/account-import-process/process/';
  const processBody = (ext: string) => JSON.stringify({ external_account_number: ext, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' });
  await measure('stage-account', stagePath, (i) => accountBody(`BENCH-${i}`), (i) => accountBody(`WARM-${i}`));
  await measure('process', processPath, (i) => processBody(`BENCH-${i}`), (i) => processBody(`WARM-${i}`));
  await measure('transactions (10)', '/v1/data-import/transactions/create/', (i) => transactionsBody(i, REQUESTS), (i) => transactionsBody(i + 1_000_000, REQUESTS));
  const stopAt = performance.now();
  await stop(service);
  return { phases, work, stopAt };
}

async function once(runIndex: number): Promise<Phase[]> {
  const echo = await echoPhase();
  const { phases, work, stopAt } = await servicePhases(bin);
  for (const p of [echo, ...phases]) {
    process.stdout.write(
      `run ${runIndex}  ${p.name.padEnd(18)} ${(p.cpuMs / p.requests).toFixed(2).padStart(6)} ms CPU/request  ` +
        `${Math.round(p.requests / p.seconds).toString().padStart(5)} req/s  p99 ${p.p99} ms${p.non2xx ? `  ${p.non2xx} non-2xx/errors` : ''}\n`,
    );
  }
  // The targets: stage-account at 30% of the echo's rate, process and transactions at 20%. At one core each,
  // the rate is 1 / CPU per request, so the budget is the echo's CPU per request over the share.
  const echoCpu = echo.cpuMs / echo.requests;
  for (const p of phases) {
    const share = p.name === 'stage-account' ? 0.3 : 0.2;
    const cpu = p.cpuMs / p.requests;
    process.stdout.write(`run ${runIndex}  ${p.name.padEnd(18)} budget at ${share * 100}% of the echo: ${(echoCpu / share).toFixed(2)} ms CPU/request; uses ${(cpu / (echoCpu / share)).toFixed(1)}x that (${((echoCpu / cpu) * 100).toFixed(1)}% of the echo)\n`);
  }
  if (profile) {
    printProfiles(work, phases, stopAt);
    process.stdout.write(`\nprofile kept in ${work}\n`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
  return [echo, ...phases];
}

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }

/** Per phase: the samples whose time falls in it (the profile ends when the service stops), summed per function. */
function printProfiles(work: string, phases: Phase[], stopAt: number) {
  const file = readdirSync(work).find((f) => f.endsWith('.cpuprofile'))!;
  const prof = JSON.parse(readFileSync(join(work, file), 'utf8')) as { nodes: Node[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules\/)?/, '')}:${n.callFrame.lineNumber + 1}`;
  const times: number[] = [];
  let t = prof.startTime;
  for (const d of prof.timeDeltas) times.push((t += d));
  for (const phase of phases) {
    // Profile time (µs) of the phase: counted back from the profile's end, which is the service's stop.
    const end = prof.endTime - (stopAt - phase.to) * 1000;
    const begin = prof.endTime - (stopAt - phase.from) * 1000;
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let count = 0;
    prof.samples.forEach((id, i) => {
      if (times[i]! < begin || times[i]! > end) return;
      count++;
      const leaf = byId.get(id)!;
      self.set(label(leaf), (self.get(label(leaf)) ?? 0) + 1);
      const seen = new Set<string>();
      for (let n: Node | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
        const l = label(n);
        if (seen.has(l)) continue;
        seen.add(l);
        total.set(l, (total.get(l) ?? 0) + 1);
      }
    });
    // Shares of the busy samples: the idle ones (waiting for the network or the thread pool's fdatasync) are left out.
    const idle = self.get('(idle) :0') ?? 0;
    self.delete('(idle) :0');
    total.delete('(idle) :0');
    const busy = count - idle;
    const pct = (h: number) => `${((h / busy) * 100).toFixed(1).padStart(5)}%`;
    process.stdout.write(`\n== ${phase.name}: ${count} samples, ${busy} busy (${((busy / count) * 100).toFixed(0)}%); self time, share of busy\n`);
    for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stdout.write(`${pct(hits)}  ${name}\n`);
    process.stdout.write(`-- total time (the function and its callees)\n`);
    for (const [name, hits] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 80)) process.stdout.write(`${pct(hits)}  ${name}\n`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Both services in every run, the order alternating; per phase, each one's CPU per request and their ratio. */
async function compare(otherRoot: string) {
  const builds = [
    { name: 'this', bin },
    { name: otherRoot, bin: join(otherRoot, 'dist/import-ledger.mjs') },
  ];
  const cpu = new Map<string, number[]>();
  for (let r = 1; r <= RUNS; r++) {
    for (const build of r % 2 === 1 ? builds : [...builds].reverse()) {
      const { phases, work } = await servicePhases(build.bin);
      rmSync(work, { recursive: true, force: true });
      for (const p of phases) {
        const key = `${p.name}\t${build.name}`;
        cpu.set(key, [...(cpu.get(key) ?? []), p.cpuMs / p.requests]);
        process.stdout.write(`run ${r}  ${build.name.padEnd(20)} ${p.name.padEnd(18)} ${(p.cpuMs / p.requests).toFixed(3)} ms CPU/request${p.non2xx ? `  ${p.non2xx} non-2xx/errors` : ''}\n`);
      }
    }
  }
  // The ratio within each run as well: the two services of one run met about the same load from the rest of the machine.
  process.stdout.write(`\nmedian over ${RUNS} runs, ms CPU/request (this / ${otherRoot}), and the median of the runs' ratios:\n`);
  for (const name of ['stage-account', 'process', 'transactions (10)']) {
    const mine = cpu.get(`${name}\tthis`)!;
    const theirs = cpu.get(`${name}\t${otherRoot}`)!;
    const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)}%`;
    const ratios = mine.map((value, i) => value / theirs[i]!);
    process.stdout.write(`  ${name.padEnd(18)} ${median(mine).toFixed(3)} / ${median(theirs).toFixed(3)}  ${percent(median(mine) / median(theirs))}; per run ${percent(median(ratios))}\n`);
  }
}

await run(process.execPath, [join(root, 'scripts/build.mjs')], {});
if (against) {
  await compare(against);
  process.exit(0);
}
const all: Phase[][] = [];
for (let r = 1; r <= RUNS; r++) all.push(await once(r));
if (RUNS > 1) {
  process.stdout.write('\nmedian over runs:\n');
  for (const name of all[0]!.map((p) => p.name)) {
    const values = all.map((phases) => phases.find((p) => p.name === name)!).map((p) => p.cpuMs / p.requests).sort((a, b) => a - b);
    process.stdout.write(`  ${name.padEnd(18)} ${values[Math.floor(values.length / 2)]!.toFixed(2)} ms CPU/request (${values.map((v) => v.toFixed(2)).join(', ')})\n`);
  }
}
