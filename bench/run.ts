// npm run bench [-- --quick]: starts the real service on a temp database and measures, in one run,
// the echo reference, stage-account, process, projection rebuild over a generated log, start-up on
// that log, the streamed reads on it (the full list of its accounts, the reconciliation export) and
// stage throughput on it. Prints a table and writes bench/results/latest.json.
// `-- --only=reads`: only the generated log, its rebuild and the streamed reads (with `--store=postgres`
// on PostgreSQL too). `-- --log=FILE`: a log generated earlier (tsx bench/generate-log.ts FILE --events N)
// instead of a new one; it is changed in place. `-- --only=stores`: only the echo and the write
// scenarios (with `--store=postgres --instances=N`, PostgreSQL's beside SQLite's).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { copyAccountRows } from './copy-account-rows.js';
import { freePort, freshPostgresDatabase, median, peakRssMb, root, run, start, stop, tenTransactions } from './lib.js';
import { measureStreamedRead, type StreamedReadFigures } from './streamed-read.js';
import { measureMigrate, measureStartup, type MigrateFigures, type StartupFigures } from './migrate-client.js';
import { measureVerify, type VerifyFigures } from './verify-client.js';
import { measureRelays, printRelays } from './relays.js';
import { databaseEnv, keyToken, pollReads, serviceBin as bin, startService, tokenFor } from './service.js';
import { CutoverUsage, parseCutoverOptions, runCutover } from './cutover.js';
import { printCutover } from './cutover-print.js';
import { cpuSeconds, measureMetricsOverhead, type OverheadFigures } from './metrics-overhead.js';

const quick = process.argv.includes('--quick');
const onlyReads = process.argv.includes('--only=reads');
/** `-- --only=migrate`: only the migrate client against the service alone, and the CLI's start-up. */
const onlyMigrate = process.argv.includes('--only=migrate');
/** `-- --only=verify`: only `import-ledger verify` on 100,000 imported accounts with their records. */
const onlyVerify = process.argv.includes('--only=verify');
/** `--verify-accounts=N`: the accounts verify compares (100,000; 20,000 with `--quick`), to see its memory against the supplier's size. */
const VERIFY_ACCOUNTS = Number(process.argv.find((a) => a.startsWith('--verify-accounts='))?.slice('--verify-accounts='.length) ?? (quick ? 20_000 : 100_000));
if (!Number.isSafeInteger(VERIFY_ACCOUNTS) || VERIFY_ACCOUNTS < 1) throw new Error('--verify-accounts takes a whole number of accounts, at least 1');
/** `-- --only=cutover --accounts=N [--store=postgres --instances=K] [--kill=service|client] [--concurrency=8]`: bench/cutover.ts. */
const onlyCutover = process.argv.includes('--only=cutover');
/** `-- --only=metrics`: only stage-account with metrics on and off. */
const onlyMetrics = process.argv.includes('--only=metrics');
/** `-- --only=writer`: the echo, then SQLite's two writers (LEDGER_SQLITE_WRITER inline and thread) alternated. */
const onlyWriter = process.argv.includes('--only=writer');
/** `-- --only=relays`: events out (bench/relays.ts): stage-account with the relays on and off, their lag, and each relay's rate alone. */
const onlyRelays = process.argv.includes('--only=relays');
/** `-- --only=stores`: only the echo and the write scenarios, on SQLite and (with `--store=postgres`) PostgreSQL. */
const onlyStores = process.argv.includes('--only=stores');
const givenLog = process.argv.find((a) => a.startsWith('--log='))?.slice('--log='.length);
/** `--store=postgres --instances=N`: also measure the PostgreSQL store with 1 and N instances on one database. */
const storeArg = process.argv.find((a) => a.startsWith('--store='))?.slice('--store='.length) ?? 'sqlite';
const INSTANCES = Number(process.argv.find((a) => a.startsWith('--instances='))?.slice('--instances='.length) ?? 2);
const PG_SERVER = process.env['LEDGER_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION = quick ? 4 : 12;
const CONNECTIONS = 10;
const LOG_EVENTS = quick ? 100_000 : 1_000_000;
const tsx = join(root, 'node_modules/.bin/tsx');
// The service runs as `npm start` runs it: bundled (scripts/build.mjs), without the TypeScript loader.

interface Figure {
  scenario: string;
  rate: number;
  unit: 'req/s' | 'events/s' | 'items/s';
  p50Ms: number | null;
  p99Ms: number | null;
  peakRssMb: number | null;
  ratioToEcho: number | null;
  /** The worst answer of the reads polled beside the load (stage-account). */
  worstReadMs?: number;
  note?: string;
}
const figures: Figure[] = [];
/** The targets for one streamed read, on a 2-core machine. */
const READ_TARGETS = { worstHealthzMs: 50, rssGrowthMb: 50, itemsPerSecond: 100_000 } as const;
const streamed: (StreamedReadFigures & { scenario: string; meetsTargets: boolean })[] = [];
const work = mkdtempSync(join(tmpdir(), 'import-ledger-bench-'));
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8');
const accountTemplate = example
  .replace('"LEG-0000001"', '"__EXT__"')
  .replace('"LEGACY_ENERGIE"', '"BENCH"')
  // pad the ~3.5 KB example to a realistic ~5 KB payload with a longer metadata entry
  .replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);
