import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createImportSupplier, revokeApiKey } from '../../src/application/operator.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../src/application/tokens.js';
import { CREDENTIAL_RECHECK_MS, STREAM_ERROR_EVENT } from '../../src/http/routes/events-feed.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { createTestApi, operator, type TestApi } from '../support/ledger.js';
import { serveApp, SseClient, type ServedApp, type SseFrame } from '../support/sse.js';

/** How late past the recheck interval a stream may end: scheduling slack on a loaded machine. */
const SLACK_MS = 2_000;

let api: TestApi;
let served: ServedApp;
const clients: SseClient[] = [];

beforeEach(async () => {
  api = await createTestApi();
  served = await serveApp(api.app);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await served.close();
  await api.close();
});

async function openStream(credential: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const after = await api.ledger.log.lastPosition();
  const client = await SseClient.open(`${served.url}/v1/data-import/events/?after=${after}`, credential, headers);
  clients.push(client);
  expect(client.response.status).toBe(200);
  expect(client.response.headers.get('content-type')).toMatch(/text\/event-stream/);
  return client;
}

/** Appends an event (an operator's new import supplier): every open stream wakes and checks its credential. */
async function appendEvent(code: string): Promise<void> {
  await createImportSupplier(api.ledger, { code, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
}

function expectFinalAuthenticationError(frames: readonly SseFrame[], detail: RegExp): void {
  const last = frames[frames.length - 1];
  expect(last?.event).toBe(STREAM_ERROR_EVENT);
  const body = JSON.parse(last!.data) as { code: string; detail: string; errors: { code: string }[] };
  expect(body).toMatchObject({ code: 'authentication_failed', detail: expect.stringMatching(detail) });
  expect(body.errors[0]).toMatchObject({ code: 'authentication_failed' });
}

/** What the client's reconnect (with the last id it saw) is answered: the 401 a new request gets. */
async function expectReconnectRefused(credential: string): Promise<void> {
  const res = await fetch(`${served.url}/v1/data-import/events/`, {
    headers: { authorization: `Token ${credential}`, accept: 'text/event-stream', 'last-event-id': '1' },
  });
  await expectErrorBody(res, 401, 'authentication_failed');
}

describe('an open event stream ends when its credential stops being valid', () => {
  it('revoking the key ends a token’s stream at once with a final error event; the reconnect is 401', async () => {
    const token = await accessToken(api);
    const client = await openStream(token);
    // Alive: a wake-up by an append does not end it while the key is valid.
    await appendEvent('STILL_OPEN');
    expect(await client.endsWithin(500)).toBe(false);

    const revokedAt = performance.now();
    expect(await revokeApiKey(api.ledger, api.keyId, operator)).toBe(true);
    const frames = await client.readUntil((f) => f.event === STREAM_ERROR_EVENT, CREDENTIAL_RECHECK_MS + SLACK_MS);
    expectFinalAuthenticationError(frames, /revoked/);
    // The revocation's own append wakes the stream: no wait for the recheck interval.
    expect(performance.now() - revokedAt).toBeLessThan(CREDENTIAL_RECHECK_MS);
    expect(await client.endsWithin(1_000)).toBe(true);
    await expectReconnectRefused(token);
  });

  it('revoking the key ends a stream opened with the API key itself (Token <API key>)', async () => {
    const client = await openStream(api.key);
    expect(await revokeApiKey(api.ledger, api.keyId, operator)).toBe(true);
    const frames = await client.readUntil((f) => f.event === STREAM_ERROR_EVENT, CREDENTIAL_RECHECK_MS + SLACK_MS);
    expectFinalAuthenticationError(frames, /API key/);
    expect(await client.endsWithin(1_000)).toBe(true);
    await expectReconnectRefused(api.key);
  });

  it('a token that expires ends its stream within the recheck interval, with nothing appended; the reconnect is 401', async () => {
    const token = await accessToken(api);
    const client = await openStream(token);
    // Another key's stream stays open: the end is the expired token's, not every stream's.
    const otherClient = await openStream(api.otherKey);
    api.clock.advanceSeconds(ACCESS_TOKEN_TTL_SECONDS + 1);
    const frames = await client.readUntil((f) => f.event === STREAM_ERROR_EVENT, CREDENTIAL_RECHECK_MS + SLACK_MS);
    expectFinalAuthenticationError(frames, /expired/);
    expect(await client.endsWithin(1_000)).toBe(true);
    await expectReconnectRefused(token);
    expect(otherClient.ended).toBe(false);
    expect(await otherClient.endsWithin(500)).toBe(false);
  });
});
