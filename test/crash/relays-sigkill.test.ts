import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { sourceEventTypes, toExternalEvent, type RoutedEvent } from '../../src/external-events/catalogue.js';
import { openLedger, type LedgerLocation } from '../../src/ledger.js';
import { createTestDatabaseLocation } from '../support/ledger.js';
import { skipWithoutNats, TEST_NATS_URL, testStream } from '../support/nats.js';
import { checkedFetch } from '../support/openapi-check.js';
import { startWebhookReceiver, type Received } from '../support/webhook-receiver.js';
import { CrashWorkload, SUPPLIER, setUpCrashDatabase, startServer } from './crash-workload.js';

const unavailable = await skipWithoutNats();

/** The supplier's catalogue events after `after`, in log order, read from the database as an operator would. */
async function catalogue(location: LedgerLocation, after: number): Promise<RoutedEvent[]> {
  const ledger = await openLedger(location);
  try {
    const out: RoutedEvent[] = [];
    for await (const batch of await ledger.log.open({ after, types: sourceEventTypes })) {
      for (const stored of batch) {
        const routed = toExternalEvent(stored);
        if (routed && ('everyone' in routed.scope || ('supplier' in routed.scope && routed.scope.supplier === SUPPLIER))) out.push(routed);
      }
    }
    return out;
  } finally {
    await ledger.close();
  }
}

/**
 * At least once and in order per account: every delivery of an event came after at least one delivery of each
 * earlier event of its ordering key (a repeat after a restart comes late, which is allowed; a jump ahead is not).
 */
function orderViolations(want: readonly RoutedEvent[], received: readonly Received[]): string[] {
  const indexOf = new Map<string, { key: string; index: number }>();
  const perKey = new Map<string, number>();
  for (const r of want) {
    const index = perKey.get(r.orderingKey) ?? 0;
    perKey.set(r.orderingKey, index + 1);
    indexOf.set(r.event.id, { key: r.orderingKey, index });
  }
  const seen = new Map<string, Set<number>>();
  const violations: string[] = [];
  for (const got of received) {
    const at = indexOf.get(got.id);
    if (!at) continue;
    const delivered = seen.get(at.key) ?? new Set<number>();
    for (let j = 0; j < at.index; j++) if (!delivered.has(j)) violations.push(`${at.key}: event ${at.index} before event ${j}`);
    delivered.add(at.index);
    seen.set(at.key, delivered);
  }
  return violations;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(unavailable)('events out through SIGKILLs of the service', () => {
  it('a migration through the API: every event reaches the webhook (signed, in order per account) and the NATS stream (once each), whatever the kills', async () => {
    const db = await createTestDatabaseLocation();
    const { stream, subjectPrefix } = testStream();
    const receiver = await startWebhookReceiver([]);
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const token = await setUpCrashDatabase(db.location);
      const env = {
        LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        LEDGER_WEBHOOK_RETRY_SCHEDULE: '0,50,100,200',
        LEDGER_RELAY_LEASE_MS: '1000',
        LEDGER_NATS_URL: TEST_NATS_URL,
        LEDGER_NATS_STREAM: stream,
        LEDGER_NATS_SUBJECT_PREFIX: subjectPrefix,
      };
      let server = await startServer(db.location, env);
      const created = await checkedFetch(`${server.base}/v1/data-import/webhook-endpoints/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
        body: JSON.stringify({ import_supplier_code: SUPPLIER, url: receiver.url }),
      });
      expect(created.status).toBe(201);
      const endpoint = (await created.json()) as { id: string; secret: string };
      receiver.secrets([endpoint.secret]);
      // The endpoint is told of what happens from its creation on: the log's end now.
      const from = (await catalogue(db.location, 0)).at(-1)?.position ?? 0;

      const workload = new CrashWorkload(token);
      for (let kill = 0; kill < 2; kill++) {
        await workload.retryLost(() => [server.base]);
        let running = true;
        const load = workload.load(6, () => running, () => () => [server.base]);
        // Killed while deliveries are in flight: some events delivered and not yet stored as delivered.
        await until(async () => receiver.received.length > 20 * (kill + 1), 'deliveries under way', 30_000);
        server.child.kill('SIGKILL');
        running = false;
        await server.exited;
        await load;
        server = await startServer(db.location, env);
      }
      await workload.retryLost(() => [server.base]);

      const want = (await catalogue(db.location, 0)).filter((r) => r.position > from);
      expect(want.length).toBeGreaterThan(50);
      const ids = () => new Set(receiver.received.map((r) => r.id));
      await until(async () => want.every((r) => ids().has(r.event.id)), `all ${want.length} events at the webhook`);
      expect(receiver.unverified).toBe(0);
      // Nothing that is not an event; a repeat (in flight at a kill) carries the id it had.
      const wanted = new Set(want.map((r) => r.event.id));
      expect(receiver.received.filter((r) => !wanted.has(r.id))).toEqual([]);
      expect(orderViolations(want, receiver.received)).toEqual([]);
      for (const got of receiver.received.slice(0, 50)) {
        const event = want.find((r) => r.event.id === got.id)!.event;
        expect({ type: got.type, data: got.data }).toEqual({ type: event.type, data: event.data });
      }

      // NATS: every catalogue event of the log (from the start), once each.
      const everything = await catalogue(db.location, 0);
      const jsm = await jetstreamManager(nc);
      await until(async () => (await jsm.streams.info(stream).catch(() => null))?.state.messages === everything.length, `all ${everything.length} events in the stream`);
      server.child.kill('SIGTERM');
      await server.exited;
    } finally {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await receiver.close();
      await db.release();
    }
  }, 240_000);
});