const accountBody = (ext: string) => accountTemplate.replace('__EXT__', ext);
/** The 10 transactions of the i-th transactions request (a payment and two charges in turn). */
const transactionsOf = (i: number) =>
  Array.from({ length: 10 }, (_, n) => ({
    transaction_id: `TX-${i}-${n}`,
    transaction_date: '2025-07-15',
    amount: 12.34 + n,
    type: n % 3 === 0 ? 'PAYMENT' : 'CHARGE',
    ...(n % 3 === 0 ? {} : { reason: 'IMPORTED_CHARGE' }),
  }));
const progress = (line: string) => process.stderr.write(`${line}\n`);

async function load(
  url: string,
  options: { headers?: Record<string, string>; body: (i: number) => string; amount?: number },
): Promise<autocannon.Result> {
  let i = 0;
  return autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    ...(options.amount ? { amount: options.amount } : { duration: DURATION }),
    headers: { 'content-type': 'application/json', ...options.headers },
    requests: [{ setupRequest: (req) => ({ ...req, body: options.body(i++) }) }],
  });
}

/** How often the reads beside the stage load are asked. */
const READ_POLL_MS = 20;

/** The liveness probe, and a supplier's progress (which reads the store), polled beside a write load. */
const READ_PATHS = ['/healthz', '/v1/data-import/import-progress/BENCH/'];

