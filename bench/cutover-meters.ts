// What each side of the cut-over costs, read from /proc while it runs: CPU (user + system), the bytes
// written to the disk and the peak RSS of every process of a side (a killed service and the one started
// after it, a killed migrate and its re-run), and what the store holds and wrote.
import { readdirSync, statSync } from 'node:fs';
import { peakRssMb, processCpuMs, processDiskWrittenKb, procStatFields } from './lib.js';

export type Side = 'service' | 'migrate' | 'verify';

interface Reading {
  readonly side: Side;
  cpuMs: number;
  diskWrittenKb: number;
  peakRssMb: number;
  /** What the process had used when the cut-over began (a service's start-up and set-up are not its cost). */
  cpuMsBefore: number;
  diskWrittenKbBefore: number;
}

export interface SideFigures {
  readonly processes: number;
  readonly cpuMs: number;
  readonly diskWrittenKb: number;
  /** The highest peak RSS of the side's processes (each one's VmHWM). */
  readonly peakRssMb: number;
}

/**
 * Every watched process is read every `everyMs` and once more on demand (just before the bench stops or
 * kills it); a process that has exited keeps its last reading. A client's exact CPU at its exit (written by
 * bench/cpu-at-exit.mjs) replaces the sampled one.
 */
export class Meters {
  private readonly readings = new Map<number, Reading>();
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 250) {
    this.timer = setInterval(() => {
      for (const pid of this.readings.keys()) this.read(pid);
    }, everyMs);
  }

  watch(side: Side, pid: number): void {
    this.readings.set(pid, { side, cpuMs: 0, diskWrittenKb: 0, peakRssMb: 0, cpuMsBefore: 0, diskWrittenKbBefore: 0 });
    this.read(pid);
  }

  /** The cut-over begins: what the processes watched so far have used until now is not counted. */
  begin(): void {
    for (const [pid, reading] of this.readings) {
      this.read(pid);
      reading.cpuMsBefore = reading.cpuMs;
      reading.diskWrittenKbBefore = reading.diskWrittenKb;
    }
  }

  /** Reads the process now; false when it is gone (its last reading stands). */
  read(pid: number): boolean {
    const reading = this.readings.get(pid);
    if (!reading) return false;
    try {
      reading.cpuMs = processCpuMs(pid);
      reading.diskWrittenKb = processDiskWrittenKb(pid);
      reading.peakRssMb = Math.max(reading.peakRssMb, peakRssMb(pid) ?? 0);
      return true;
    } catch {
      return false;
    }
  }

  settleCpu(pid: number, cpuMs: number): void {
    const reading = this.readings.get(pid);
    if (reading) reading.cpuMs = cpuMs;
  }

  side(side: Side): SideFigures {
    const of = [...this.readings.values()].filter((r) => r.side === side);
    return {
      processes: of.length,
      cpuMs: of.reduce((sum, r) => sum + r.cpuMs - r.cpuMsBefore, 0),
      diskWrittenKb: of.reduce((sum, r) => sum + r.diskWrittenKb - r.diskWrittenKbBefore, 0),
      peakRssMb: Math.max(0, ...of.map((r) => r.peakRssMb)),
    };
  }

  /** The peak RSS of each process of a side, in the order they were watched. */
  peaks(side: Side): number[] {
    return [...this.readings.values()].filter((r) => r.side === side).map((r) => r.peakRssMb);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Bytes a SQLite database holds: its file, its WAL and the WAL's index. */
export function sqliteStoredBytes(file: string): number {
  return ['', '-wal', '-shm'].reduce((sum, suffix) => {
    try {
      return sum + statSync(`${file}${suffix}`).size;
    } catch {
      return sum;
    }
  }, 0);
}

/**
 * What PostgreSQL wrote, cluster-wide (other databases of the server count too): the WAL's bytes and the
 * pages the checkpointer, the background writer and the backends wrote out, after a checkpoint.
 */
export async function postgresWrittenBytes(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The pages the run dirtied are its writes too: a checkpoint writes them out, and counts them.
    await client.query('CHECKPOINT');
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT ((SELECT wal_bytes FROM pg_stat_wal) +
               (SELECT (buffers_checkpoint + buffers_clean + buffers_backend) * current_setting('block_size')::bigint FROM pg_stat_bgwriter))::bigint AS bytes`,
    );
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

export async function postgresStoredBytes(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

/**
 * The CPU PostgreSQL's server has used so far, cluster-wide (other databases' work counts too), when it runs
 * on this machine (else null): its postmaster's, and every process it started, the ended ones included (a
 * backend that ended is its parent's children time). A backend's CPU is spent for the service's writes and
 * reads, outside the service's processes.
 */
export async function postgresCpuMs(url: string): Promise<number | null> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const postmaster = Number(procStatFields(rows[0]!.pid)[1]);
    const own = procStatFields(postmaster);
    let ms = processCpuMs(postmaster) + ((Number(own[13]) + Number(own[14])) * 1000) / 100;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (Number(procStatFields(entry)[1]) === postmaster) ms += processCpuMs(entry);
      } catch {
        // ended meanwhile: counted in the postmaster's children time from now on
      }
    }
    return ms;
  } catch {
    return null; // another machine's server (its backends are not in this /proc)
  } finally {
    await client.end();
  }
}
