import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../events/import-supplier.js';
import { DomainError } from '../../src/domain/errors.js';
import { importSupplierDecider } from '../../src/domain/import-supplier/import-supplier-decider.js';
import { ConcurrencyError } from '../../src/store/event-store.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

const metadata = { actor: 'operator:test', requestId: 'req-1', correlationId: 'req-1', causationId: 'cmd-1' };
const create = (code: string) => ({
  streamId: importSupplierStreamId(code),
  decider: importSupplierDecider,
  command: { type: 'CreateImportSupplier' as const, code, status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: 'x' },
});
const pause = (code: string) => ({
  streamId: importSupplierStreamId(code),
  decider: importSupplierDecider,
  command: { type: 'ChangeImportSupplierStatus' as const, code, to: 'Paused' as const, now: 'y' },
});

describe('EventStore.handleMany: several streams, one atomic unit', () => {
  let t: TestLedger;
  beforeEach(() => {
    t = createTestLedger();
  });
  afterEach(() => t.close());
  const version = (code: string) => t.ledger.store.streamVersion(importSupplierStreamId(code));

  it('handles every command on its stream and projects, results in command order', async () => {
    const results = await t.ledger.store.handleMany([create('A'), create('B')], { metadata });
    expect(results.map((r) => [r.streamVersion, r.events.map((e) => e.streamId)])).toEqual([
      [1, [importSupplierStreamId('A')]],
      [1, [importSupplierStreamId('B')]],
    ]);
    expect(await t.ledger.read.findImportSupplier('B')).toMatchObject({ code: 'B', status: 'Ongoing' });
    expect(results[1]?.events[0]?.metadata).toMatchObject(metadata);
  });

  it('a later command on the same stream sees the events of the earlier ones', async () => {
    const results = await t.ledger.store.handleMany([create('A'), pause('A')], { metadata });
    expect(results.map((r) => r.streamVersion)).toEqual([1, 2]);
    expect(await t.ledger.read.findImportSupplier('A')).toMatchObject({ status: 'Paused' });
  });

  it('a DomainError from any decide leaves nothing of any command written', async () => {
    await t.ledger.store.handleMany([create('A')], { metadata });
    // B would be created, then A again is refused: B must not exist afterwards.
    await expect(t.ledger.store.handleMany([create('B'), create('A')], { metadata })).rejects.toBeInstanceOf(DomainError);
    expect([await version('A'), await version('B')]).toEqual([1, 0]);
    expect(await t.ledger.read.findImportSupplier('B')).toBeNull();
  });

  it('a dry run decides, appends and projects everything, then rolls it all back', async () => {
    const results = await t.ledger.store.handleMany([create('A'), create('B')], { metadata, dryRun: true });
    expect(results.map((r) => r.events.length)).toEqual([1, 1]);
    expect(await t.ledger.store.isEmpty()).toBe(true);
    expect(await t.ledger.read.findImportSupplier('A')).toBeNull();
  });

  it('checks the guards first: a guard that moved on is a ConcurrencyError and nothing is written', async () => {
    await t.ledger.store.handleMany([create('G')], { metadata });
    await expect(
      t.ledger.store.handleMany([create('A')], { metadata, guards: [{ streamId: importSupplierStreamId('G'), expectedVersion: 0 }] }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await version('A')).toBe(0);
  });

  it('an empty list of commands writes nothing and returns no results', async () => {
    expect(await t.ledger.store.handleMany([], { metadata })).toEqual([]);
    expect(await t.ledger.store.isEmpty()).toBe(true);
  });

  it('does not disturb commands of other callers committed in the same group commit', async () => {
    const [many, single] = await Promise.allSettled([
      t.ledger.store.handleMany([create('B'), create('B')], { metadata }),
      t.ledger.store.handle(importSupplierStreamId('C'), importSupplierDecider, create('C').command, { metadata }),
    ]);
    expect(many.status).toBe('rejected');
    expect(single.status).toBe('fulfilled');
    expect([await version('B'), await version('C')]).toEqual([0, 1]);
  });
});