function record(scenario: string, result: autocannon.Result, pid: number | undefined, echo: number | null, note?: string) {
  const ok = result.requests.total - result.non2xx - result.errors;
  const rate = Math.round(ok / (result.duration || 1));
  figures.push({
    scenario,
    rate,
    unit: 'req/s',
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    peakRssMb: pid ? peakRssMb(pid) : null,
    ratioToEcho: echo ? Math.round((rate / echo) * 1000) / 1000 : null,
    note: note ?? (result.non2xx + result.errors > 0 ? `${result.non2xx} non-2xx, ${result.errors} errors` : undefined),
  });
  progress(`  ${scenario}: ${rate} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  return ok;
}

async function main() {
  const cutover = onlyCutover ? parseCutoverOptions(process.argv, PG_SERVER) : null;
  await run(process.execPath, [join(root, 'scripts/build.mjs')], {});
  if (cutover) {
    const figures = await runCutover(cutover, progress);
    printCutover(figures);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/cutover.json'), `${JSON.stringify(figures, null, 2)}\n`);
    if (!figures.passed) process.exitCode = 1;
    return;
  }
  progress(`import-ledger bench (${quick ? 'quick' : 'full'}): ${CONNECTIONS} connections, ${DURATION} s per HTTP scenario, ${LOG_EVENTS.toLocaleString()}-event log`);
  if (onlyMetrics) {
    const overhead = await metricsScenario();
    printMetricsOverhead(overhead);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, metricsOverhead: overhead }, null, 2)}\n`);
    return;
  }
  if (onlyRelays) {
    const relays = await measureRelays(work, { rounds: quick ? 2 : 5, seconds: DURATION, warmUpSeconds: quick ? 5 : 15, logEvents: quick ? 50_000 : 200_000 }, accountBody, progress);
    printRelays(relays);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, relays }, null, 2)}\n`);
    return;
  }
  if (onlyWriter) {
    const writers = await writerComparison();
    printWriters(writers);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, connections: CONNECTIONS, durationSeconds: DURATION, writers }, null, 2)}\n`);
    return;
  }
  if (onlyStores) {
    const echo = await writeScenarios();
    if (storeArg === 'postgres') {
      await postgresScenarios(echo, figures.find((f) => f.scenario.startsWith('stage-account (synchronous'))!.rate);
      comparison = await stageComparison();
    }
    printTable();
    printComparison(comparison);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, connections: CONNECTIONS, durationSeconds: DURATION, figures, stageComparison: comparison }, null, 2)}\n`);
    return;
  }
  if (onlyVerify) {
    const verifyFigures = await measureVerify(accountBody, progress, VERIFY_ACCOUNTS);
    printVerify(verifyFigures);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, verify: verifyFigures }, null, 2)}\n`);
    return;
  }
  const cli = onlyReads ? null : await migrateScenarios();
  const verifyFigures = onlyReads || onlyMigrate ? null : await measureVerify(accountBody, progress, VERIFY_ACCOUNTS);
  if (onlyMigrate) {
    printMigrate(cli);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), quick, ...cli }, null, 2)}\n`);
    return;
  }
  const echoRate = onlyReads ? null : await writeScenarios();
  const startupMs = await logScenarios(echoRate);
  const peers = onlyReads ? null : await peerComparison();
  const metricsOverhead = onlyReads ? null : await metricsScenario();
  if (storeArg === 'postgres' && echoRate !== null) {
    await postgresScenarios(echoRate, figures.find((f) => f.scenario.startsWith('stage-account (synchronous'))!.rate);
    comparison = await stageComparison();
  }
  printTable();
  printComparison(comparison);
  printStreamedReads();
  printMigrate(cli);
  if (verifyFigures) printVerify(verifyFigures);
  if (metricsOverhead) printMetricsOverhead(metricsOverhead);
  if (peers) {
    process.stdout.write('store append, 1 KB events, 1 event per append (WAL + synchronous=FULL):\n');
    for (const f of peers.figures) {
      process.stdout.write(
        `  ${f.store.padEnd(22)} ${f.mode.padEnd(14)} ${String(f.appendsPerSecond).padStart(7)} appends/s` +
          `${f.failed ? `, ${f.failed} failed` : ''}${f.notAttempted ? `, ${f.notAttempted} not done after ${Math.round(f.seconds)} s` : ''}\n`,
      );
    }
    process.stdout.write(`  ratio import-ledger / emmett: sequential ${peers.ratioSequential}x, 10 concurrent ${peers.ratioConcurrent}x\n\n`);
  }
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const results = { date: new Date().toISOString(), quick, connections: CONNECTIONS, durationSeconds: DURATION, figures, stageComparison: comparison, streamed, startupMs, peers, metricsOverhead, ...cli };
  writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  progress('written bench/results/latest.json');
}

/** stage-account on fresh databases, metrics on (scraped every second) and off, alternating. */
async function metricsScenario(): Promise<OverheadFigures> {
  progress('stage-account with metrics on and off (alternating, fresh database each):');
  let n = 0;
  return measureMetricsOverhead(
    quick ? 1 : 2,
    async (metricsPort) => {
      const database = join(work, `metrics-${n++}.db`);
      const setupEnv = { LEDGER_DATABASE: database, NODE_ENV: 'production' };
      await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], setupEnv);
      await run(process.execPath, [bin, 'team', 'create', 'Migrations'], setupEnv);
      const service = await startService(database, { metricsPort });
      const token = await tokenFor(service.base, database);
      const pid = service.child.pid!;
      const cpuBefore = cpuSeconds(pid);
      const result = await load(`${service.base}/v1/data-import/account-import-process/create-or-update/`, {
        headers: { authorization: `Token ${token}` },
        body: (i) => accountBody(`M-${i}`),
      });
      const ok = result.requests.total - result.non2xx - result.errors;
      progress(`  metrics ${metricsPort === null ? 'off' : 'on '}: ${Math.round(ok / (result.duration || 1))} req/s, p99 ${result.latency.p99} ms`);
      return { ok, seconds: result.duration || 1, p99Ms: result.latency.p99, pid, cpuBefore, stop: () => stop(service.child) };
    },
    freePort,
  );
}

function printMetricsOverhead(o: OverheadFigures): void {
  process.stdout.write(
    `stage-account, metrics on (scraped every 1 s) vs off: ${o.rateOn} vs ${o.rateOff} req/s (ratio ${o.rateRatio}), ` +
      `service CPU ${o.cpuMsOn ?? '?'} vs ${o.cpuMsOff ?? '?'} ms per request, ${o.samplesPerScrape} samples per scrape\n` +
      `  runs: ${o.runs.map((r) => `${r.metrics ? 'on' : 'off'} ${r.rate} req/s ${r.cpuMsPerRequest ?? '?'} ms CPU`).join(', ')}\n\n`,
  );
}

/** (1) to (4): the echo reference and the write scenarios on a fresh database; returns the echo's rate. */
async function writeScenarios(): Promise<number> {
  // (1) the echo reference, same payload
  const echoPort = await freePort();
  const echo = await start(tsx, [join(root, 'bench/echo-server.ts')], { PORT: String(echoPort) }, /ready/);
  const echoResult = await load(`http://127.0.0.1:${echoPort}/echo/`, { body: (i) => accountBody(`ECHO-${i}`) });
  record('echo (bare Hono, 5 KB JSON)', echoResult, echo.pid, null);
  const echoRate = figures[0]!.rate;
  figures[0]!.ratioToEcho = 1;
  await stop(echo);

  // (2) stage-account, all unique accounts, and (3) process them
  const database = join(work, 'ledger.db');
  const setupEnv = { LEDGER_DATABASE: database, NODE_ENV: 'production' };
  await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], setupEnv);
  await run(process.execPath, [bin, 'team', 'create', 'Migrations'], setupEnv);
  const service = await startService(database);
  const token = await tokenFor(service.base, database);
  const auth = { authorization: `Token ${token}` };
  const reads = pollReads(service.base, auth, { paths: READ_PATHS, everyMs: READ_POLL_MS });
  const stageResult = await load(`${service.base}/v1/data-import/account-import-process/create-or-update/`, {
    headers: auth,
    body: (i) => accountBody(`BENCH-${i}`),
  });
  const worstRead = await reads.stop();
  const staged = record('stage-account (synchronous=FULL)', stageResult, service.child.pid, echoRate);
  figures.at(-1)!.worstReadMs = worstRead.worstMs;
  progress(`  reads during stage-account (every ${READ_POLL_MS} ms, ${worstRead.polls} of each): worst ${worstRead.worstMs} ms (${worstRead.worstPath})`);
  const processResult = await load(`${service.base}/v1/data-import/account-import-process/process/`, {
    headers: auth,
    amount: Math.min(staged, 200_000),
    body: (i) => JSON.stringify({ external_account_number: `BENCH-${i}`, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }),
  });
  const imported = record('process', processResult, service.child.pid, echoRate);

  // (4) notes and transactions in batches, on the imported accounts
  const accounts = Math.max(imported, 1);
  const notesResult = await load(`${service.base}/v1/data-import/notes/create/`, {
    headers: auth,
    body: (i) =>
      JSON.stringify({
        import_supplier: 'BENCH',
        external_account_number: `BENCH-${i % accounts}`,
        notes: Array.from({ length: 5 }, (_, n) => ({ body: `Bench note ${i}-${n}: customer called about their first bill.` })),
      }),
  });
  record('notes (5 per request)', notesResult, service.child.pid, echoRate);
  const transactionsResult = await load(`${service.base}/v1/data-import/transactions/create/`, {
    headers: auth,
    body: (i) =>
      JSON.stringify({
        import_supplier: 'BENCH',
        external_account_number: `BENCH-${i % accounts}`,
        transactions: transactionsOf(i),
      }),
  });
  record('transactions (10 per request)', transactionsResult, service.child.pid, echoRate);
  await stop(service.child);
  return echoRate;
}

