import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../../../events/registry.js';
import { stageAccount } from '../../../src/application/account-import-processes.js';
import type { LogReadOptions } from '../../../src/store/event-log.js';
import type { ContractLedger, LedgerFactory } from './harness.js';
import { payloadFor, seedAccounts } from './seed.js';

/** Plain values of stored events (a replayed event's metadata may be a getter). */
const plain = (events: readonly StoredEvent<LedgerEvent>[]) =>
  events.map((e) => ({ globalPosition: e.globalPosition, streamId: e.streamId, streamPosition: e.streamPosition, event: e.event, metadata: e.metadata, recordedAt: e.recordedAt }));

const withoutPayloads = (events: ReturnType<typeof plain>) =>
  events.map((e) =>
    e.event.type === 'AccountStaged' || e.event.type === 'AccountRestaged' ? { ...e, event: { ...e.event, data: { ...e.event.data, payload: {} } } } : e,
  );

/** The log reader: one consistent snapshot, global order, batches, bulk fields only when asked. */
export function eventLogContract(open: LedgerFactory): void {
  describe('log reader', () => {
    let t: ContractLedger;
    beforeEach(async () => {
      t = await open();
      await seedAccounts(t.ledger, 6);
    });
    afterEach(() => t.close());

    const readAll = async (options: LogReadOptions) => {
      const snapshot = await t.ledger.log.open(options);
      const events: StoredEvent<LedgerEvent>[] = [];
      for await (const batch of snapshot) {
        if (options.batchSize !== undefined && options.limit === undefined) expect(batch.length).toBeLessThanOrEqual(options.batchSize);
        events.push(...batch);
      }
      if (options.count) expect(snapshot.total).toBe(events.length);
      return { events, through: snapshot.through };
    };
    const logged = () => t.ledger.store.readAll(0, 1_000_000);

    it('reads the whole log in global order, the same events readAll and readStream give', async () => {
      const all = await logged();
      const { events, through } = await readAll({ batchSize: 4, count: true });
      expect(plain(events)).toEqual(plain(all));
      expect(through).toBe(await t.ledger.log.lastPosition());
      expect(through).toBe(all[all.length - 1]!.globalPosition);
    });

    it('filters by type, reads after and through a position, and leaves bulk fields out when asked', async () => {
      const types: LedgerEventType[] = ['AccountStaged', 'AccountRestaged', 'AccountProcessed'];
      const all = (await logged()).filter((e) => types.includes(e.event.type));
      expect(plain((await readAll({ types, batchSize: 3, count: true })).events)).toEqual(plain(all));
      expect((await readAll({ types, withBulkFields: false })).events.map((e) => e.event.type)).toEqual(all.map((e) => e.event.type));
      expect(plain((await readAll({ types, withBulkFields: false })).events)).toEqual(withoutPayloads(plain(all)));
      const middle = all[3]!.globalPosition;
      const last = all[6]!.globalPosition;
      const window = await readAll({ types, after: middle, through: last });
      expect(plain(window.events)).toEqual(plain(all.slice(4, 7)));
      expect(window.through).toBe(last);
      expect((await readAll({ types: [] })).events).toEqual([]);
    });

    it('a page (limit) is bounded, in order, whatever the batch size', async () => {
      const all = await logged();
      const page = await readAll({ after: all[1]!.globalPosition, limit: 5, batchSize: 2, count: true });
      expect(plain(page.events)).toEqual(plain(all.slice(2, 7)));
    });

    it('reads only the named streams, in global order, paged (at most limit in all) or whole, with the other filters', async () => {
      const all = await logged();
      const streams = ['account-import-process:LEGACY_ENERGIE:ACC-1', 'account-import-process:LEGACY_ENERGIE:ACC-4', 'no-such-stream'];
      const ofStreams = all.filter((e) => streams.includes(e.streamId));
      expect(new Set(ofStreams.map((e) => e.streamId)).size).toBe(2);
      expect(plain((await readAll({ streams, batchSize: 2, count: true })).events)).toEqual(plain(ofStreams));
      // Pages interleave the streams by global position, whatever each stream's length.
      const pages: StoredEvent<LedgerEvent>[] = [];
      for (let after = 0; ; ) {
        const page = (await readAll({ streams, after, limit: 2 })).events;
        expect(page.length).toBeLessThanOrEqual(2);
        pages.push(...page);
        if (page.length < 2) break;
        after = page[page.length - 1]!.globalPosition;
      }
      expect(plain(pages)).toEqual(plain(ofStreams));
      const types: LedgerEventType[] = ['AccountProcessed', 'AccountTransferStatusChanged'];
      expect(plain((await readAll({ streams, types, limit: 10, withBulkFields: false })).events)).toEqual(
        plain(ofStreams.filter((e) => types.includes(e.event.type))),
      );
      const through = ofStreams[2]!.globalPosition;
      expect(plain((await readAll({ streams, after: ofStreams[0]!.globalPosition, through })).events)).toEqual(plain(ofStreams.slice(1, 3)));
      expect((await readAll({ streams: [] })).events).toEqual([]);
      expect((await readAll({ streams: [], limit: 5 })).events).toEqual([]);
    });

    it('keeps to its snapshot while the log grows, and can be closed early', async () => {
      const snapshot = await t.ledger.log.open({ batchSize: 2 });
      const through = snapshot.through;
      await stageAccount(t.ledger, payloadFor('ACC-LATE', 'WEB'), { actor: 'operator:test', requestId: null });
      const read: number[] = [];
      for await (const batch of snapshot) read.push(...batch.map((e) => e.globalPosition));
      expect(Math.max(...read)).toBe(through);
      expect(await t.ledger.log.lastPosition()).toBeGreaterThan(through);

      const early = await t.ledger.log.open({ batchSize: 2 });
      for await (const batch of early) {
        expect(batch.length).toBeGreaterThan(0);
        break;
      }
      await early.close();
      // The store stays usable: the reader let go of its connection.
      await stageAccount(t.ledger, payloadFor('ACC-LATER', 'WEB'), { actor: 'operator:test', requestId: null });
    });
  });
}
