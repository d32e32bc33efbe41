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
import { createKey, databaseEnv, serviceBin, startService } from './service.js';

type Instance = Awaited<ReturnType<typeof startService>>;

export interface CutoverServices {
  /** Where the clients and the reads point: the one instance, or the balancer in front of several. */
  readonly base: string;
  readonly database: string;
  readonly key: string;
  readonly pids: () => number[];
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
  const balancer = options.instances > 1 ? await startBalancer(instances.map((i) => i.port)) : null;

  return {
    base: balancer?.base ?? instances[0]!.base,
    database,
    key,
    pids: () => instances.map((i) => i.child.pid!),
    async killAndRestart() {
      const killedAt = performance.now();
      await Promise.all(
        instances.map(async (instance) => {
          meters.read(instance.child.pid!);
          const exited = new Promise((resolve) => instance.child.once('exit', resolve));
          instance.child.kill('SIGKILL');
          await exited;
        }),
      );
      for (let n = 0; n < instances.length; n++) instances[n] = await launch(instances[n]!.port);
      return { downSeconds: (performance.now() - killedAt) / 1000 };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const instance of instances) {
        meters.read(instance.child.pid!);
        await stop(instance.child);
      }
      await balancer?.close();
      await vendor.close();
    },
    drop: async () => pg?.drop(),
  };
}