interface WriterRound {
  readonly writer: 'inline' | 'thread';
  readonly stage: number;
  readonly stageP99: number;
  readonly worstReadMs: number;
  readonly process: number;
  readonly processP99: number;
  readonly transactions: number;
  readonly transactionsP99: number;
}
interface WriterComparison {
  readonly echo: number;
  readonly rounds: WriterRound[];
}

/**
 * SQLite's two writers in one run, alternated (inline, thread, inline, ...), each round on a fresh database
 * and service: stage-account with the reads polled beside it, process, transactions; with the echo of the
 * same run as the reference. Ratios of medians, as the store comparison gives them.
 */
async function writerComparison(): Promise<WriterComparison> {
  const echoPort = await freePort();
  const echo = await start(tsx, [join(root, 'bench/echo-server.ts')], { PORT: String(echoPort) }, /ready/);
  const echoResult = await load(`http://127.0.0.1:${echoPort}/echo/`, { body: (i) => accountBody(`ECHO-${i}`) });
  await stop(echo);
  const echoRate = Math.round(echoResult.requests.total / (echoResult.duration || DURATION));
  progress(`  echo: ${echoRate} req/s`);
  const rounds: WriterRound[] = [];
  const rate = (r: autocannon.Result, what: string) => {
    if (r.non2xx + r.errors > 0) throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return Math.round(r.requests.total / (r.duration || DURATION));
  };
  for (let round = 1; round <= (quick ? 2 : 3); round++) {
    for (const writer of ['inline', 'thread'] as const) {
      const database = join(work, `writer-${writer}-${round}.db`);
      const setupEnv = { LEDGER_DATABASE: database, NODE_ENV: 'production' };
      await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], setupEnv);
      await run(process.execPath, [bin, 'team', 'create', 'Migrations'], setupEnv);
      const service = await startService(database, { env: { LEDGER_SQLITE_WRITER: writer } });
      const auth = { authorization: `Token ${await tokenFor(service.base, database)}` };
      const reads = pollReads(service.base, auth, { paths: READ_PATHS, everyMs: READ_POLL_MS });
      const stage = await load(`${service.base}/v1/data-import/account-import-process/create-or-update/`, { headers: auth, body: (i) => accountBody(`W-${i}`) });
      const worst = await reads.stop();
      const staged = rate(stage, 'stage-account') * (stage.duration || DURATION);
      const processed = await load(`${service.base}/v1/data-import/account-import-process/process/`, {
        headers: auth,
        amount: Math.max(1, Math.round(staged)),
        body: (i) => JSON.stringify({ external_account_number: `W-${i}`, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }),
      });
      const accounts = Math.max(1, processed.requests.total - processed.non2xx);
      const transactions = await load(`${service.base}/v1/data-import/transactions/create/`, {
        headers: auth,
        body: (i) => JSON.stringify(tenTransactions('BENCH', `W-${i % accounts}`, i)),
      });
      await stop(service.child);
      const figures: WriterRound = {
        writer,
        stage: rate(stage, 'stage-account'),
        stageP99: stage.latency.p99,
        worstReadMs: worst.worstMs,
        process: rate(processed, 'process'),
        processP99: processed.latency.p99,
        transactions: rate(transactions, 'transactions'),
        transactionsP99: transactions.latency.p99,
      };
      rounds.push(figures);
      progress(
        `  round ${round}, ${writer}: stage ${figures.stage} req/s (p99 ${figures.stageP99} ms, worst read ${figures.worstReadMs} ms), ` +
          `process ${figures.process} (p99 ${figures.processP99} ms), transactions ${figures.transactions} (p99 ${figures.transactionsP99} ms)`,
      );
    }
  }
  return { echo: echoRate, rounds };
}

