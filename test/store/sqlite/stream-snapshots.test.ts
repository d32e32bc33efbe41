import { afterEach, describe, expect, it } from 'vitest';
import { serviceConfigStreamId } from '../../../events/service-config.js';
import { serviceConfigDecider, type ServiceConfigCommand } from '../../../src/domain/service-config/service-config-decider.js';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { GroupCommitRunner } from '../../../src/store/sqlite/group-commit.js';
import { SqliteEventStore } from '../../../src/store/sqlite/sqlite-event-store.js';
import { StreamSnapshots } from '../../../src/store/stream-snapshots.js';
import { tempDatabaseFile } from '../../support/ledger.js';
import { metadata } from '../contract/harness.js';

/**
 * The SQLite store keeps its deciders' states of long streams and
 * folds only what was appended since. A snapshot is a starting point, never
 * the answer: appends made by another connection are folded in, and a state
 * that was rolled back (a failed unit, a dry run) is never kept.
 */

const opened: { database: OpenDatabase; cleanup?: () => void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) {
    o.database.close();
    o.cleanup?.();
  }
});

/** A store on the file with a snapshot kept from the first event on. */
function storeOn(file: string, snapshots = new StreamSnapshots({ minEvents: 1 })): SqliteEventStore {
  const database = openDatabase(file);
  opened.push({ database });
  let n = 0;
  return new SqliteEventStore({
    sqlite: database.sqlite,
    projections: [],
    clock: () => new Date('2026-01-01T00:00:00Z'),
    newId: () => `id-${file}-${++n}-${Math.random()}`,
    runner: new GroupCommitRunner(database.sqlite),
    snapshots,
  });
}

const set = (value: number): ServiceConfigCommand => ({ type: 'SetServiceConfig', key: 'request-rate-per-second', value, now: '2026-01-01T00:00:00Z' });
const handle = (store: SqliteEventStore, value: number, options: { dryRun?: boolean; beforeCommit?: () => void } = {}) =>
  store.handle(serviceConfigStreamId, serviceConfigDecider, set(value), { metadata, ...options });

describe('stream snapshots (SQLite)', () => {
  it('a command folds in what another connection appended after the snapshot', async () => {
    const { file, cleanup } = tempDatabaseFile();
    const snapshots = new StreamSnapshots({ minEvents: 1 });
    const mine = storeOn(file, snapshots);
    opened[0]!.cleanup = cleanup;
    const other = storeOn(file);
    await handle(mine, 1);
    await handle(mine, 2);
    expect(snapshots.size).toBe(1);
    // The other connection sets 5; a stale snapshot (value 2) would append a second "5".
    expect((await handle(other, 5)).streamVersion).toBe(3);
    const again = await handle(mine, 5);
    expect(again.events).toEqual([]);
    expect(again.streamVersion).toBe(3);
    expect(again.state.get('request-rate-per-second')).toBe(5);
  });

  it('a dry run and a unit rolled back leave no state behind', async () => {
    const { file, cleanup } = tempDatabaseFile();
    const store = storeOn(file);
    opened[0]!.cleanup = cleanup;
    await handle(store, 1);
    expect((await handle(store, 7, { dryRun: true })).events).toHaveLength(1);
    await expect(
      handle(store, 8, {
        beforeCommit: () => {
          throw new Error('refused before the commit');
        },
      }),
    ).rejects.toThrow('refused before the commit');
    // Were either state kept, setting 7 or 8 now would be "no change".
    expect((await handle(store, 7)).events).toHaveLength(1);
    expect((await handle(store, 8)).events).toHaveLength(1);
    expect((await handle(store, 8)).streamVersion).toBe(3);
  });

  it('keeps at most maxStreams streams, and none shorter than minEvents', () => {
    const snapshots = new StreamSnapshots({ maxStreams: 2, minEvents: 10 });
    snapshots.remember('a', serviceConfigDecider, { version: 9, state: new Map() });
    expect(snapshots.size).toBe(0);
    for (const stream of ['a', 'b', 'c']) snapshots.remember(stream, serviceConfigDecider, { version: 10, state: new Map() });
    expect(snapshots.size).toBe(2);
    expect(snapshots.get('a', serviceConfigDecider)).toBeUndefined();
    expect(snapshots.get('c', serviceConfigDecider)?.version).toBe(10);
  });
});
