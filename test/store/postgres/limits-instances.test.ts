import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, createImportSupplier, setServiceConfig } from '../../../src/application/operator.js';
import { createApp } from '../../../src/http/app.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { obtainToken, operator, plainAppDeps, TestClock, TOKEN_SECRET } from '../../support/ledger.js';
import { checkedApp } from '../../support/openapi-check.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

/** The process concurrency limit, the per-key request rate and the obtainToken limit count across every instance on the database. */
describe('limits shared by two instances', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let clock: TestClock;
  let a: Ledger;
  let b: Ledger;
  beforeEach(async () => {
    database = await createTestDatabase();
    clock = new TestClock();
    a = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
    b = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
  });
  afterEach(async () => {
    await a.close().catch(() => undefined);
    await b.close();
    await database.drop();
  });

  it('slots: a limit of 2 holds across instances; a released slot, or one of an instance that stopped, is free again', async () => {
    const first = await a.limits.tryAcquireSlot('process', 2);
    const second = await b.limits.tryAcquireSlot('process', 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await a.limits.tryAcquireSlot('process', 2)).toBeNull();
    expect(await b.limits.tryAcquireSlot('process', 2)).toBeNull();
    // Concurrent attempts on both instances: none gets a third slot.
    expect((await Promise.all([a, b, a, b].map((l) => l.limits.tryAcquireSlot('process', 2)))).every((s) => s === null)).toBe(true);
    await second!.release();
    const third = await a.limits.tryAcquireSlot('process', 2);
    expect(third).not.toBeNull();
    expect(await b.limits.tryAcquireSlot('process', 2)).toBeNull();
    // Instance a stops with two slots held: its session ends and both are free.
    await a.close();
    expect(await b.limits.tryAcquireSlot('process', 2)).not.toBeNull();
    expect(await b.limits.tryAcquireSlot('process', 2)).not.toBeNull();
    expect(await b.limits.tryAcquireSlot('process', 2)).toBeNull();
    // Without a limit, every caller goes ahead.
    expect(await b.limits.tryAcquireSlot('process', null)).not.toBeNull();
  });

  it('token buckets: one bucket for both instances, refilled with time', async () => {
    const take = (l: Ledger) => l.limits.takeToken('request-rate:key_1', 3);
    expect(await Promise.all([take(a), take(b), take(a)])).toEqual([null, null, null]);
    expect(await take(b)).toBe(1);
    expect(await take(a)).toBe(1);
    expect(await a.limits.takeToken('request-rate:key_2', 3)).toBeNull(); // keys are independent
    clock.advanceSeconds(1);
    expect(await Promise.all([take(b), take(a), take(b)])).toEqual([null, null, null]);
    expect(await take(a)).toBe(1);
  });

  it('sliding windows: one window for both instances, concurrent takers never exceed the limit, a pause holds both', async () => {
    const take = (l: Ledger) => l.limits.takeWindowStart('populate:ELECTRICITY', 3, 1_000);
    // Six instances-worth of concurrent takers at one instant: exactly three starts.
    const answers = await Promise.all([a, b, a, b, a, b].map(take));
    expect(answers.filter((w) => w === null)).toHaveLength(3);
    expect(answers.filter((w) => w !== null).every((w) => w === 1_000)).toBe(true);
    clock.advanceMs(400);
    expect(await take(b)).toBe(600);
    clock.advanceMs(600);
    expect(await Promise.all([take(a), take(b), take(a)])).toEqual([null, null, null]);
    expect(await a.limits.takeWindowStart('populate:GAS', 3, 1_000)).toBeNull(); // windows are independent
    await b.limits.pauseWindow('populate:ELECTRICITY', clock.now.getTime() + 30_000);
    await a.limits.pauseWindow('populate:ELECTRICITY', clock.now.getTime() + 5_000); // a pause only grows
    clock.advanceMs(1_000);
    expect(await take(a)).toBe(29_000);
    clock.advanceMs(29_000);
    expect(await take(b)).toBeNull();
  });

  it('obtainToken: the limit holds across instances (calls through A use up what B allows), a minute frees it', async () => {
    await createImportSupplier(a, { code: 'TOKENS', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    const { key } = await createApiKey(a, { suppliers: ['TOKENS'], label: null }, operator);
    await setServiceConfig(a, 'token-requests-per-minute', 3, operator);
    const app = (ledger: Ledger) =>
      checkedApp(createApp({ ...ledger, ...plainAppDeps, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true }));
    const [appA, appB] = [app(a), app(b)];
    const statuses = [];
    for (const target of [appA, appB, appA, appB, appA]) statuses.push((await obtainToken(target, { APIKey: key })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    clock.advanceSeconds(60);
    expect((await obtainToken(appB, { APIKey: key })).status).toBe(200);
  });
});
