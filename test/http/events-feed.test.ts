import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeTransferStatus } from '../../src/application/account-import-processes.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

interface FeedEvent {
  position: number;
  type: string;
  import_supplier: string | null;
  external_account_number?: string;
  data: Record<string, unknown>;
}

let api: TestApi;
let token: string;
let otherToken: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
  otherToken = await accessToken(api, api.otherKey);
});
afterEach(() => api.close());

async function stage(ext: string, supplier = SUPPLIER, tok = token) {
  const res = await api.post(
    '/v1/data-import/account-import-process/create-or-update/',
    { ...loadExample('account-domestic.json'), external_account_number: ext, import_supplier: supplier },
    tok,
  );
  expect(res.status).toBe(201);
}

async function feed(after: number, limit: number, tok = token): Promise<{ events: FeedEvent[]; next_after: number }> {
  const res = await api.get(`/v1/data-import/events/?after=${after}&limit=${limit}`, tok);
  expect(res.status).toBe(200);
  return (await res.json()) as { events: FeedEvent[]; next_after: number };
}

async function all(tok = token, limit = 1000): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await feed(after, limit, tok);
    events.push(...page.events);
    if (page.next_after === after) return events;
    after = page.next_after;
  }
}

async function populate() {
  await stage('ACC-1');
  await stage('ACC-2');
  await stage('OTHER-1', OTHER_SUPPLIER, otherToken);
  const processed = await api.post(
    '/v1/data-import/account-import-process/process/',
    { external_account_number: 'ACC-1', import_supplier_code: SUPPLIER, operations_team_name: TEAM },
    token,
  );
  expect(processed.status).toBe(201);
  await changeTransferStatus(api.ledger, SUPPLIER, 'ACC-1', 'IN_PROGRESS', operator);
  const tx = await api.post('/v1/data-import/transactions/create/', {
    import_supplier: SUPPLIER,
    external_account_number: 'ACC-1',
    transactions: [{ transaction_id: 'TX-1', transaction_date: '2026-11-01', amount: 12.5, type: 'CHARGE', reason: 'IMPORTED_CHARGE' }],
  }, token);
  expect(tx.status).toBe(201);
}

