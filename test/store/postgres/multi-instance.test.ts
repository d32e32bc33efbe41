import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import { stageAccount } from '../../../src/application/account-import-processes.js';
import { createImportSupplier } from '../../../src/application/operator.js';
import { claimPopulateRequest, createPopulateBatch, recordPopulateOutcome } from '../../../src/application/supply-point-populate.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { ImportSupplierState } from '../../../src/domain/import-supplier/import-supplier-decider.js';
import type { Ledger } from '../../../src/ledger.js';
import { operator, SUPPLIER } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { payloadFor } from '../contract/seed.js';
import { createExampleProducts } from '../../support/products.js';
import {
  expectLogIsExactlyTheReportedEvents,
  expectOnlyDomainErrors,
  expectProjectionsVerify,
  expectSerialSupplierStreams,
  expectWellFormedLog,
  openInstances,
  prng,
  SERIAL_SUPPLIER_ERRORS,
  settle,
  supplierHandle,
  tick,
  type Instances,
  type SupplierCall,
  type SupplierCommandKind,
} from './instances.js';

/**
 * Two service instances on one database (each with its own pool and writer
 * connection, as two processes): the write lock makes them one writer at a
 * time, so concurrent commands behave as some serial execution of them.
 */
describe('PostgreSQL: two instances on one database', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  it('concurrent create/pause/resume on shared and own streams: serial outcomes, contiguous streams, gapless log, projections verify', async () => {
    const random = prng(14);
    const shared = Array.from({ length: 6 }, (_, i) => `SHARED-${i}`);
    const own = { a: Array.from({ length: 15 }, (_, i) => `A-${i}`), b: Array.from({ length: 15 }, (_, i) => `B-${i}`) };
    const instances: Record<'a' | 'b', Ledger> = { a: t.a, b: t.b };
    const calls: Promise<SupplierCall>[] = [];
    const send = (instance: 'a' | 'b', kind: SupplierCommandKind, code: string) =>
      calls.push(settle(supplierHandle(instances[instance], kind, code)).then((outcome) => ({ instance, kind, code, outcome })));

    // Both instances race to create every shared supplier, then keep pausing and resuming them
    // (and re-creating them, which must be refused), while each also works on suppliers of its own.
    for (const code of shared) for (const instance of ['a', 'b'] as const) send(instance, 'create', code);
    const kinds: SupplierCommandKind[] = ['pause', 'resume', 'pause', 'resume', 'create'];
    for (let round = 0; round < 15; round++) {
      for (const instance of ['a', 'b'] as const) {
        const mine = own[instance];
        send(instance, 'create', mine[round]!);
        if (round > 0) send(instance, random() < 0.5 ? 'pause' : 'resume', mine[Math.floor(random() * round)]!);
        for (let i = 0; i < 6; i++) send(instance, kinds[Math.floor(random() * kinds.length)]!, shared[Math.floor(random() * shared.length)]!);
      }
      // Some rounds land in the same batch, others in the next one.
      if (round % 2 === 1) await tick();
    }
    const results = await Promise.all(calls);
    expect(results.length).toBe(250);

    const outcomes = results.map((r) => r.outcome);
    const errors = expectOnlyDomainErrors(outcomes, SERIAL_SUPPLIER_ERRORS);
    // Every shared supplier was created exactly once; each refused creation is an "already exists".
    for (const code of [...shared, ...own.a, ...own.b]) {
      const creates = results.filter((r) => r.code === code && r.kind === 'create');
      expect(creates.filter((r) => r.outcome.status === 'fulfilled'), `${code} created once`).toHaveLength(1);
    }
    expect(errors.get('import_supplier_already_exists')).toBe(results.filter((r) => r.kind === 'create').length - shared.length - 30);
    // A status change reports the state it left: the status it asked for.
    for (const { kind, outcome } of results) {
      if (outcome.status !== 'fulfilled' || kind === 'create') continue;
      expect((outcome.value.state as ImportSupplierState & { exists: true }).status).toBe(kind === 'pause' ? 'Paused' : 'Ongoing');
    }

    const rows = await expectWellFormedLog(t);
    expectLogIsExactlyTheReportedEvents(
      rows,
      outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.events : [])),
    );
    const statuses = expectSerialSupplierStreams(rows);
    expect(statuses.size).toBe(36);

    // Both instances read the same projection, and it matches the streams.
    for (const ledger of [t.a, t.b]) {
      const listed = await ledger.read.listImportSuppliers();
      expect(new Map(listed.map((row) => [row.code, row.status as ImportSupplierStatus]))).toEqual(statuses);
      for (const row of listed) expect(row.streamVersion).toBe(rows.filter((r) => r.stream_id === `import-supplier:${row.code}`).length);
    }
    await expectProjectionsVerify(t.a);
  });

  it('accounts staged through the application from both instances, on the same and on different accounts', async () => {
    await createImportSupplier(t.a, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    // Staging checks what the payload refers to: the example's products are there, as on a real migration.
    await createExampleProducts(t.a);
    const staged: Promise<PromiseSettledResult<{ created: boolean }>>[] = [];
    for (let i = 0; i < 12; i++) {
      // The same account from both instances (one creates it, the other re-stages or finds nothing new) ...
      staged.push(settle(stageAccount(t.a, payloadFor(`SAME-${i}`, 'WEB'), operator)));
      staged.push(settle(stageAccount(t.b, payloadFor(`SAME-${i}`, 'PHONE'), operator)));
      // ... and accounts of each instance's own.
      staged.push(settle(stageAccount(t.a, payloadFor(`A-${i}`, 'WEB'), operator)));
      staged.push(settle(stageAccount(t.b, payloadFor(`B-${i}`, 'WEB'), operator)));
      if (i % 3 === 2) await tick();
    }
    const outcomes = await Promise.all(staged);
    expectOnlyDomainErrors(outcomes, new Set());
    const created = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.created : null));
    // Of the two stagings of one account exactly one created it.
    for (let i = 0; i < 12; i++) expect([created[4 * i], created[4 * i + 1]].filter(Boolean)).toHaveLength(1);
    expect(created.filter((_, i) => i % 4 >= 2).every(Boolean)).toBe(true);

    const rows = await expectWellFormedLog(t);
    for (let i = 0; i < 12; i++) {
      const stream = rows.filter((r) => r.stream_id === accountImportProcessStreamId(SUPPLIER, `SAME-${i}`));
      expect(stream[0]?.type).toBe('AccountStaged');
    }
    for (const ledger of [t.a, t.b]) {
      expect(await ledger.read.accountListChunk(SUPPLIER, 'STAGED', { after: null, through: null }, 10_000)).toHaveLength(36);
    }
    await expectProjectionsVerify(t.b);
  });

  it('a multi-stream projection (supply points, populate batches) loses no update when both instances write the same rows', async () => {
    const identifiers = Array.from({ length: 8 }, (_, i) => `1234567890${String(i).padStart(4, '0')}`);
    const batches: string[] = [];
    for (let i = 0; i < 4; i++) {
      const ledger = i % 2 === 0 ? t.a : t.b;
      const { batchId } = await createPopulateBatch(
        ledger,
        { request: { customer_category: 'Domestic', prm_ids: identifiers, pce_ids: [] }, importSuppliers: [SUPPLIER] },
        operator,
      );
      batches.push(batchId);
    }
    const requests = (await Promise.all(batches.map((batchId) => t.a.read.listPopulateRequests(batchId)))).flat();
    expect(requests).toHaveLength(32);

    // Both instances work every request: claim it, then record the supply point found. The claim decides
    // inside the lock, so exactly one of them gets each request; the other is told it is claimed.
    const work = async (ledger: Ledger, request: (typeof requests)[number], worker: string) => {
      const ref = { batchId: request.batchId, sequence: request.sequence, supplyType: request.supplyType, identifier: request.identifier };
      const claim = await claimPopulateRequest(ledger, ref, { leaseMs: 600_000, maxAttempts: 3 }, operator);
      if (claim.kind !== 'claimed') throw new Error(`unexpected ${claim.kind}`);
      await recordPopulateOutcome(
        ledger,
        ref,
        claim.attempt,
        { kind: 'found', customerCategory: 'Domestic', address: { line1: `1 rue ${worker}`, postcode: '75001', city: 'Paris' }, details: { worker } },
        operator,
      );
      return worker;
    };
    const runs = requests.flatMap((request, i) => [settle(work(t.a, request, `a${i}`)), settle(work(t.b, request, `b${i}`))]);
    const outcomes = await Promise.all(runs);
    expectOnlyDomainErrors(outcomes, new Set(['populate_request_claimed']));
    for (let i = 0; i < requests.length; i++) {
      expect([outcomes[2 * i]!.status, outcomes[2 * i + 1]!.status].filter((s) => s === 'fulfilled'), `request ${i} worked once`).toHaveLength(1);
    }
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DomainError);

    // Every batch counted all its imports, every supply point all four batches' imports.
    for (const batchId of batches) {
      expect(await t.b.read.findPopulateBatch(batchId)).toMatchObject({ requestCount: 8, pendingCount: 0, importedCount: 8, erroredCount: 0 });
    }
    for (const identifier of identifiers) {
      expect(await t.b.read.findSupplyPoint('ELECTRICITY', identifier)).toMatchObject({ importCount: 4 });
    }
    await expectWellFormedLog(t);
    await expectProjectionsVerify(t.b);
  });
});
