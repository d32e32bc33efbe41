// The service as the benchmarks run it (the bundle `npm start` runs, in production mode, metrics on), its API
// keys and tokens, and the reads polled beside a load: shared by bench/run.ts and bench/cutover.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, root, run, start } from './lib.js';

/** The service runs as `npm start` runs it: bundled (scripts/build.mjs), without the TypeScript loader. */
export const serviceBin = join(root, 'dist/import-ledger.mjs');

/** The environment that points the service and the CLI at a database: a SQLite file, or a postgres:// URL. */
export const databaseEnv = (database: string) => (database.startsWith('postgres') ? { LEDGER_DATABASE_URL: database } : { LEDGER_DATABASE: database });

export interface StartOptions {
  /** The metrics' port: a free one when not given; null, metrics off. */
  readonly metricsPort?: number | null;
  /** The port to listen on (a service started again where its clients point): a free one when not given. */
  readonly port?: number;
  readonly env?: Record<string, string>;
}

/** The service as it runs in production: with its metrics on (LEDGER_METRICS_PORT), unless `metricsPort` is null. */
export async function startService(database: string, options: StartOptions = {}) {
  const port = options.port ?? (await freePort());
  const metrics = options.metricsPort === undefined ? await freePort() : options.metricsPort;
  const env = {
    ...options.env,
    ...databaseEnv(database),
    PORT: String(port),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ...(metrics === null ? {} : { LEDGER_METRICS_PORT: String(metrics) }),
  };
  // BENCH_SERVICE_PROFILE=<dir>: the service writes a CPU profile there when it stops (a developer's aid).
  const profileDir = process.env['BENCH_SERVICE_PROFILE'];
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const startedAt = performance.now();
  const child = await start(process.execPath, [...profile, serviceBin, 'serve'], env);
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const res = await fetch(`${base}/healthz`).catch(() => null);
    if (res?.ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, base, port, metricsPort: metrics, startupMs: Math.round(performance.now() - startedAt) };
}

/** What one kind of the service's garbage collections paused its main thread for (counted since it started). */
export interface GcPauses {
  readonly pauses: number;
  /** The pauses longer than 10 ms: each one a read's wait at least that long. */
  readonly over10Ms: number;
  readonly ms: number;
}

/** The service's event loop since the last scrape (perf_hooks' monitorEventLoopDelay), and its GC pauses by kind, in ms. */
export interface ServiceLoop {
  readonly delayMaxMs: number;
  readonly delayP99Ms: number;
  readonly gc: Readonly<Record<string, GcPauses>>;
}

/**
 * Reads the service's /metrics (prom-client's default metrics): the event loop's delays, which the scrape
 * resets, and the GC pauses (nodejs_gc_duration_seconds, by kind: minor, major, incremental, weakcb).
 */
export async function readServiceLoop(metricsPort: number): Promise<ServiceLoop> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const ms = (seconds: number) => Math.round(seconds * 10_000) / 10;
  const value = (name: string, labels = '') => Number(new RegExp(`^${name}${labels.replaceAll(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const kinds = [...text.matchAll(/^nodejs_gc_duration_seconds_count\{kind="(\w+)"\}/gm)].map((match) => match[1]!);
  const gc = Object.fromEntries(
    kinds.map((kind) => {
      const pauses = value('nodejs_gc_duration_seconds_count', `{kind="${kind}"}`);
      const upTo10Ms = value('nodejs_gc_duration_seconds_bucket', `{le="0.01",kind="${kind}"}`);
      return [kind, { pauses, over10Ms: pauses - upTo10Ms, ms: ms(value('nodejs_gc_duration_seconds_sum', `{kind="${kind}"}`)) }];
    }),
  );
  return { delayMaxMs: ms(value('nodejs_eventloop_lag_max_seconds')), delayP99Ms: ms(value('nodejs_eventloop_lag_p99_seconds')), gc };
}

/** A new API key scoped to BENCH, made by the operator's command line on the database. */
export async function createKey(database: string): Promise<string> {
  return (await run(process.execPath, [serviceBin, 'api-key', 'create', '--supplier', 'BENCH'], { ...databaseEnv(database), NODE_ENV: 'production' })).trim();
}

export async function obtainToken(base: string, key: string): Promise<string> {
  const res = await fetch(`${base}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
  });
  const body = (await res.json()) as { data: { obtainToken: { token: string } } };
  return body.data.obtainToken.token;
}

export const keyToken = async (base: string, database: string): Promise<string> => obtainToken(base, await createKey(database));

/** A token for a new key scoped to BENCH, and the example products the accounts' agreements name. */
export async function tokenFor(base: string, database: string): Promise<string> {
  const token = await keyToken(base, database);
  const res = await fetch(`${base}/v1/data-import/products/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
    body: readFileSync(join(root, 'test/fixtures/examples/products.json'), 'utf8'),
  });
  if (res.status !== 201) throw new Error(`creating the example products failed: ${res.status} ${await res.text()}`);
  return token;
}

export interface PollOptions {
  readonly paths: readonly string[];
  readonly everyMs: number;
  /** The answers that count as read (any other fails the bench); 2xx when not given. */
  readonly answered?: (status: number) => boolean;
  /** A service that is down (killed, starting again) is waited for, not a failure: those reads are counted apart. */
  readonly tolerateDown?: boolean;
  /** A new token when one is refused (a run longer than a token's life). */
  readonly renew?: () => Promise<Record<string, string>>;
}

/**
 * Reads asked one after another every `everyMs` while a load runs: the worst answer time of each path is
 * what a reader waits behind the writes.
 */
export function pollReads(base: string, auth: Record<string, string>, options: PollOptions) {
  const worst = new Map<string, number>(options.paths.map((path) => [path, 0]));
  let polls = 0;
  let unanswered = 0;
  let headers = auth;
  let stopped = false;
  const answered = options.answered ?? ((status: number) => status >= 200 && status < 300);
  const loop = (async () => {
    while (!stopped) {
      for (const path of options.paths) {
        const started = performance.now();
        const res = await fetch(`${base}${path}`, { headers }).catch((error: unknown) => {
          if (options.tolerateDown) return null;
          throw error;
        });
        if (!res) {
          unanswered++;
          continue;
        }
        await res.arrayBuffer();
        const ms = performance.now() - started;
        if (res.status === 401 && options.renew) {
          headers = await options.renew();
          continue;
        }
        if (res.status === 503 && options.tolerateDown) {
          unanswered++;
          continue;
        }
        if (!answered(res.status)) throw new Error(`${path} answered ${res.status} during the load`);
        if (ms > worst.get(path)!) worst.set(path, ms);
      }
      polls++;
      await new Promise((r) => setTimeout(r, options.everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const byPath = Object.fromEntries([...worst].map(([path, ms]) => [path, Math.round(ms * 10) / 10]));
      const [worstPath, worstMs] = [...worst].reduce((a, b) => (b[1] > a[1] ? b : a));
      return { worstMs: Math.round(worstMs * 10) / 10, worstPath, byPath, polls, unanswered };
    },
  };
}
