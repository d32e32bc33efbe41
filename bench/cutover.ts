// The cut-over bench (`npm run bench -- --only=cutover --accounts=N`): a supplier's whole folder migrated by
// `import-ledger migrate` and proven by `import-ledger verify` against the real service, with what each side
// costs. The supplier's first export has a few broken accounts (migrate exits 1 naming exactly those); the
// corrected folder is migrated again (the journal skips what is settled) and verify must then find the
// folder and the service in agreement (exit 0), and the store must hold each record once.
import { loadavg, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { journalReaches, reportLines, runClient, type ClientResult } from './cutover-clients.js';
import { correctAccounts, ext, SUPPLIER, writeFolder, type FolderCounts } from './cutover-folder.js';
import { Meters, postgresCpuMs, postgresStoredBytes, postgresWrittenBytes, sqliteStoredBytes } from './cutover-meters.js';
import { startServices, type ServicesLoop } from './cutover-services.js';
import { storeCounts, storeDifferences, type StoreCounts } from './cutover-store.js';
import { MIGRATE_CONCURRENCY } from '../src/cli/migrate-command.js';
import { root } from './lib.js';
import { obtainToken, pollReads } from './service.js';

export interface CutoverOptions {
  readonly accounts: number;
  readonly store: 'sqlite' | 'postgres';
  readonly instances: number;
  readonly kill: 'service' | 'client' | null;
  readonly concurrency: number;
  readonly pgServer: string;
}

export class CutoverUsage extends Error {}

/** The cut-over's options from the bench's command line; a bad one is a CutoverUsage (exit 2, one line). */
export function parseCutoverOptions(argv: readonly string[], pgServer: string): CutoverOptions {
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const whole = (name: string, fallback: number, least: number) => {
    const text = value(name);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(n) || n < least) throw new CutoverUsage(`--${name} takes a whole number, at least ${least} (got ${text})`);
    return n;
  };
  const store = value('store') ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') throw new CutoverUsage(`--store is sqlite or postgres (got ${store})`);
  const kill = value('kill') ?? null;
  if (kill !== null && kill !== 'service' && kill !== 'client') throw new CutoverUsage(`--kill is service or client (got ${kill})`);
  const instances = whole('instances', 1, 1);
  if (store === 'sqlite' && instances > 1) throw new CutoverUsage('--instances above 1 needs --store=postgres (one SQLite file has one writer)');
  return { accounts: whole('accounts', 10_000, 100), store, instances, kill, concurrency: whole('concurrency', MIGRATE_CONCURRENCY, 1), pgServer };
}

export interface CutoverFigures {
  readonly date: string;
  readonly options: Omit<CutoverOptions, 'pgServer'>;
  /** The machine's load average (1, 5, 15 min) at the start and at the end: the figures' noise. */
  readonly load: { readonly atStart: number[]; readonly atEnd: number[] };
  readonly folder: FolderCounts & { readonly writeSeconds: number };
  readonly migrateRuns: readonly { readonly code: number | null; readonly signal: string | null; readonly seconds: number; readonly failed: number }[];
  readonly verify: { readonly code: number | null; readonly seconds: number; readonly differences: number; readonly extra: number };
  readonly accountsPerSecond: number;
  readonly hoursForAMillion: number;
  /** PostgreSQL's: its server's, cluster-wide, when it runs on this machine. */
  readonly cpuMsPerAccount: { readonly service: number; readonly postgres: number | null; readonly migrate: number; readonly verify: number };
  readonly peakRssMb: { readonly service: number[]; readonly migrate: number[]; readonly verify: number[] };
  /** write_bytes of the service's processes; PostgreSQL's own (cluster-wide) apart. */
  readonly diskWrittenKbPerAccount: { readonly service: number; readonly postgres: number | null };
  readonly storedKbPerAccount: number;
  readonly worstReadMs: { readonly status: number; readonly progress: number; readonly polls: number; readonly unanswered: number };
  /** What held the services' event loops: their longest delay, and their GC pauses (what a worst read waits behind). */
  readonly serviceLoop: ServicesLoop;
  readonly kill: { readonly atSettledAccounts: number; readonly serviceDownSeconds: number | null } | null;
  readonly store: StoreCounts;
  readonly storeDifferences: [string, number, number][];
  readonly passed: boolean;
  readonly problems: string[];
}

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;
const failedOf = (r: ClientResult) => ((r.summary?.['summary'] as { byOutcome?: Record<string, number> } | undefined)?.byOutcome?.['failed'] ?? 0);

