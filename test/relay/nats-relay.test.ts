import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceEventTypes, toExternalEvent, type RoutedEvent } from '../../src/external-events/catalogue.js';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import type { Ledger } from '../../src/ledger.js';
import { natsSubject, payloadOf } from '../../src/relay/nats-sink.js';
import { Relays } from '../../src/relay/relays.js';
import { examplePayload } from '../support/account-records.js';
import { createTestApi, operator, TEAM, type TestApi } from '../support/ledger.js';
import { skipWithoutNats, TEST_NATS_URL, testStream } from '../support/nats.js';

const unavailable = await skipWithoutNats();

/** What the log says the relay must publish: every catalogue event, in log order. */
async function expected(ledger: Ledger): Promise<RoutedEvent[]> {
  const out: RoutedEvent[] = [];
  for await (const batch of await ledger.log.open({ types: sourceEventTypes })) for (const stored of batch) {
    const routed = toExternalEvent(stored);
    if (routed) out.push(routed);
  }
  return out;
}

interface Received {
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly body: string;
}

/** Every message the stream holds, in stream order. */
async function streamMessages(nc: NatsConnection, stream: string): Promise<Received[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const out: Received[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    if (m) out.push({ subject: m.subject, msgId: m.header.get('Nats-Msg-Id') || undefined, body: new TextDecoder().decode(m.data) });
  }
  return out;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(unavailable)('the NATS relay', () => {
  let api: TestApi;
  let nc: NatsConnection;
  const { stream, subjectPrefix } = testStream();
  const relaysOn = (ledger: Ledger) =>
    new Relays({
      log: ledger.log,
      relays: ledger.relays,
      logger: pino({ level: 'silent' }),
      nats: { url: TEST_NATS_URL, stream, subjectPrefix },
      webhooks: null,
      laneOptions: { persistEveryMs: 20, leaseMs: 2_000 },
    });

  beforeEach(async () => {
    api = await createTestApi();
    nc = await connect({ servers: TEST_NATS_URL });
  });
  afterEach(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    await api.close();
  });

  it('publishes every catalogue event once, in log order, to <prefix>.<supplier>.<type> with Nats-Msg-Id = the event id; a restart from an older position repeats nothing', async () => {
    for (let i = 1; i <= 12; i++) {
      const payload = examplePayload({ external_account_number: `LEG-${String(i).padStart(7, '0')}` });
      await stageAccount(api.ledger, payload, operator);
      if (i % 2 === 0) await processAccount(api.ledger, { importSupplier: payload.import_supplier, externalAccountNumber: payload.external_account_number, operationsTeamName: TEAM, dryRun: false }, operator);
    }
    const want = await expected(api.ledger);
    expect(want.length).toBeGreaterThan(18);

    const relays = relaysOn(api.ledger);
    relays.start();
    try {
      await until(async () => (await streamMessages(nc, stream).catch(() => [])).length >= want.length, 'the stream to hold every event');
      // Events appended while it runs follow.
      await stageAccount(api.ledger, examplePayload({ external_account_number: 'LEG-0000099' }), operator);
      const more = await expected(api.ledger);
      await until(async () => (await streamMessages(nc, stream)).length >= more.length, 'the new event');
      const got = await streamMessages(nc, stream);
      expect(got).toEqual(more.map((r) => ({ subject: natsSubject(subjectPrefix, r), msgId: r.event.id, body: payloadOf(r) })));
      expect(got[0]!.subject).toMatch(new RegExp(`^${subjectPrefix}\\.(LEGACY_ENERGIE|_catalogue)\\.[a-z_]+\\.`));
    } finally {
      await relays.stop();
    }

    // As if the instance had died before storing its last position: the next one publishes those again, and the stream drops the repeats.
    const [cursor] = await api.ledger.relays.cursors();
    expect(cursor).toMatchObject({ name: 'nats', holder: null });
    await api.ledger.relays.acquire('nats', 'crashed', Date.now(), 1, { position: 0, replaySeq: 0 });
    await api.ledger.relays.advance('nats', 'crashed', Date.now(), 1, { position: Math.floor(cursor!.position / 2), replaySeq: 0 });
    const again = relaysOn(api.ledger);
    again.start();
    try {
      await until(async () => ((await api.ledger.relays.cursors())[0]?.position ?? 0) >= cursor!.position, 'the relay to catch up');
    } finally {
      await again.stop();
    }
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(stream)).state.messages).toBe((await expected(api.ledger)).length);
  });
});