function printWriters(c: WriterComparison): void {
  const share = (n: number) => `${((n / c.echo) * 100).toFixed(1)}%`;
  process.stdout.write(`SQLite writers, alternated (${c.rounds.length / 2} rounds of ${DURATION} s); echo ${c.echo} req/s; medians:\n`);
  for (const writer of ['inline', 'thread'] as const) {
    const mine = c.rounds.filter((r) => r.writer === writer);
    const m = (pick: (r: WriterRound) => number) => Math.round(median(mine.map(pick)) * 10) / 10;
    process.stdout.write(
      `  ${writer.padEnd(6)} stage ${m((r) => r.stage)} req/s (${share(m((r) => r.stage))} of the echo, p99 ${m((r) => r.stageP99)} ms, worst read ${m((r) => r.worstReadMs)} ms)  ` +
        `process ${m((r) => r.process)} (${share(m((r) => r.process))}, p99 ${m((r) => r.processP99)} ms)  ` +
        `transactions ${m((r) => r.transactions)} (${share(m((r) => r.transactions))}, p99 ${m((r) => r.transactionsP99)} ms)\n`,
    );
  }
  process.stdout.write('\n');
}

/** (5) to (7) on a generated log: rebuild, start-up, the streamed reads, stage-account; returns the start-up time. */
async function logScenarios(echoRate: number | null): Promise<number> {
  // (5) projection rebuild over a generated log, then start-up and stage throughput on that log
  const big = givenLog ?? join(work, 'big.db');
  if (givenLog === undefined) {
    progress(`  generating a ${LOG_EVENTS.toLocaleString()}-event log ...`);
    JSON.parse(await run(tsx, [join(root, 'bench/generate-log.ts'), big, '--events', String(LOG_EVENTS)], {}));
  }
  const rebuild = JSON.parse(await run(tsx, [join(root, 'bench/rebuild.ts'), big], {})) as {
    eventsRead: number;
    eventsPerSecond: number;
    maxRssMb: number;
  };
  figures.push({
    scenario: `projection rebuild (${rebuild.eventsRead.toLocaleString()} events)`,
    rate: rebuild.eventsPerSecond,
    unit: 'events/s',
    p50Ms: null,
    p99Ms: null,
    peakRssMb: rebuild.maxRssMb,
    ratioToEcho: null,
  });
  progress(`  rebuild: ${rebuild.eventsPerSecond} events/s, peak RSS ${rebuild.maxRssMb} MB`);

  const onBig = await startService(big);
  progress(`  start-up to first /healthz on the ${LOG_EVENTS.toLocaleString()}-event log: ${onBig.startupMs} ms`);
  const bigToken = await tokenFor(onBig.base, big);
  await streamedReads(onBig.base, onBig.child.pid!, bigToken, 'SQLite');
  if (storeArg === 'postgres') await postgresStreamedReads(big);
  if (!onlyReads) {
    const bigStage = await load(`${onBig.base}/v1/data-import/account-import-process/create-or-update/`, {
      headers: { authorization: `Token ${bigToken}` },
      body: (i) => accountBody(`LATE-${i}`),
    });
    record(`stage-account on the ${LOG_EVENTS.toLocaleString()}-event log`, bigStage, onBig.child.pid, echoRate, `start-up to /healthz ${onBig.startupMs} ms`);
  }
  await stop(onBig.child);
  return onBig.startupMs;
}

/**
 * (6) The full list of every account of the generated log (250,000 on the full log) and the
 * reconciliation export of them, each alone on the service, twice; with a /healthz polled every 20 ms.
 */
async function streamedReads(base: string, pid: number, token: string, store: 'SQLite' | 'PostgreSQL'): Promise<void> {
  const headers = { authorization: `Token ${token}` };
  const scenarios = [
    { name: 'full list', path: '/v1/data-import/all-account-import-processes/BENCH/', itemMarker: '{"external_account_number":' },
    { name: 'reconciliation export (CSV)', path: '/v1/data-import/reconciliation/BENCH/?format=csv', itemMarker: '\n' },
    { name: 'reconciliation export (NDJSON)', path: '/v1/data-import/reconciliation/BENCH/?format=ndjson', itemMarker: '\n' },
  ];
  for (const scenario of scenarios) {
    for (let run = 1; run <= 2; run++) {
      const measured = await measureStreamedRead({ base, path: scenario.path, headers, pid, itemMarker: scenario.itemMarker });
      // The CSV's header line is not an account.
      const items = scenario.name.includes('CSV') ? measured.items - 1 : measured.items;
      const figuresOfRun = { ...measured, items, itemsPerSecond: Math.round(items / measured.seconds) };
      const label = `${scenario.name} of ${items.toLocaleString()} accounts (${store}), run ${run}`;
      const meetsTargets =
        figuresOfRun.worstHealthzMs <= READ_TARGETS.worstHealthzMs &&
        figuresOfRun.rssGrowthMb <= READ_TARGETS.rssGrowthMb &&
        figuresOfRun.itemsPerSecond >= READ_TARGETS.itemsPerSecond;
      streamed.push({ scenario: label, ...figuresOfRun, meetsTargets });
      figures.push({
        scenario: label,
        rate: figuresOfRun.itemsPerSecond,
        unit: 'items/s',
        p50Ms: null,
        p99Ms: null,
        peakRssMb: peakRssMb(pid),
        ratioToEcho: null,
        note: `${figuresOfRun.seconds.toFixed(2)} s, ${(figuresOfRun.bytes / 1e6).toFixed(1)} MB, RSS +${figuresOfRun.rssGrowthMb} MB, worst /healthz ${figuresOfRun.worstHealthzMs} ms`,
      });
      progress(`  ${label}: ${figuresOfRun.itemsPerSecond.toLocaleString()} items/s, ${figuresOfRun.seconds.toFixed(2)} s, RSS +${figuresOfRun.rssGrowthMb} MB, worst /healthz ${figuresOfRun.worstHealthzMs} ms`);
    }
  }
}

