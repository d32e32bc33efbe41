import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { packageRoot } from '../../package-root.js';

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the request path: the writing connection stops checkpointing and a worker
 * thread runs PASSIVE ones every `intervalMs`, truncating the WAL past `truncateAboveBytes`. If the worker
 * dies, automatic checkpoints come back so the WAL never grows without bound.
 */
export function startWalCheckpointer(
  sqlite: Database.Database,
  logger: Logger,
  options: {
    intervalMs?: number;
    truncateAboveBytes?: number;
    /** Sets the writing connection's automatic checkpoints (`sqlite`'s own unless the writes run in the writer thread). */
    autoCheckpoint?: (pages: number) => void;
  } = {},
): WalCheckpointer {
  const autoCheckpoint = options.autoCheckpoint ?? ((pages: number) => sqlite.pragma(`wal_autocheckpoint = ${pages}`));
  const worker = new Worker(join(packageRoot(), 'src/store/sqlite/wal-checkpointer.worker.js'), {
    workerData: {
      file: sqlite.name,
      intervalMs: options.intervalMs ?? 250,
      truncateAboveBytes: options.truncateAboveBytes ?? 64 * 1024 * 1024,
    },
  });
  autoCheckpoint(0);
  let stopping = false;
  worker.on('message', (message: { type: string; message?: string }) => {
    if (message.type === 'error') logger.warn({ err: message.message }, 'WAL checkpoint failed');
  });
  worker.on('error', (error) => logger.error({ err: error }, 'WAL checkpointer crashed'));
  worker.on('exit', () => {
    if (stopping) return;
    logger.warn('WAL checkpointer stopped: automatic checkpoints are back on the request path');
    autoCheckpoint(1000);
  });
  worker.unref();
  return {
    stop: async () => {
      stopping = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
      autoCheckpoint(1000);
    },
  };
}