describe('GET /v1/data-import/events/', () => {
  it('returns integration events in order, scoped to the token’s suppliers, without payloads', async () => {
    await populate();
    const events = await all();
    const mine = events.filter((e) => e.import_supplier !== null);
    // process also records the staged payload's note and statement (docs/account-records.md)
    expect(mine.map((e) => [e.type, e.external_account_number])).toEqual([
      ['import_process.staged', 'ACC-1'],
      ['import_process.staged', 'ACC-2'],
      ['import_process.imported', 'ACC-1'],
      ['note.created', 'ACC-1'],
      ['historical_statement.imported', 'ACC-1'],
      ['transfer_status.changed', 'ACC-1'],
      ['transaction.added', 'ACC-1'],
    ]);
    expect(mine.every((e) => e.import_supplier === SUPPLIER)).toBe(true);
    expect(mine[2]!.data).toMatchObject({ operations_team_name: TEAM });
    expect(mine[5]!.data).toEqual({ from: 'PENDING', to: 'IN_PROGRESS' });
    expect(mine[6]!.data).toEqual({ transaction_id: 'TX-1', type: 'CHARGE', transaction_date: '2026-11-01', amount: '12.50' });
    expect(JSON.stringify(events)).not.toContain('Claire'); // no staged payload leaks
    expect(events.some((e) => e.type === 'product.created' && e.import_supplier === null)).toBe(true);
    const positions = events.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const others = (await all(otherToken)).filter((e) => e.import_supplier !== null);
    expect(others.map((e) => e.external_account_number)).toEqual(['OTHER-1']);
  });

  it('a successful process dry run is import_process.dry_run_succeeded, a failing one import_process.attempt_refused, each seen only by its supplier', async () => {
    await stage('ACC-1');
    await stage('OTHER-1', OTHER_SUPPLIER, otherToken);
    const dryRun = (ext: string, supplier: string, tok: string, team = TEAM) =>
      api.post(
        '/v1/data-import/account-import-process/process/',
        { external_account_number: ext, import_supplier_code: supplier, operations_team_name: team, dry_run: true },
        tok,
      );
    await expectErrorBody(await dryRun('ACC-1', SUPPLIER, token), 400, 'dry_run_rollback');
    await expectErrorBody(await dryRun('ACC-1', SUPPLIER, token, 'Nobody'), 400, 'operations_team_name_does_not_exist');
    await expectErrorBody(await dryRun('OTHER-1', OTHER_SUPPLIER, otherToken, 'Nobody'), 400, 'operations_team_name_does_not_exist');

    const mine = (await all()).filter((e) => e.import_supplier !== null);
    expect(mine.map((e) => [e.type, e.external_account_number])).toEqual([
      ['import_process.staged', 'ACC-1'],
      ['import_process.dry_run_succeeded', 'ACC-1'],
      ['import_process.attempt_refused', 'ACC-1'],
    ]);
    expect(mine[2]).toMatchObject({ data: { operation: 'process', dry_run: true, code: 'operations_team_name_does_not_exist' } });
    expect(mine[1]).toMatchObject({ import_supplier: SUPPLIER, data: { platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/), operations_team_name: TEAM } });
    expect(Object.keys(mine[1]!.data).sort()).toEqual(['operations_team_name', 'platform_account_number']);
    const others = (await all(otherToken)).filter((e) => e.import_supplier !== null);
    expect(others.map((e) => [e.type, e.external_account_number])).toEqual([
      ['import_process.staged', 'OTHER-1'],
      ['import_process.attempt_refused', 'OTHER-1'],
    ]);
  });

  it('pages with after/limit give the same events as one page, with nothing missed or repeated', async () => {
    await populate();
    const whole = await all(token, 1000);
    const paged = await all(token, 2);
    expect(paged).toEqual(whole);
  });

  it('refuses a bad or repeated query parameter with 400 invalid_query_parameter naming it, as the lists do', async () => {
    for (const [query, attr] of [['after=-1', 'after'], ['limit=0', 'limit'], ['limit=abc', 'limit'], ['after=0&after=5', 'after'], ['limit=5&limit=5', 'limit']]) {
      const body = await expectErrorBody(await api.get(`/v1/data-import/events/?${query}`, token), 400, 'invalid_query_parameter');
      expect(body.errors.map((e) => e.attr), query).toEqual([attr]);
    }
    // A parameter the feed does not read is ignored.
    expect((await api.get('/v1/data-import/events/?update_balance=maybe', token)).status).toBe(200);
  });

  it('streams server-sent events; a client that reconnects with Last-Event-ID misses and repeats nothing', async () => {
    await populate();
    const expected = await all();

    /** Reads `count` SSE frames from a stream, then disconnects. */
    async function readFrames(count: number, lastEventId?: string): Promise<{ id: string; event: FeedEvent }[]> {
      const res = await api.app.request('/v1/data-import/events/?limit=2', {
        headers: { authorization: `Token ${token}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      const frames: { id: string; event: FeedEvent }[] = [];
      while (frames.length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0 && frames.length < count) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (id && data) frames.push({ id, event: JSON.parse(data) as FeedEvent });
        }
      }
      await reader.cancel();
      return frames;
    }

    const first = await readFrames(3);
    const rest = await readFrames(expected.length - 3, first[2]!.id);
    // events appended while disconnected arrive too
    await stage('ACC-3');
    const late = await readFrames(1, rest[rest.length - 1]!.id);
    const received = [...first, ...rest, ...late].map((f) => f.event);
    expect(received.slice(0, expected.length)).toEqual(expected);
    expect(late[0]!.event).toMatchObject({ type: 'import_process.staged', external_account_number: 'ACC-3' });
    expect(new Set(received.map((e) => e.position)).size).toBe(received.length);
  });
});