/**
 * (6, --store=postgres) The same reads on PostgreSQL: a new database, the account rows of the generated
 * log copied into its projections (bench/copy-account-rows.ts), one instance serving them.
 */
async function postgresStreamedReads(big: string): Promise<void> {
  const database = await freshPostgresDatabase(PG_SERVER, 'ledger_bench_reads');
  try {
    const env = { ...databaseEnv(database.url), NODE_ENV: 'production' };
    await stop((await startService(database.url)).child); // migrates the new database
    await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], env);
    const accounts = await copyAccountRows(big, database.url, 'BENCH');
    progress(`  PostgreSQL: the ${accounts.toLocaleString()} accounts of the log copied in`);
    const service = await startService(database.url);
    await streamedReads(service.base, service.child.pid!, await keyToken(service.base, database.url), 'PostgreSQL');
    await stop(service.child);
  } finally {
    await database.drop();
  }
}

function printStreamedReads() {
  if (streamed.length === 0) return;
  process.stdout.write(
    `streamed reads (targets: worst /healthz <= ${READ_TARGETS.worstHealthzMs} ms, RSS growth <= ${READ_TARGETS.rssGrowthMb} MB, >= ${READ_TARGETS.itemsPerSecond.toLocaleString()} items/s):\n`,
  );
  for (const r of streamed) {
    process.stdout.write(
      `  ${r.scenario.padEnd(72)} ${r.seconds.toFixed(2).padStart(6)} s ${r.itemsPerSecond.toLocaleString().padStart(9)} items/s ` +
        `RSS +${String(r.rssGrowthMb).padStart(5)} MB  worst /healthz ${String(r.worstHealthzMs).padStart(6)} ms (${r.healthzPolls} polls)  ${r.meetsTargets ? 'meets targets' : 'MISSES a target'}\n`,
    );
  }
  process.stdout.write('\n');
}

/**
 * The load of one scenario spread over several instances (the connections split between them, run at
 * once), combined as one result: requests summed, the worst instance's p50 and p99.
 */
async function loadSpread(
  bases: readonly string[],
  path: string,
  options: { headers: Record<string, string>; body: (i: number) => string; amount?: number },
): Promise<autocannon.Result> {
  let next = 0;
  const results = await Promise.all(
    bases.map((base) =>
      autocannon({
        url: `${base}${path}`,
        method: 'POST',
        connections: Math.max(1, Math.round(CONNECTIONS / bases.length)),
        ...(options.amount ? { amount: Math.ceil(options.amount / bases.length) } : { duration: DURATION }),
        headers: { 'content-type': 'application/json', ...options.headers },
        requests: [{ setupRequest: (req) => ({ ...req, body: options.body(next++) }) }],
      }),
    ),
  );
  const first = results[0]!;
  return {
    ...first,
    requests: { ...first.requests, total: results.reduce((n, r) => n + r.requests.total, 0) },
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    duration: Math.max(...results.map((r) => r.duration)),
    latency: { ...first.latency, p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)) },
  };
}

/** (6) stage-account, process and transactions on PostgreSQL with 1 and INSTANCES instances, beside SQLite's figures. */
async function postgresScenarios(echoRate: number, sqliteStageRate: number): Promise<void> {
  for (const instances of [...new Set([1, INSTANCES])]) {
    const database = await freshPostgresDatabase(PG_SERVER, `ledger_bench_${instances}`);
    try {
      const setupEnv = { ...databaseEnv(database.url), NODE_ENV: 'production' };
      const first = await startService(database.url); // migrates the new database
      await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], setupEnv);
      await run(process.execPath, [bin, 'team', 'create', 'Migrations'], setupEnv);
      const services = [first, ...(await Promise.all(Array.from({ length: instances - 1 }, () => startService(database.url))))];
      const bases = services.map((s) => s.base);
      const auth = { authorization: `Token ${await tokenFor(first.base, database.url)}` };
      const label = `PostgreSQL, ${instances} instance${instances > 1 ? 's' : ''}`;
      const stage = await loadSpread(bases, '/v1/data-import/account-import-process/create-or-update/', { headers: auth, body: (i) => accountBody(`PG-${i}`) });
      const staged = record(`stage-account (${label})`, stage, first.child.pid, echoRate);
      const last = figures[figures.length - 1]!;
      last.note = `${last.note ? `${last.note}; ` : ''}${Math.round((last.rate / Math.max(sqliteStageRate, 1)) * 100)}% of SQLite's stage rate`;
      const processed = await loadSpread(bases, '/v1/data-import/account-import-process/process/', {
        headers: auth,
        amount: Math.min(staged, 100_000),
        body: (i) => JSON.stringify({ external_account_number: `PG-${i}`, import_supplier_code: 'BENCH', operations_team_name: 'Migrations' }),
      });
      const imported = Math.max(record(`process (${label})`, processed, first.child.pid, echoRate), 1);
      const transactions = await loadSpread(bases, '/v1/data-import/transactions/create/', {
        headers: auth,
        body: (i) =>
          JSON.stringify({
            import_supplier: 'BENCH',
            external_account_number: `PG-${i % imported}`,
            transactions: transactionsOf(i),
          }),
      });
      record(`transactions (${label})`, transactions, first.child.pid, echoRate);
      for (const service of services) await stop(service.child);
    } finally {
      await database.drop();
    }
  }
}

