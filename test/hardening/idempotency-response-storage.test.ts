import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import type { HeldReservation, IdempotencyRecords, StoredResponse } from '../../src/store/idempotency.js';
import { openLedger } from '../../src/ledger.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { dataImportPosts, type Endpoint } from '../support/endpoints.js';
import { TOKEN_SECRET } from '../support/ledger.js';
import { checkedApp } from '../support/openapi-check.js';

/**
 * A keyed write's response is stored without waiting for it to be durable when a retry would rebuild
 * exactly that response from the events recorded with the key (docs/reliability.md, "Safe retries").
 * These tests hold or drop that store, as a crash between the events' commit and the response's
 * storage would, and check that the retry still gets the same answer, byte for byte, and that nothing
 * runs twice.
 */

const key = (n: string) => ({ 'idempotency-key': n });
const writing = dataImportPosts.filter((e) => e.writes);

interface Completion {
  readonly response: StoredResponse;
  readonly rebuildable: boolean;
}

/** Idempotency-Key records whose held completions the test sees and may drop (a crash) or hold (a slow store). */
function watched() {
  const completions: Completion[] = [];
  const control = { drop: false, hold: null as Promise<void> | null };
  const wrap = (records: IdempotencyRecords): IdempotencyRecords => ({
    find: (keyId, idempotencyKey) => records.find(keyId, idempotencyKey),
    complete: (request, response) => records.complete(request, response),
    purgeExpired: () => records.purgeExpired(),
    async reserve(request) {
      const reservation = await records.reserve(request);
      if (!reservation.held) return reservation;
      const held: HeldReservation = {
        ...reservation,
        release: () => reservation.release(),
        async complete(response, options) {
          const rebuildable = options?.rebuildable === true;
          completions.push({ response, rebuildable });
          // The process "dies" before the response's write: only a response the events rebuild may be lost so.
          if (control.drop && rebuildable) return;
          if (control.hold) await control.hold;
          await reservation.complete(response, options);
        },
      };
      return held;
    },
  });
  return { completions, control, wrap };
}

async function answer(res: Response) {
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
}

let world: EndpointWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each(writing.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
  it('its response is stored as rebuildable; killed before that store, the retry on a new process gets the same answer, byte for byte, and nothing runs twice', async () => {
    const { completions, control, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    const body = endpoint.fresh?.(world.params(endpoint), 1) ?? endpoint.payloads(world.params(endpoint))[0];
    control.drop = true;
    const first = await answer(await world.request(endpoint, { body, headers: key('k-lost') }));
    expect(endpoint.success).toContain(first.status);
    // The answer's events rebuild it exactly: its store was the one that may be lost (and here was).
    expect(completions.map((c) => c.rebuildable)).toEqual([true]);
    expect(completions[0]!.response).toEqual(first);
    const [row] = (await world.api.execute("SELECT status, event_positions FROM idempotency_keys WHERE idempotency_key = 'k-lost'")) as {
      status: number | null;
      event_positions: string;
    }[];
    expect(row!.status).toBeNull();
    expect(JSON.parse(row!.event_positions)).not.toEqual([]);
    const count = await world.eventCount();

    // A new process on the same database (the same SQLite file, or another instance on the PostgreSQL database).
    const reopened = await openLedger(world.api.location, { clock: world.api.clock.read });
    try {
      const app = checkedApp(createApp({ ...reopened, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true }));
      const token = await world.token();
      const send = () =>
        app.request(endpoint.path(world!.params(endpoint)), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...key('k-lost') },
          body: JSON.stringify(body),
        });
      const again = await send();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await answer(again)).toEqual(first);
      expect(await world.eventCount()).toBe(count);
      // Stored now: replayed as is.
      expect(await answer(await send())).toEqual(first);
    } finally {
      await reopened.close();
    }
  });
});

describe('the store of a rebuildable response', () => {
  const stage = writing.find((e) => e.name === 'POST account-import-process/create-or-update/')!;

  it('a second request with the key while the first one\'s response is being stored gets the same answer rebuilt, and the first\'s store then changes nothing', async () => {
    const { completions, control, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    let release: () => void = () => undefined;
    control.hold = new Promise<void>((resolve) => (release = resolve));
    const count = await world.eventCount();
    const firstPending = world.request(stage, { headers: key('k-window') });
    while (completions.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // The first request's events are committed, its response not stored yet: the second is answered from the events.
    const second = await world.request(stage, { headers: key('k-window') });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const secondAnswer = await answer(second);
    release();
    const first = await answer(await firstPending);
    expect(secondAnswer).toEqual(first);
    expect(await world.eventCount()).toBe(count + 1);
    expect(completions.map((c) => c.rebuildable)).toEqual([true]);
    const third = await world.request(stage, { headers: key('k-window') });
    expect(await answer(third)).toEqual(first);
  });

  it('an answer that no events rebuild (a refused request) is stored as before, durably', async () => {
    const { completions, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    const refused = await world.request(stage, { body: { nothing: 'valid' }, headers: key('k-refused') });
    expect(refused.status).toBe(400);
    expect(completions.map((c) => c.rebuildable)).toEqual([false]);
  });
});
