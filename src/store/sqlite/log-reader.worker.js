// Reads the event log on its own read-only connection and snapshot, in a worker thread, so that
// reading overlaps with applying on the other core (projection rebuilds). SQLite serialises each
// batch to one JSON text (json() checks every stored data text is JSON), which the main thread
// parses with one JSON.parse and validates event by event. See log-reader.ts for the protocol.
// Plain JavaScript: worker threads load it without the TypeScript loader.
import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, after: start, through: upTo, types, streams, count, withBulk, batchSize, maxAhead, shared, port } = workerData;
const counters = new Int32Array(shared); // [messages posted, batches consumed]
let posted = 0;

function post(message) {
  port.postMessage(message);
  posted++;
  Atomics.store(counters, 0, posted);
  Atomics.notify(counters, 0);
}

let db;
try {
  db = new Database(file, { readonly: true, fileMustExist: true });
  db.exec('BEGIN'); // one snapshot for the whole read
  const last = db.prepare('SELECT MAX(global_position) AS p FROM events').get().p ?? 0;
  const through = upTo === null ? last : Math.min(upTo, last);
  const filter =
    (types === null ? '' : ` AND +type IN (${types.map(() => '?').join(', ')})`) +
    (streams === null ? '' : ` AND stream_id IN (${streams.map(() => '?').join(', ')})`);
  const values = [...(types ?? []), ...(streams ?? [])];
  const total = count
    ? db.prepare(`SELECT COUNT(*) AS n FROM events WHERE global_position > ? AND global_position <= ?${filter.replace('+type', 'type')}`).get(start, through, ...values).n
    : null;
  post({ kind: 'snapshot', through, total });
  const batch = db.prepare(
    `SELECT json_group_array(json_array(global_position, stream_id, stream_position, type, schema_version, json(data),
              ${withBulk ? 'json(bulk)' : 'NULL'}, metadata, recorded_at) ORDER BY global_position) AS events,
            MAX(global_position) AS last, COUNT(*) AS n
       FROM (SELECT global_position, stream_id, stream_position, type, schema_version, data, metadata, recorded_at${withBulk ? ', bulk' : ''}
               FROM events WHERE global_position > ? AND global_position <= ?${filter} ORDER BY global_position LIMIT ?)`,
  );
  let after = start;
  for (;;) {
    // Never more than `maxAhead` batches waiting for the main thread: memory stays flat.
    for (;;) {
      const consumed = Atomics.load(counters, 1);
      if (posted - 1 - consumed < maxAhead) break;
      Atomics.wait(counters, 1, consumed, 1000);
    }
    const row = batch.get(after, through, ...values, batchSize);
    if (row.n === 0) break;
    post({ kind: 'batch', events: row.events });
    after = row.last;
  }
  post({ kind: 'end' });
} catch (error) {
  post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
} finally {
  try {
    db?.close();
  } catch {
    // closing a connection that failed to open
  }
  port.close();
}
