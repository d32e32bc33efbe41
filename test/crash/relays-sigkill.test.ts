import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { createTestDatabaseLocation } from '../support/ledger.js';
import { skipWithoutNats, TEST_NATS_URL, testStream } from '../support/nats.js';
import { addEndpoint, supplierCatalogue as catalogue, orderViolations, relayTestEnv, until } from '../support/relay-checks.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { CrashWorkload, setUpCrashDatabase, startServer, type Server } from './crash-workload.js';

const unavailable = await skipWithoutNats();

describe.skipIf(unavailable)('events out through SIGKILLs of the service', () => {
  it('a migration through the API: every event reaches the webhook (signed, in order per account) and the NATS stream (once each), whatever the kills', async () => {
    const db = await createTestDatabaseLocation();
    const { stream, subjectPrefix } = testStream();
    const receiver = await startWebhookReceiver([]);
    const nc = await connect({ servers: TEST_NATS_URL });
    let server: Server | null = null;
    try {
      const token = await setUpCrashDatabase(db.location);
      const env = relayTestEnv(stream, subjectPrefix);
      server = await startServer(db.location, env);
      await addEndpoint(server.base, token, receiver);
      // The endpoint is told of what happens from its creation on: the log's end now.
      const from = (await catalogue(db.location, 0)).at(-1)?.position ?? 0;

      const workload = new CrashWorkload(token);
      for (let kill = 0; kill < 2; kill++) {
        const current = server;
        await workload.retryLost(() => [current.base]);
        let running = true;
        const load = workload.load(6, () => running, () => () => [current.base]);
        // Killed while deliveries are in flight: some events delivered and not yet stored as delivered.
        await until(async () => receiver.received.length > 20 * (kill + 1), 'deliveries under way', 30_000);
        current.child.kill('SIGKILL');
        running = false;
        await current.exited;
        await load;
        server = await startServer(db.location, env);
      }
      const last = server;
      await workload.retryLost(() => [last.base]);

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
    } finally {
      server?.child.kill('SIGKILL');
      await server?.exited;
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await receiver.close();
      await db.release();
    }
  }, 240_000);
});
