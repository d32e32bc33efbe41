import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const root = new URL('..', import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Peak resident set size of a process (VmHWM), in MB. */
export function peakRssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * A process's /proc/PID/stat fields after "pid (comm) ": state is field 0, ppid 1, utime 11, stime 12, and its
 * ended children's cutime 13, cstime 14 (clock ticks, 100 a second).
 */
export const procStatFields = (pid: number | string): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** User + system CPU of a process (every thread, the thread pool's fdatasync included), in ms: /proc/PID/stat. */
export function processCpuMs(pid: number | string): number {
  const fields = procStatFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * KB a process has handed to write(2) and its kin so far (every thread: the WAL's frames, the checkpoints'
 * pages, sockets, logs): `wchar` of /proc/PID/io. Unlike CPU time or a rate it hardly depends on how busy
 * the machine is, so a change in what a request writes shows through this machine's noise.
 */
export function processWrittenKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, 'utf8').split('\n').find((l) => l.startsWith('wchar:'));
  return Number(line?.slice('wchar:'.length).trim() ?? 0) / 1024;
}

/**
 * Node flags for a client the benches start (migrate, verify): BENCH_CLIENT_PROFILE=<dir> has it write a CPU
 * profile there (node --cpu-prof), BENCH_CLIENT_FLAGS="--flag ..." passes node flags (V8's tiers, its heap).
 */
export function clientNodeFlags(): string[] {
  const profileDir = process.env['BENCH_CLIENT_PROFILE'];
  return [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(process.env['BENCH_CLIENT_FLAGS']?.split(' ').filter(Boolean) ?? [])];
}

/** Spawns a child and resolves once its output matches `readyPattern` (or at once when none is given). */
export function start(command: string, args: string[], env: NodeJS.ProcessEnv, readyPattern?: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    if (!readyPattern) {
      child.stdout?.resume();
      child.stderr?.on('data', (chunk: Buffer) => (seen = (seen + chunk.toString()).slice(-4000)));
      child.once('exit', (code) => {
        if (code !== 0 && code !== null) process.stderr.write(`${command} exited ${code}: ${seen}\n`);
      });
      resolve(child);
      return;
    }
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (readyPattern.test(seen)) {
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${seen.slice(-2000)}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')}: ${err}`))));
  });
}

/** A new, empty PostgreSQL database on `server` for one scenario (the service creates its tables); dropped at the end. */
export async function freshPostgresDatabase(server: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: server });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** The median of some figures (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A transactions/create/ body: ten transactions of one account (payments and charges), their ids unique to request `i`. */
export const tenTransactions = (importSupplier: string, externalAccountNumber: string, i: number) => ({
  import_supplier: importSupplier,
  external_account_number: externalAccountNumber,
  transactions: Array.from({ length: 10 }, (_, n) => ({
    transaction_id: `TX-${i}-${n}`,
    transaction_date: '2025-07-15',
    amount: 12.34 + n,
    type: n % 3 === 0 ? 'PAYMENT' : 'CHARGE',
    ...(n % 3 === 0 ? {} : { reason: 'IMPORTED_CHARGE' }),
  })),
});

/**
 * KB a process has caused to be written to the disk so far (every thread): `write_bytes` of /proc/PID/io,
 * the pages it dirtied as the block layer counts them, where `wchar` counts every write(2) (sockets too).
 */
export function processDiskWrittenKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, 'utf8').split('\n').find((l) => l.startsWith('write_bytes:'));
  return Number(line?.slice('write_bytes:'.length).trim() ?? 0) / 1024;
}
