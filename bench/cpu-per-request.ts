// tsx bench/cpu-per-request.ts [--requests=N] [--profile] [--runs=K] [--against=DIR] [--reads] [--layers]: the service's CPU time per request of
// each request a migrated account costs, as `import-ledger migrate` sends them (an Idempotency-Key on every
// one): stage-account, process, notes (2), transactions (3) and a historical statement, N accounts through
// each in turn (10 connections, after a warm-up), and their sum, the CPU of one migrated account; and the echo
// reference's under the stage body, with the budget per request the targets leave (30% of the echo's rate for
// stage, 20% for the others). CPU time is the service process's user + system time (/proc/PID/stat:
// every thread, the thread pool's fdatasync included) over the phase, divided by its requests: unlike
// req/s it hardly moves when other work shares the machine. With --profile the service runs under
// `node --cpu-prof` and each phase's samples (cut out of the one profile by time) are summed per function:
// self time, and total time (the function and what it calls) for the functions that take the most, as
// shares of the phase's busy (not idle) samples; the profile is kept (for Chrome DevTools) in the
// printed directory. With --against=DIR (another checkout of the project, built), each run measures both
// services in turn (the order alternating from run to run), without the echo, and the medians of both and
// their ratio are printed: one same-run comparison, fair to both under whatever else loads the machine.
// With --reads, /healthz and a supplier's progress are read one after the other every 20 ms during stage-account
// (as bench/run.ts's stage scenario reads them), and the service runs with its metrics on: each stage phase also
// prints its worst read and the event loop's longest delay (`nodejs_eventloop_lag_max_seconds`, perf_hooks'
// monitorEventLoopDelay, reset by the scrape before the phase). The reads and the metrics add to the CPU figures.
// With --layers, the phases are LAYER_STEPS instead: requests that each go one layer further into the service than
// the one before, so the difference between two is what that layer costs a request (what is outside the rules
// and what is the write), printed beside each.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, processCpuMs, root, run, start, stop } from './lib.js';
import { pollReads, readServiceLoop } from './service.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const REQUESTS = arg('requests', 3000);
const WARMUP = 400;
const RUNS = arg('runs', 1);
const profile = process.argv.includes('--profile');
const reads = process.argv.includes('--reads');
const layers = process.argv.includes('--layers');
const READ_POLL_MS = 20;
const bin = join(root, 'dist/import-ledger.mjs');
const against = process.argv.find((a) => a.startsWith('--against='))?.split('=')[1];
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8');
const accountTemplate = example
  .replace('"LEG-0000001"', '"__EXT__"')
  .replace('"LEGACY_ENERGIE"', '"BENCH"')
  .replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);
