// Runs WAL checkpoints on its own connection in a worker thread, so that the
// request path never pays for copying WAL pages into the database file.
// Plain JavaScript: worker threads load it without the TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, truncateAboveBytes } = workerData;
const db = new Database(file);
db.pragma('busy_timeout = 5000');
let stopped = false;

function checkpoint() {
  if (stopped) return;
  try {
    // PASSIVE never waits for readers or writers: it copies what it can.
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    const walBytes = result.log * db.pragma('page_size', { simple: true });
    // Past the bound, a TRUNCATE checkpoint resets the WAL file (it waits for readers, briefly).
    if (walBytes > truncateAboveBytes) {
      const [truncated] = db.pragma('wal_checkpoint(TRUNCATE)');
      // The first write after a reset writes a new WAL header and fsyncs it, at any `synchronous` but OFF: on
      // the service's connection that sync blocked the event loop, 40-60 ms on a busy disk. A write that
      // changes nothing (user_version set to itself) begins the WAL here instead, and this thread waits.
      if (truncated.busy === 0 && truncated.log === 0) db.pragma(`user_version = ${db.pragma('user_version', { simple: true })}`);
    }
    parentPort.postMessage({ type: 'checkpoint', walFrames: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
  setTimeout(checkpoint, intervalMs);
}

parentPort.on('message', (message) => {
  if (message === 'stop') {
    stopped = true;
    db.close();
    parentPort.close();
  }
});
setTimeout(checkpoint, intervalMs);
