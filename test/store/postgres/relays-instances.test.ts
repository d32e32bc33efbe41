import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { CrashWorkload, setUpCrashDatabase, startServer, type Server } from '../../crash/crash-workload.js';
import { createTestDatabaseLocation } from '../../support/ledger.js';
import { skipWithoutNats, TEST_NATS_URL, testStream } from '../../support/nats.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { addEndpoint, orderViolations, relayTestEnv, supplierCatalogue, until } from '../../support/relay-checks.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

const natsMissing = await skipWithoutNats();

/**
 * Two `import-ledger serve` processes on one PostgreSQL database: one instance at a time delivers to the
 * webhook endpoint and publishes to NATS (each relay on its lease); the one holding them is killed with
 * SIGKILL, the other takes both over once the leases run out, and every event is delivered all the same.
 */
describe.skipIf(natsMissing)('events out with two instances on PostgreSQL', () => {
  if (skipWithoutPostgres()) return;
  it('each event is delivered; the instance holding the relays is killed and the other takes them over', async () => {
    const db = await createTestDatabaseLocation('postgres');
    const { stream, subjectPrefix } = testStream();
    const receiver = await startWebhookReceiver([]);
    const nc = await connect({ servers: TEST_NATS_URL });
    const servers: (Server | null)[] = [null, null];
    try {
      const token = await setUpCrashDatabase(db.location);
      const env = relayTestEnv(stream, subjectPrefix);
      // The first instance alone: it takes both relays.
      servers[0] = await startServer(db.location, env);
      await addEndpoint(servers[0].base, token, receiver);
      const from = (await supplierCatalogue(db.location, 0)).at(-1)?.position ?? 0;
      const holders = async () => db.execute('SELECT name, holder FROM relay_cursors ORDER BY name');
      await until(async () => (await holders()).length === 2 && (await holders()).every((r) => r['holder'] !== null), 'the first instance to hold both relays');
      const first = await holders();
      servers[1] = await startServer(db.location, env);

      const workload = new CrashWorkload(token);
      const alive = () => servers.flatMap((s) => (s ? [s.base] : []));
      let running = true;
      const load = workload.load(6, () => running, () => alive);
      await until(async () => receiver.received.length > 30, 'deliveries under way', 30_000);
      servers[0].child.kill('SIGKILL');
      await servers[0].exited;
      servers[0] = null;
      // The survivor takes both relays over once the dead instance's leases run out.
      await until(async () => (await holders()).every((r, i) => r['holder'] !== null && r['holder'] !== first[i]!['holder']), 'the second instance to take both relays');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      running = false;
      await load;
      await workload.retryLost(alive);

      const want = (await supplierCatalogue(db.location, 0)).filter((r) => r.position > from);
      await until(async () => {
        const ids = new Set(receiver.received.map((r) => r.id));
        return want.every((r) => ids.has(r.event.id));
      }, `all ${want.length} events at the webhook`);
      expect(receiver.unverified).toBe(0);
      expect(orderViolations(want, receiver.received)).toEqual([]);
      const everything = await supplierCatalogue(db.location, 0);
      const jsm = await jetstreamManager(nc);
      await until(async () => (await jsm.streams.info(stream).catch(() => null))?.state.messages === everything.length, `all ${everything.length} events in the stream`);
    } finally {
      for (const server of servers) server?.child.kill('SIGKILL');
      await Promise.all(servers.map((s) => s?.exited));
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await receiver.close();
      await db.release();
    }
  }, 180_000);
});