const accountBody = (ext: string) => accountTemplate.replace('__EXT__', ext);
const processBody = (ext: string) => JSON.stringify({ external_account_number: ext, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' });
/** An account's records as the issue's cut-over folder holds them: 2 notes, 3 transactions, a statement. */
const notesBody = (ext: string) =>
  JSON.stringify({
    import_supplier: 'BENCH',
    external_account_number: ext,
    notes: [
      { body: 'Welcome call done on migration day.', created_at: '2025-07-01T10:00:00Z', is_pinned: true, unpin_at: '2025-08-01T00:00:00Z' },
      { body: 'Customer asked for paper bills.' },
    ],
  });
const transactionsBody = (ext: string) =>
  JSON.stringify({
    import_supplier: 'BENCH',
    external_account_number: ext,
    transactions: [
      { transaction_id: `${ext}-1`, transaction_date: '2025-07-02', amount: 35.2, type: 'CHARGE', reason: 'IMPORTED_CHARGE', display_note: 'Solde reporté', note: 'Legacy closing balance' },
      { transaction_id: `${ext}-2`, transaction_date: '2025-07-03', amount: 10.0, type: 'CREDIT', reason: 'GENERAL_CREDIT', display_note: 'Geste commercial', note: 'Goodwill' },
      { transaction_id: `${ext}-3`, transaction_date: '2025-07-05', amount: 64.5, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION', reference: 'PMT-7781' },
    ],
  });
const statementBody = (ext: string) =>
  JSON.stringify({
    import_supplier: 'BENCH',
    external_account_number: ext,
    statements: [{ bill_period_from_date: '2025-04-01', bill_period_to_date: '2025-04-30', statement_id: `ST-${ext}`, issued_date: '2025-05-03', number: `F-${ext}`, gross_amount: 71.4 }],
  });
/** One phase's request: a POST of `body` with an Idempotency-Key of its own (as migrate sends) unless told otherwise. */
interface Step { name: string; path: string; body: (ext: string) => string; method?: 'GET'; keyed?: false }

/** The requests of one migrated account, in the order migrate sends them. */
const ACCOUNT_STEPS: readonly Step[] = [
  { name: 'stage-account', path: '/v1/data-import/account-import-process/create-or-update/', body: accountBody },
  { name: 'process', path: '/v1/data-import/account-import-process/process/', body: processBody },
  { name: 'notes (2)', path: '/v1/data-import/notes/create/', body: notesBody },
  { name: 'transactions (3)', path: '/v1/data-import/transactions/create/', body: transactionsBody },
  { name: 'statement', path: '/v1/data-import/historical-statements/create/', body: statementBody },
];
const PER_ACCOUNT = 'per account';

/**
 * --layers: each request goes one layer further than the one before it. The server and the outer middleware
 * (request id, durability wait); the token check, the rate limit's setting and a read; the JSON body, its
 * limits, the payload's schema, its reference reads and a 200 echoing it; the account's event, its
 * projections and its group commit; the Idempotency-Key's record (in the event's transaction), as migrate sends.
 */
const LAYER_STEPS: readonly Step[] = [
  { name: 'GET /healthz', path: '/healthz', body: accountBody, method: 'GET', keyed: false },
  { name: 'GET service/', path: '/v1/data-import/service/', body: accountBody, method: 'GET', keyed: false },
  { name: 'validate', path: '/v1/data-import/validate-account/', body: accountBody, keyed: false },
  { name: 'stage, no key', path: '/v1/data-import/account-import-process/create-or-update/', body: (ext) => accountBody(`UNKEYED-${ext}`), keyed: false },
  { name: 'stage-account', path: '/v1/data-import/account-import-process/create-or-update/', body: accountBody },
];
const STEPS = layers ? LAYER_STEPS : ACCOUNT_STEPS;


interface Phase { name: string; requests: number; cpuMs: number; seconds: number; non2xx: number; p99: number; from: number; to: number; reads?: ReadFigures }

/** The reads polled beside a phase (--reads): the slowest answer, and the event loop's longest delay over the phase. */
interface ReadFigures { worstMs: number; worstPath: string; polls: number; loopDelayMaxMs: number }

/** The reads beside stage (bench/service.ts's poller), and the event loop's longest delay over the phase. */
function pollReadsAndLoop(base: string, headers: Record<string, string>, metricsPort: number) {
  const reads = pollReads(base, headers, { paths: ['/healthz', '/v1/data-import/import-progress/BENCH/'], everyMs: READ_POLL_MS });
  return {
    async stop(): Promise<ReadFigures> {
      const { worstMs, worstPath, polls } = await reads.stop();
      return { worstMs, worstPath, polls, loopDelayMaxMs: (await readServiceLoop(metricsPort)).delayMaxMs };
    },
  };
}

/** `amount` POSTs of `body(i)` (or GETs); with `keyPrefix`, each with an Idempotency-Key of its own, as migrate sends. */
async function load(url: string, headers: Record<string, string>, amount: number, body: (i: number) => string, options: { keyPrefix?: string; method?: 'GET' } = {}) {
  const { keyPrefix, method } = options;
  if (method === 'GET') return autocannon({ url, method, connections: 10, amount, headers });
  let i = 0;
  return autocannon({
    url,
    method: 'POST',
    connections: 10,
    amount,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [
      {
        setupRequest: (req) => {
          const n = i++;
          return { ...req, body: body(n), ...(keyPrefix ? { headers: { ...req.headers, 'idempotency-key': `${keyPrefix}-${n}` } } : {}) };
        },
      },
    ],
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
  const before = processCpuMs(echo.pid!);
  const from = performance.now();
  const result = await load(url, {}, Math.max(REQUESTS, 15_000), (i) => accountBody(`ECHO-${i}`));
  const to = performance.now();
  const used = processCpuMs(echo.pid!) - before;
  await stop(echo);
  return { name: 'echo (stage body)', requests: result.requests.total, cpuMs: used, seconds: (to - from) / 1000, non2xx: result.non2xx + result.errors, p99: result.latency.p99, from, to };
}

/** The service's phases on a fresh database: each request of a migrated account (ACCOUNT_STEPS), or LAYER_STEPS. */
async function servicePhases(bin: string): Promise<{ phases: Phase[]; work: string; stopAt: number }> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-cpu-'));
  const database = join(work, 'ledger.db');
  const env = { LEDGER_DATABASE: database, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
  await run(process.execPath, [bin, 'team', 'create', 'Migrations'], env);
  const port = await freePort();
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${work}`] : [];
  const metricsPort = reads ? await freePort() : null;
  const service = await start(process.execPath, [...flags, bin, 'serve'], { ...env, PORT: String(port), ...(metricsPort ? { LEDGER_METRICS_PORT: String(metricsPort) } : {}) });
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
  const keyed = (step: Step, prefix: string) => ({ method: step.method, ...(step.keyed === false ? {} : { keyPrefix: `${prefix}-${step.name}` }) });
  // Every step warmed before any is measured: the first one measured would otherwise pay for compiling the code all share.
  for (const step of STEPS) await load(`${base}${step.path}`, headers, WARMUP, (i) => step.body(`WARM-${i}`), keyed(step, 'warm'));
  for (const step of STEPS) {
    const url = `${base}${step.path}`;
    const polled = metricsPort && step.name === 'stage-account' ? (await readServiceLoop(metricsPort), pollReadsAndLoop(base, headers, metricsPort)) : null;
    const before = processCpuMs(pid);
    const from = performance.now();
    const result = await load(url, headers, REQUESTS, (i) => step.body(`BENCH-${i}`), keyed(step, 'bench'));
    const to = performance.now();
    const used = processCpuMs(pid) - before;
    const readFigures = await polled?.stop();
    phases.push({
      name: step.name,
      requests: result.requests.total,
      cpuMs: used,
      seconds: (to - from) / 1000,
      non2xx: result.non2xx + result.errors,
      p99: result.latency.p99,
      from,
      to,
      ...(readFigures ? { reads: readFigures } : {}),
    });
  }
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
        `${Math.round(p.requests / p.seconds).toString().padStart(5)} req/s  p99 ${p.p99} ms${p.non2xx ? `  ${p.non2xx} non-2xx/errors` : ''}${readsNote(p)}${layerNote(phases, p)}\n`,
    );
  }
  if (layers) return finish(work, phases, stopAt, echo);
  process.stdout.write(`run ${runIndex}  ${PER_ACCOUNT.padEnd(18)} ${accountCpu(phases).toFixed(2).padStart(6)} ms CPU/account (the sum of its requests)\n`);
  // The targets: stage-account at 30% of the echo's rate, process and transactions at 20%. At one core each,
  // the rate is 1 / CPU per request, so the budget is the echo's CPU per request over the share.
  const echoCpu = echo.cpuMs / echo.requests;
  for (const p of phases) {
    const share = p.name === 'stage-account' ? 0.3 : 0.2;
    const cpu = p.cpuMs / p.requests;
    process.stdout.write(`run ${runIndex}  ${p.name.padEnd(18)} budget at ${share * 100}% of the echo: ${(echoCpu / share).toFixed(2)} ms CPU/request; uses ${(cpu / (echoCpu / share)).toFixed(1)}x that (${((echoCpu / cpu) * 100).toFixed(1)}% of the echo)\n`);
  }
  return finish(work, phases, stopAt, echo);
}

/** The profile's figures (--profile), else the scratch folder removed; the run's phases, the echo's first. */
function finish(work: string, phases: Phase[], stopAt: number, echo: Phase): Phase[] {
  if (profile) {
    printProfiles(work, phases, stopAt);
    process.stdout.write(`\nprofile kept in ${work}\n`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
  return [echo, ...phases];
}

/** --layers: what a phase's request costs over the one before it, the layer it adds. */
function layerNote(phases: readonly Phase[], phase: Phase): string {
  const before = phases[phases.indexOf(phase) - 1];
  if (!layers || !before) return '';
  const added = phase.cpuMs / phase.requests - before.cpuMs / before.requests;
  return `  (${added < 0 ? '' : '+'}${added.toFixed(2)} ms over ${before.name})`;
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

/** A phase's reads (--reads), for its line. */
const readsNote = (p: Phase) =>
  p.reads ? `  reads: worst ${p.reads.worstMs} ms (${p.reads.worstPath}, ${p.reads.polls} polls), longest event loop delay ${p.reads.loopDelayMaxMs} ms` : '';

/** The CPU of one migrated account: one request of each step (every phase sends one request an account). */
const accountCpu = (phases: readonly Phase[]) => phases.reduce((sum, p) => sum + p.cpuMs / p.requests, 0);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Both services in every run, the order alternating; per phase, each one's CPU per request and their ratio. */
async function compare(otherRoot: string) {
  const builds = [
    { name: 'this', bin },
    { name: otherRoot, bin: join(otherRoot, 'dist/import-ledger.mjs') },
  ];
  const cpu = new Map<string, number[]>();
  const reads = new Map<string, ReadFigures[]>();
  for (let r = 1; r <= RUNS; r++) {
    for (const build of r % 2 === 1 ? builds : [...builds].reverse()) {
      const { phases, work } = await servicePhases(build.bin);
      rmSync(work, { recursive: true, force: true });
      const figures = [...phases.map((p) => ({ name: p.name, value: p.cpuMs / p.requests, non2xx: p.non2xx })), ...(layers ? [] : [{ name: PER_ACCOUNT, value: accountCpu(phases), non2xx: 0 }])];
      for (const p of figures) {
        const key = `${p.name}\t${build.name}`;
        cpu.set(key, [...(cpu.get(key) ?? []), p.value]);
        process.stdout.write(`run ${r}  ${build.name.padEnd(20)} ${p.name.padEnd(18)} ${p.value.toFixed(3)} ms CPU/request${p.non2xx ? `  ${p.non2xx} non-2xx/errors` : ''}\n`);
      }
      for (const p of phases) {
        if (!p.reads) continue;
        const key = `${p.name} reads\t${build.name}`;
        reads.set(key, [...(reads.get(key) ?? []), p.reads]);
        process.stdout.write(`run ${r}  ${build.name.padEnd(20)} ${p.name.padEnd(18)}${readsNote(p)}\n`);
      }
    }
  }
  // The ratio within each run as well: the two services of one run met about the same load from the rest of the machine.
  process.stdout.write(`\nmedian over ${RUNS} runs, ms CPU/request (this / ${otherRoot}), and the median of the runs' ratios:\n`);
  for (const name of [...STEPS.map((step) => step.name), ...(layers ? [] : [PER_ACCOUNT])]) {
    const mine = cpu.get(`${name}\tthis`)!;
    const theirs = cpu.get(`${name}\t${otherRoot}`)!;
    const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)}%`;
    const ratios = mine.map((value, i) => value / theirs[i]!);
    process.stdout.write(`  ${name.padEnd(18)} ${median(mine).toFixed(3)} / ${median(theirs).toFixed(3)}  ${percent(median(mine) / median(theirs))}; per run ${percent(median(ratios))}\n`);
  }
  for (const build of builds) {
    const figures = reads.get(`stage-account reads\t${build.name}`);
    if (!figures) continue;
    process.stdout.write(
      `  reads during stage, ${build.name}: worst read ${figures.map((f) => f.worstMs).join(', ')} ms (median ${median(figures.map((f) => f.worstMs))}); ` +
        `longest event loop delay ${figures.map((f) => f.loopDelayMaxMs).join(', ')} ms (median ${median(figures.map((f) => f.loopDelayMaxMs))})\n`,
    );
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
  const accounts = all.map((phases) => accountCpu(phases.slice(1)));
  if (!layers) process.stdout.write(`  ${PER_ACCOUNT.padEnd(18)} ${median(accounts).toFixed(2)} ms CPU/account (${accounts.map((v) => v.toFixed(2)).join(', ')})\n`);
}
