import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import type { AnyDecider } from '../../../src/domain/decider.js';
import { decidersByName } from '../../../src/domain/deciders.js';
import { importSupplierDecider } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import { StoreUnavailableError } from '../../../src/store/event-store.js';
import type { LedgerStorage } from '../../../src/store/ledger.js';
import { openSqliteLedger } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { TestClock, tempDatabaseFile } from '../../support/ledger.js';
import { withSqlite } from '../../support/sqlite.js';
import { createSupplier, metadata, templateAnswer } from '../contract/harness.js';

/** What only the writer thread has: the contract (test/store/sqlite/contract-writer-thread.test.ts) runs on it too. */
const THREAD = new URL('./template-writer.ts', import.meta.url);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function openThreaded(): Promise<{ storage: LedgerStorage; file: string }> {
  const { file, cleanup } = tempDatabaseFile();
  const clock = new TestClock();
  const storage = await openSqliteLedger(file, { clock: clock.read, newId: randomIds.uuid, rebuildAnswer: templateAnswer, writerThread: THREAD });
  cleanups.push(async () => {
    await storage.close();
    cleanup();
  });
  return { storage, file };
}

describe('the SQLite writer thread', () => {
  it('writes through its own connection: what it committed is read on the service\'s, and durable() holds until it is synced', async () => {
    const { storage, file } = await openThreaded();
    const result = await storage.store.handle(importSupplierStreamId('A'), importSupplierDecider, createSupplier('A'), { metadata });
    expect(result.streamVersion).toBe(1);
    await storage.durable();
    expect(await storage.store.readStream(importSupplierStreamId('A'))).toHaveLength(1);
    withSqlite(file, (sqlite) => expect(sqlite.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual({ n: 1 }));
  });

  it('refuses a decider missing from src/domain/deciders.ts, and a hook that is not a reservation of the thread, writing nothing', async () => {
    const { storage } = await openThreaded();
    const unnamed: AnyDecider = { ...importSupplierDecider };
    await expect(storage.store.handle(importSupplierStreamId('B'), unnamed, createSupplier('B'), { metadata })).rejects.toThrow(/src\/domain\/deciders\.ts/);
    await expect(
      storage.store.handle(importSupplierStreamId('C'), importSupplierDecider, createSupplier('C'), { metadata, beforeCommit: () => undefined }),
    ).rejects.toThrow(/Idempotency-Key reservation/);
    expect(await storage.store.isEmpty()).toBe(true);
  });

  it('names every decider the domain and the application export, so each can be handled by the thread', async () => {
    const registered = new Set(Object.values(decidersByName));
    const missing: string[] = [];
    for (const folder of ['domain', 'application']) {
      const root = new URL(`../../../src/${folder}/`, import.meta.url);
      const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
      for (const file of files) {
        const exported = (await import(new URL(file, root).href)) as Record<string, unknown>;
        for (const [name, value] of Object.entries(exported)) {
          const candidate = value as Partial<AnyDecider> | null;
          const isDecider = typeof candidate?.decide === 'function' && typeof candidate.evolve === 'function' && 'initialState' in candidate;
          if (isDecider && !registered.has(value as AnyDecider)) missing.push(`${folder}/${file}: ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('once the thread has stopped, a write is refused as store_unavailable (a 503 the client retries), not a crash', async () => {
    const { storage } = await openThreaded();
    await storage.close();
    await expect(storage.store.handle(importSupplierStreamId('D'), importSupplierDecider, createSupplier('D'), { metadata })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
