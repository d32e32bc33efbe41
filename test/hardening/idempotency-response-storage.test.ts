import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import type { HeldReservation, IdempotencyRecords, StoredResponse } from '../../src/store/idempotency.js';
import { openLedger } from '../../src/ledger.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { dataImportPosts, type Endpoint } from '../support/endpoints.js';
import { TOKEN_SECRET, plainAppDeps } from '../support/ledger.js';
import { checkedApp } from '../support/openapi-check.js';

/**
 * A keyed write's answer is recorded with its events, in their unit of work, when it is the answer those
 * events rebuild (docs/reliability.md, "Safe retries"): nothing is written after the commit, so there is
 * no moment at which a crash leaves the events without their answer. These tests watch what the request
 * stores after its events (completions) and check that a retry, in this process or a new one, gets the
 * same answer, byte for byte, and that nothing runs twice.
 */

const key = (n: string) => ({ 'idempotency-key': n });
const writing = dataImportPosts.filter((e) => e.writes);

/** Idempotency-Key records whose held requests the test sees: what they complete, what they keep, and may hold the ending. */
function watched() {
  const completions: StoredResponse[] = [];
  const kept: string[] = [];
  const control = { hold: null as Promise<void> | null };
  const wrap = (records: IdempotencyRecords): IdempotencyRecords => ({
    find: (keyId, idempotencyKey) => records.find(keyId, idempotencyKey),
    complete: (request, response) => records.complete(request, response),
    purgeExpired: () => records.purgeExpired(),
    async reserve(request, options) {
      const reservation = await records.reserve(request, options);
      if (!reservation.held) return reservation;
      const held: HeldReservation = {
        reservedAt: reservation.reservedAt,
        held: true,
        beforeCommit: reservation.beforeCommit,
        release: () => reservation.release(),
        recordedAnswer: () => reservation.recordedAnswer(),
        async complete(response) {
          completions.push(response);
          await reservation.complete(response);
        },
        async keepRecorded() {
          kept.push(request.idempotencyKey);
          if (control.hold) await control.hold;
          await reservation.keepRecorded();
        },
      };
      return held;
    },
  });
  return { completions, kept, control, wrap };
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
  const how = endpoint.answerNotInLog === undefined ? 'its answer is committed with its events and nothing is stored after them' : `${endpoint.answerNotInLog}: its answer is stored once rendered`;
  it(`${how}; a retry on a new process gets it, byte for byte, and nothing runs twice`, async () => {
    const { completions, kept, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    const body = endpoint.fresh?.(world.params(endpoint), 1) ?? endpoint.payloads(world.params(endpoint))[0];
    const first = await answer(await world.request(endpoint, { body, headers: key('k-with-events') }));
    expect(endpoint.success).toContain(first.status);
    if (endpoint.answerNotInLog === undefined) {
      expect(completions).toEqual([]);
      expect(kept).toEqual(['k-with-events']);
    } else {
      // Its events rebuild no answer (it shows a secret the log never holds): the answer is stored once rendered.
      expect(completions).toEqual([first]);
      expect(kept).toEqual([]);
    }
    const [row] = (await world.api.execute("SELECT status, response_body, response_content_type, event_positions FROM idempotency_keys WHERE idempotency_key = 'k-with-events'")) as {
      status: number | null;
      response_body: string | null;
      response_content_type: string | null;
      event_positions: string;
    }[];
    expect({ status: row!.status, contentType: row!.response_content_type, body: row!.response_body }).toEqual(first);
    const positions = JSON.parse(row!.event_positions) as number[];
    expect(positions).not.toEqual([]);
    // The key's row and the events are one commit: the last event written is the request's.
    const [last] = (await world.api.execute('SELECT MAX(global_position) AS p FROM events')) as { p: number }[];
    expect(Math.max(...positions)).toBe(Number(last!.p));
    const count = await world.eventCount();

    // A new process on the same database (the same SQLite file, or another instance on the PostgreSQL database).
    const reopened = await openLedger(world.api.location, { clock: world.api.clock.read });
    try {
      const app = checkedApp(createApp({ ...reopened, ...plainAppDeps, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true }));
      const token = await world.token();
      const again = await app.request(endpoint.path(world.params(endpoint)), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...key('k-with-events') },
        body: JSON.stringify(body),
      });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await answer(again)).toEqual(first);
      expect(await world.eventCount()).toBe(count);
    } finally {
      await reopened.close();
    }
  });
});

describe('the answer recorded with the events', () => {
  const stage = writing.find((e) => e.name === 'POST account-import-process/create-or-update/')!;

  it('a second request with the key, after the first one\'s events committed and before it answered, gets the same answer replayed', async () => {
    const { kept, control, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    let release: () => void = () => undefined;
    control.hold = new Promise<void>((resolve) => (release = resolve));
    const count = await world.eventCount();
    const firstPending = world.request(stage, { headers: key('k-window') });
    while (kept.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // The first request's events and answer are committed, its hold not ended yet: the second is answered from the record.
    const second = await world.request(stage, { headers: key('k-window') });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const secondAnswer = await answer(second);
    release();
    const first = await answer(await firstPending);
    expect(secondAnswer).toEqual(first);
    expect(await world.eventCount()).toBe(count + 1);
    const third = await world.request(stage, { headers: key('k-window') });
    expect(await answer(third)).toEqual(first);
  });

  it('an answer that no events rebuild (a refused request) is stored when it is rendered, durably', async () => {
    const { completions, kept, wrap } = watched();
    world = await createEndpointWorld({ idempotency: wrap });
    const refused = await answer(await world.request(stage, { body: { nothing: 'valid' }, headers: key('k-refused') }));
    expect(refused.status).toBe(400);
    expect(kept).toEqual([]);
    expect(completions).toEqual([refused]);
    const replayed = await world.request(stage, { body: { nothing: 'valid' }, headers: key('k-refused') });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await answer(replayed)).toEqual(refused);
  });
});