export async function runCutover(options: CutoverOptions, progress: (line: string) => void): Promise<CutoverFigures> {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-bench-cutover-'));
  const meters = new Meters();
  const problems: string[] = [];
  /** The report lines of what went wrong, kept past the temporary folder (bench/results/cutover-failures.ndjson). */
  const kept: string[] = [];
  const atStart = loadavg().map((l) => round(l));
  const dir = join(work, 'folder');
  let services: Awaited<ReturnType<typeof startServices>> | null = null;
  try {
    progress(`cut-over: writing the folder of ${options.accounts.toLocaleString()} accounts ...`);
    const writeStarted = performance.now();
    const folder = { ...(await writeFolder(dir, options.accounts)), writeSeconds: round((performance.now() - writeStarted) / 1000, 1) };
    progress(
      `  ${(folder.bytes / 1e6).toFixed(0)} MB in ${folder.writeSeconds} s: ${folder.businessAccounts.toLocaleString()} business accounts of ${folder.businesses.toLocaleString()} businesses, ` +
        `${folder.brokenAccounts.toLocaleString()} broken, ${folder.paymentInstructions.toLocaleString()} payment instructions`,
    );
    services = await startServices({ store: options.store, instances: options.instances, work, pgServer: options.pgServer }, meters);
    const { base, key, database } = services;
    const postgresWrittenBefore = database.startsWith('postgres') ? await postgresWrittenBytes(database) : null;
    const postgresCpuBefore = database.startsWith('postgres') ? await postgresCpuMs(database) : null;
    const auth = async () => ({ authorization: `Token ${await obtainToken(base, key)}` });
    const reads = pollReads(base, await auth(), {
      paths: [`/v2/data-import/accounts/${SUPPLIER}/${ext(0)}/`, `/v1/data-import/import-progress/${SUPPLIER}/`],
      everyMs: 1_000,
      // The first account's status is 404 until it is staged.
      answered: (status) => status === 200 || status === 404,
      tolerateDown: options.kill === 'service',
      renew: auth,
    });

    const report = join(work, 'migrate.ndjson');
    const migrateArgs = [dir, '--url', base, '--supplier', SUPPLIER, '--team', 'Migrations', '--concurrency', String(options.concurrency), '--report', report];
    const env = { LEDGER_API_KEY: key };
    const runs: ClientResult[] = [];
    const migrate = () => runClient('migrate', migrateArgs, env, meters, join(work, `migrate-cpu-${runs.length + 1}.json`), progress);

    progress(`  migrate (${options.store}${options.instances > 1 ? `, ${options.instances} instances` : ''}, --concurrency ${options.concurrency}) ...`);
    meters.begin();
    await services.begin();
    const first = migrate();
    let kill: CutoverFigures['kill'] = null;
    if (options.kill) {
      let over = false;
      void first.done.then(() => (over = true));
      const half = Math.ceil(options.accounts / 2);
      if (await journalReaches(`${report}.journal.ndjson`, half, () => over)) {
        if (options.kill === 'client') {
          meters.read(first.child.pid!);
          first.child.kill('SIGKILL');
          kill = { atSettledAccounts: half, serviceDownSeconds: null };
          progress(`  SIGKILL sent to migrate at ${half.toLocaleString()} settled accounts; running it again`);
        } else {
          const { downSeconds } = await services.killAndRestart();
          kill = { atSettledAccounts: half, serviceDownSeconds: round(downSeconds, 1) };
          progress(`  SIGKILL sent to the service at ${half.toLocaleString()} settled accounts; started again in ${downSeconds.toFixed(1)} s`);
        }
      } else problems.push(`migrate ended before half the accounts were settled: nothing was killed`);
    }
    runs.push(await first.done);
    if (options.kill === 'client' && runs[0]!.signal === 'SIGKILL') runs.push(await migrate().done);
    const firstExport = runs[runs.length - 1]!;
    const expectedCode = folder.brokenAccounts > 0 ? 1 : 0;
    if (firstExport.code !== expectedCode || failedOf(firstExport) !== folder.brokenAccounts) {
      kept.push(...(await reportLines(report, (line) => line.includes('"outcome":"failed"') && !line.includes('"account_failed_validation"'))));
      problems.push(`migrate of the first export exited ${firstExport.code} with ${failedOf(firstExport)} failed items (expected ${expectedCode}, ${folder.brokenAccounts}: the broken accounts): ${JSON.stringify(firstExport.summary)} ${firstExport.stderrTail.slice(-1000)}`);
    }

    progress('  the supplier corrects its broken accounts; migrate again ...');
    await correctAccounts(dir, options.accounts);
    const corrected = await migrate().done;
    runs.push(corrected);
    if (corrected.code !== 0) {
      kept.push(...(await reportLines(report, (line) => line.includes('"outcome":"failed"'))));
      problems.push(`migrate of the corrected folder exited ${corrected.code}: ${JSON.stringify(corrected.summary)} ${corrected.stderrTail.slice(-1000)}`);
    }

    progress('  verify ...');
    const verified = await runClient('verify', [dir, '--url', base, '--supplier', SUPPLIER, '--concurrency', String(options.concurrency), '--report', join(work, 'verify.ndjson')], env, meters, join(work, 'verify-cpu.json'), progress).done;
    const summary = (verified.summary?.['summary'] ?? {}) as Record<string, { missing: number; extra: number; different: number }>;
    const extra = Object.values(summary).reduce((n, k) => n + k.extra, 0);
    const differences = Object.values(summary).reduce((n, k) => n + k.missing + k.extra + k.different, 0);
    if (verified.code !== 0) {
      kept.push(...(await reportLines(join(work, 'verify.ndjson'), () => true)));
      problems.push(`verify exited ${verified.code}: ${JSON.stringify(verified.summary)} ${verified.stderrTail.slice(-1000)}`);
    }

    const polled = await reads.stop();
    await services.stop();
    const postgresCpuAfter = postgresCpuBefore === null ? null : await postgresCpuMs(database);
    const postgresWritten = postgresWrittenBefore === null ? null : (await postgresWrittenBytes(database)) - postgresWrittenBefore;
    const storedBytes = database.startsWith('postgres') ? await postgresStoredBytes(database) : sqliteStoredBytes(database);
    const store = await storeCounts(database, SUPPLIER);
    const storeDiff = storeDifferences(store, folder);
    if (storeDiff.length > 0) problems.push(`the store does not hold what the folder holds: ${storeDiff.map(([k, held, want]) => `${k} ${held} (folder ${want})`).join(', ')}`);
    await services.drop();

    if (kept.length > 0) {
      const file = join(root, 'bench/results/cutover-failures.ndjson');
      mkdirSync(join(root, 'bench/results'), { recursive: true });
      writeFileSync(file, `${kept.join('\n')}\n`);
      problems.push(`the unexpected failures of the migrate reports and verify's differences (the first 1,000 of each) are in ${file}`);
    }
    const perAccount = (n: number) => round(n / options.accounts, 3);
    const clientSeconds = runs.reduce((s, r) => s + r.seconds, 0) + verified.seconds;
    const accountsPerSecond = options.accounts / clientSeconds;
    const service = meters.side('service');
    return {
      date: new Date().toISOString(),
      options: { accounts: options.accounts, store: options.store, instances: options.instances, kill: options.kill, concurrency: options.concurrency },
      load: { atStart, atEnd: loadavg().map((l) => round(l)) },
      folder,
      migrateRuns: runs.map((r) => ({ code: r.code, signal: r.signal, seconds: round(r.seconds, 1), failed: failedOf(r) })),
      verify: { code: verified.code, seconds: round(verified.seconds, 1), differences, extra },
      accountsPerSecond: round(accountsPerSecond, 1),
      hoursForAMillion: round(1_000_000 / accountsPerSecond / 3600),
      cpuMsPerAccount: {
        service: perAccount(service.cpuMs),
        postgres: postgresCpuBefore === null || postgresCpuAfter === null ? null : perAccount(postgresCpuAfter - postgresCpuBefore),
        migrate: perAccount(meters.side('migrate').cpuMs),
        verify: perAccount(meters.side('verify').cpuMs),
      },
      peakRssMb: { service: meters.peaks('service'), migrate: meters.peaks('migrate'), verify: meters.peaks('verify') },
      diskWrittenKbPerAccount: { service: perAccount(service.diskWrittenKb), postgres: postgresWritten === null ? null : perAccount(postgresWritten / 1024) },
      storedKbPerAccount: perAccount(storedBytes / 1024),
      worstReadMs: {
        status: polled.byPath[`/v2/data-import/accounts/${SUPPLIER}/${ext(0)}/`] ?? 0,
        progress: polled.byPath[`/v1/data-import/import-progress/${SUPPLIER}/`] ?? 0,
        polls: polled.polls,
        unanswered: polled.unanswered,
      },
      serviceLoop: services.loop(),
      kill,
      store,
      storeDifferences: storeDiff,
      passed: problems.length === 0,
      problems,
    };
  } finally {
    meters.stop();
    await services?.stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}