interface PeerResult {
  figures: { store: string; mode: string; appendsPerSecond: number; failed: number; notAttempted: number; seconds: number }[];
  ratioSequential: number;
  ratioConcurrent: number;
}

/** Emmett's SQLite store beside ours (bench/peers, its own install, kept out of the main one). */
/** Stage rates of the alternated runs (stageComparison): SQLite's and PostgreSQL's with INSTANCES instances. */
interface StageComparison {
  readonly instances: number;
  readonly seconds: number;
  readonly sqlite: number[];
  readonly postgres: number[];
  readonly ratioOfMedians: number;
}
let comparison: StageComparison | null = null;

/**
 * stage-account on SQLite and on PostgreSQL with INSTANCES instances, alternated (SQLite, PostgreSQL,
 * SQLite, ...), each on a fresh database and fresh service processes: the ratio the targets
 * are set for, as the ratio of the medians. On a shared machine whose speed drifts over minutes, one
 * SQLite figure at the start and one PostgreSQL figure minutes later measure the drift as much as the stores.
 */
async function stageComparison(): Promise<StageComparison> {
  const rounds = quick ? 2 : 3;
  progress(`stage-account, SQLite and PostgreSQL with ${INSTANCES} instances alternated (${rounds} rounds, ${DURATION} s each):`);
  const sqlite: number[] = [];
  const postgres: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const file = join(work, `compare-${round}.db`);
    const setupEnv = { LEDGER_DATABASE: file, NODE_ENV: 'production' };
    await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], setupEnv);
    await run(process.execPath, [bin, 'team', 'create', 'Migrations'], setupEnv);
    const single = await startService(file);
    const singleAuth = { authorization: `Token ${await tokenFor(single.base, file)}` };
    const one = await loadSpread([single.base], '/v1/data-import/account-import-process/create-or-update/', { headers: singleAuth, body: (i) => accountBody(`CMP-${round}-${i}`) });
    await stop(single.child);
    if (one.non2xx + one.errors > 0) throw new Error(`stage-account on SQLite: ${one.non2xx} non-2xx, ${one.errors} errors`);
    sqlite.push(Math.round(one.requests.total / (one.duration || DURATION)));

    const database = await freshPostgresDatabase(PG_SERVER, `ledger_bench_compare`);
    try {
      const first = await startService(database.url);
      const pgEnv = { ...databaseEnv(database.url), NODE_ENV: 'production' };
      await run(process.execPath, [bin, 'supplier', 'create', 'BENCH'], pgEnv);
      await run(process.execPath, [bin, 'team', 'create', 'Migrations'], pgEnv);
      const services = [first, ...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => startService(database.url))))];
      const auth = { authorization: `Token ${await tokenFor(first.base, database.url)}` };
      const spread = await loadSpread(
        services.map((service) => service.base),
        '/v1/data-import/account-import-process/create-or-update/',
        { headers: auth, body: (i) => accountBody(`CMP-${round}-${i}`) },
      );
      for (const service of services) await stop(service.child);
      if (spread.non2xx + spread.errors > 0) throw new Error(`stage-account on PostgreSQL: ${spread.non2xx} non-2xx, ${spread.errors} errors`);
      postgres.push(Math.round(spread.requests.total / (spread.duration || DURATION)));
    } finally {
      await database.drop();
    }
    progress(`  round ${round}: SQLite ${sqlite[round - 1]} req/s, PostgreSQL (${INSTANCES} instances) ${postgres[round - 1]} req/s`);
  }
  const ratioOfMedians = Math.round((median(postgres) / median(sqlite)) * 1000) / 1000;
  return { instances: INSTANCES, seconds: DURATION, sqlite, postgres, ratioOfMedians };
}

function printComparison(c: StageComparison | null): void {
  if (!c) return;
  process.stdout.write(
    `stage-account, alternated (${c.sqlite.length} rounds of ${c.seconds} s): SQLite median ${median(c.sqlite)} req/s (${c.sqlite.join(', ')}), ` +
      `PostgreSQL with ${c.instances} instances median ${median(c.postgres)} req/s (${c.postgres.join(', ')}): ` +
      `${Math.round(c.ratioOfMedians * 100)}% (target 60%: ${c.ratioOfMedians >= 0.6 ? 'met' : 'NOT met'})\n\n`,
  );
}

