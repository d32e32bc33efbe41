import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createImportSupplier, revokeApiKey, setImportSupplierStatus } from '../../../src/application/operator.js';
import { createApp } from '../../../src/http/app.js';
import { CREDENTIAL_RECHECK_MS, STREAM_ERROR_EVENT } from '../../../src/http/routes/events-feed.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { obtainToken, operator, plainAppDeps, TestClock, TOKEN_SECRET } from '../../support/ledger.js';
import { checkedApp } from '../../support/openapi-check.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';
import { serveApp, SseClient } from '../../support/sse.js';

/** Two service instances on one PostgreSQL database: SSE clients of one see what the other appends. */
describe('event feed over SSE across instances', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let a: Ledger;
  let b: Ledger;
  beforeAll(async () => {
    database = await createTestDatabase();
    const clock = new TestClock();
    a = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
    b = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  it('an event appended through instance A reaches an SSE client connected to instance B within a second', async () => {
    await createImportSupplier(a, { code: 'SSE', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    const { key } = await createApiKey(a, { suppliers: ['SSE'], label: null }, operator);
    // Checked by status (an event stream is not JSON): the same check as every HTTP test's.
    const appB = checkedApp(createApp({ ...b, ...plainAppDeps, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true }));
    const tokenBody = (await (await obtainToken(appB, { APIKey: key })).json()) as { data: { obtainToken: { token: string } } };
    const after = await b.log.lastPosition();
    const res = await appB.request(`/v1/data-import/events/?after=${after}`, {
      headers: { authorization: `Token ${tokenBody.data.obtainToken.token}`, accept: 'text/event-stream' },
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    // Let the stream reach its wait (nothing to send yet), then append through A.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await setImportSupplierStatus(a, 'SSE', 'Paused', operator);
    const appended = performance.now();
    let text = '';
    const deadline = appended + 1_000;
    while (!text.includes('data_import.import_supplier.status_changed-v1')) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(0, deadline - performance.now())))]);
      if (chunk === null || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const seconds = (performance.now() - appended) / 1000;
    await reader.cancel();
    expect(text).toContain('event: data_import.import_supplier.status_changed-v1');
    expect(seconds).toBeLessThanOrEqual(1);
  });

  it('a key revoked through instance A ends its streams on instance B with the final error event; B then answers 401', async () => {
    await createImportSupplier(a, { code: 'REVOKED', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    const { key, keyId } = await createApiKey(a, { suppliers: ['REVOKED'], label: null }, operator);
    const appB = createApp({ ...b, ...plainAppDeps, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true });
    const tokenBody = (await (await obtainToken(checkedApp(appB), { APIKey: key })).json()) as { data: { obtainToken: { token: string } } };
    const token = tokenBody.data.obtainToken.token;
    const served = await serveApp(appB);
    const streams: SseClient[] = [];
    try {
      // B has read (and cached) the key's row already: the token's and the API key's streams are both open on it.
      for (const credential of [token, key]) {
        const stream = await SseClient.open(`${served.url}/v1/data-import/events/?after=${await b.log.lastPosition()}`, credential);
        expect(stream.response.status).toBe(200);
        streams.push(stream);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const revokedAt = performance.now();
      expect(await revokeApiKey(a, keyId, operator)).toBe(true);
      for (const stream of streams) {
        const frames = await stream.readUntil((f) => f.event === STREAM_ERROR_EVENT, CREDENTIAL_RECHECK_MS + 2_000);
        expect(frames.at(-1)?.event).toBe(STREAM_ERROR_EVENT);
        expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ code: 'authentication_failed' });
        expect(await stream.endsWithin(1_000)).toBe(true);
      }
      // The NOTIFY of the revocation's commit wakes B's streams: no wait for the recheck interval.
      expect(performance.now() - revokedAt).toBeLessThan(CREDENTIAL_RECHECK_MS);
      for (const credential of [token, key]) {
        const again = await fetch(`${served.url}/v1/data-import/events/`, { headers: { authorization: `Token ${credential}`, accept: 'text/event-stream' } });
        expect(again.status).toBe(401);
        expect(await again.json()).toMatchObject({ code: 'authentication_failed' });
      }
    } finally {
      for (const stream of streams) await stream.close();
      await served.close();
    }
  });
});
