// The service side of the cut-over bench: K instances of the bundled service on one database (a SQLite
// file, or a new PostgreSQL database), behind the bench's round-robin balancer when there are several,
// the fake payment vendor they ask, and the supplier BENCH with its team and a key. A killed instance is
// started again on the same database and port, where the clients point.
import { join } from 'node:path';
import { startBalancer } from './cutover-balancer.js';
import { SUPPLIER, VENDOR } from './cutover-folder.js';
import type { Meters } from './cutover-meters.js';
import { startVendor } from './cutover-vendor.js';
import { freshPostgresDatabase, run, stop } from './lib.js';
import { createKey, databaseEnv, readServiceLoop, serviceBin, startService, type GcPauses, type ServiceLoop } from './service.js';

type Instance = Awaited<ReturnType<typeof startService>>;

/** The services' event loops over the cut-over: the longest delay and the highest p99 of an instance, and the GC pauses of all, by kind. */
export interface ServicesLoop {
  readonly delayMaxMs: number;
  readonly delayP99Ms: number;
  readonly gc: Readonly<Record<string, GcPauses>>;
}

/** An instance's life from the cut-over's start (or its restart): its first reading, and its last. */
interface Life {
  readonly metricsPort: number;
  readonly since: ServiceLoop;
  until: ServiceLoop | null;
}

export interface CutoverServices {
  /** Where the clients and the reads point: the one instance, or the balancer in front of several. */
  readonly base: string;
  readonly database: string;
  readonly key: string;
  readonly pids: () => number[];
  /** The cut-over begins: what the instances' event loops and GC did until now is not counted. */
  begin(): Promise<void>;
  /** What the event loops and GC did since `begin` (every life of every instance, read before its kill or stop). */
  loop(): ServicesLoop;
  /** SIGKILLs every instance (read by the meters just before) and starts each again on its port. */
  killAndRestart(): Promise<{ downSeconds: number }>;
  stop(): Promise<void>;
  /** Drops the PostgreSQL database (a SQLite file goes with the bench's temporary folder). */
  drop(): Promise<void>;
}

export async function startServices(
  options: { readonly store: 'sqlite' | 'postgres'; readonly instances: number; readonly work: string; readonly pgServer: string },
  meters: Meters,
): Promise<CutoverServices> {
  const vendor = await startVendor();
  const env = { LEDGER_PAYMENT_VENDORS: `${VENDOR}=${vendor.url},GOCARDLESS=${vendor.url}` };
  const pg = options.store === 'postgres' ? await freshPostgresDatabase(options.pgServer, 'ledger_bench_cutover') : null;
  const database = pg ? pg.url : join(options.work, 'ledger.db');
  const cli = (...args: string[]) => run(process.execPath, [serviceBin, ...args], { ...databaseEnv(database), NODE_ENV: 'production' });

  const instances: Instance[] = [];
  const launch = async (port?: number) => {
    const instance = await startService(database, { env, ...(port === undefined ? {} : { port }) });
    meters.watch('service', instance.child.pid!);
    return instance;
  };
  // The first instance creates the schema; the supplier and its team go in before the others start.
  instances.push(await launch());
  await cli('supplier', 'create', SUPPLIER);
  await cli('team', 'create', 'Migrations');
  const key = await createKey(database);
  for (let n = 1; n < options.instances; n++) instances.push(await launch());
  let stopped = false;
  const lives = new Map<Instance, Life>();
  const begin = async (instance: Instance) => {
    lives.set(instance, { metricsPort: instance.metricsPort!, since: await readServiceLoop(instance.metricsPort!), until: null });
  };
  const end = async (instance: Instance) => {
    const life = lives.get(instance);
    if (life) life.until = await readServiceLoop(life.metricsPort);
  };
  const ended: Life[] = [];
  const balancer = options.instances > 1 ? await startBalancer(instances.map((i) => i.port)) : null;

  return {
    base: balancer?.base ?? instances[0]!.base,
    database,
    key,
    pids: () => instances.map((i) => i.child.pid!),
    begin: async () => {
      await Promise.all(instances.map(begin));
    },
    loop: () => servicesLoop([...ended, ...lives.values()]),
    async killAndRestart() {
      const killedAt = performance.now();
      await Promise.all(
        instances.map(async (instance) => {
          meters.read(instance.child.pid!);
          await end(instance);
          const exited = new Promise((resolve) => instance.child.once('exit', resolve));
          instance.child.kill('SIGKILL');
          await exited;
        }),
      );
      for (let n = 0; n < instances.length; n++) {
        const killed = instances[n]!;
        instances[n] = await launch(killed.port);
        const life = lives.get(killed);
        if (life) ended.push(life);
        lives.delete(killed);
        await begin(instances[n]!);
      }
      return { downSeconds: (performance.now() - killedAt) / 1000 };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const instance of instances) {
        meters.read(instance.child.pid!);
        await end(instance).catch(() => undefined);
        await stop(instance.child);
      }
      await balancer?.close();
      await vendor.close();
    },
    drop: async () => pg?.drop(),
  };
}

/** The lives' delays and pauses together: a life never read at its end (its instance failed) counts nothing. */
function servicesLoop(lives: readonly Life[]): ServicesLoop {
  const read = lives.filter((life) => life.until !== null);
  const gc: Record<string, GcPauses> = {};
  for (const { since, until } of read) {
    for (const [kind, pauses] of Object.entries(until!.gc)) {
      const before = since.gc[kind] ?? { pauses: 0, over10Ms: 0, ms: 0 };
      const sum = gc[kind] ?? { pauses: 0, over10Ms: 0, ms: 0 };
      gc[kind] = { pauses: sum.pauses + pauses.pauses - before.pauses, over10Ms: sum.over10Ms + pauses.over10Ms - before.over10Ms, ms: Math.round((sum.ms + pauses.ms - before.ms) * 10) / 10 };
    }
  }
  return {
    delayMaxMs: Math.max(0, ...read.map((life) => life.until!.delayMaxMs)),
    delayP99Ms: Math.max(0, ...read.map((life) => life.until!.delayP99Ms)),
    gc,
  };
}
