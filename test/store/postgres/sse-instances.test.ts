import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createImportSupplier, setImportSupplierStatus } from '../../../src/application/operator.js';
import { createApp } from '../../../src/http/app.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { obtainToken, operator, plainAppDeps, TestClock, TOKEN_SECRET } from '../../support/ledger.js';
import { checkedApp } from '../../support/openapi-check.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

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
    while (!text.includes('import_supplier.status_changed')) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(0, deadline - performance.now())))]);
      if (chunk === null || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const seconds = (performance.now() - appended) / 1000;
    await reader.cancel();
    expect(text).toContain('event: import_supplier.status_changed');
    expect(seconds).toBeLessThanOrEqual(1);
  });
});