async function peerComparison(): Promise<PeerResult | null> {
  const peers = join(root, 'bench/peers');
  if (!existsSync(join(peers, 'node_modules/@event-driven-io/emmett-sqlite'))) {
    if (quick) {
      progress('  peer comparison skipped in --quick (install it once with: npm install --prefix bench/peers)');
      return null;
    }
    progress('  installing the peer store (bench/peers, once) ...');
    await run('npm', ['install', '--prefix', peers, '--no-audit', '--no-fund'], {});
  }
  progress('  store append beside emmett-sqlite ...');
  // Emmett logs its failures to stdout: the result is the last line.
  const output = await run(tsx, [join(peers, 'append.ts'), '--appends', quick ? '500' : '2000'], {});
  const line = output.trim().split('\n').reverse().find((l) => l.startsWith('{"figures"'));
  if (!line) throw new Error(`the peer comparison printed no result: ${output.slice(-500)}`);
  return JSON.parse(line) as PeerResult;
}

/** The migrate client beside the service's own rate, and the command line's start-up. */
async function migrateScenarios(): Promise<{ migrate: MigrateFigures; cliStartup: StartupFigures[] }> {
  progress('  migrate client and CLI start-up ...');
  const migrate = await measureMigrate(accountBody, progress, quick ? 2 : 3);
  const cliStartup = await measureStartup(quick ? 5 : 15, progress);
  return { migrate, cliStartup };
}

function printVerify(v: VerifyFigures) {
  process.stdout.write(
    `verify ${v.accounts.toLocaleString()} imported accounts (${v.recordsPerAccount} records each): ${v.seconds} s (${v.accountsPerSecond.toLocaleString()} accounts/s), ` +
      `client peak RSS ${v.clientPeakRssMb ?? '?'} MB, exit ${v.exitCode}; target under 60 s: ${v.meetsTarget ? 'met' : 'NOT met'}\n`,
  );
}

function printMigrate(cli: { migrate: MigrateFigures; cliStartup: StartupFigures[] } | null) {
  if (!cli) return;
  const m = cli.migrate;
  process.stdout.write(
    `migrate ${m.accounts.toLocaleString()} accounts (stage + process, concurrency ${m.concurrency}; medians of ${m.rounds.length} alternated rounds: ` +
      `${m.rounds.map((r) => `${r.client}/${r.alone}/${r.keyed}`).join(', ')} client/alone/keyed): client ${m.clientAccountsPerSecond} accounts/s ` +
      `(${m.clientSeconds} s, start to exit), service alone ${m.serviceAccountsPerSecond} accounts/s: ${(m.ratio * 100).toFixed(0)}%; ` +
      `service alone with an Idempotency-Key on each request ${m.serviceWithKeysAccountsPerSecond} accounts/s: ${(m.ratioToServiceWithKeys * 100).toFixed(0)}% ` +
      `(target 80%: ${m.meetsTarget ? 'met' : 'NOT met'}); client CPU ${m.clientCpuMsPerAccount} ms per account; ` +
      `service CPU per account ${m.serviceCpuMsPerAccount.alone} ms alone, ${m.serviceCpuMsPerAccount.keyed} ms with keys, ${m.serviceCpuMsPerAccount.underClient} ms under the client; ` +
      `service writes per account ${m.serviceWrittenKbPerAccount.alone} KB alone, ${m.serviceWrittenKbPerAccount.keyed} KB with keys, ${m.serviceWrittenKbPerAccount.underClient} KB under the client\n`,
  );
  for (const s of cli.cliStartup) {
    process.stdout.write(`${s.command.padEnd(30)} median ${s.medianMs} ms, min ${s.minMs} ms over ${s.runs} runs (target < 300 ms: ${s.meetsTarget ? 'met' : 'NOT met'})\n`);
  }
  process.stdout.write('\n');
}

function printTable() {
  const rows = figures.map((f) => ({
    scenario: f.scenario,
    rate: `${f.rate.toLocaleString()} ${f.unit}`,
    p50: f.p50Ms === null ? '' : `${f.p50Ms} ms`,
    p99: f.p99Ms === null ? '' : `${f.p99Ms} ms`,
    'peak RSS': f.peakRssMb === null ? '' : `${f.peakRssMb} MB`,
    'vs echo': f.ratioToEcho === null ? '' : `${(f.ratioToEcho * 100).toFixed(1)}%`,
    'worst read': f.worstReadMs === undefined ? '' : `${f.worstReadMs} ms`,
    note: f.note ?? '',
  }));
  const headers = Object.keys(rows[0]!) as (keyof (typeof rows)[0])[];
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => r[h].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`\n${line(headers)}\n${rows.map((r) => line(headers.map((h) => r[h]))).join('\n')}\n\n`);
}

main()
  .catch((error) => {
    if (error instanceof CutoverUsage) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
