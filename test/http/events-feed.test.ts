import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeTransferStatus } from '../../src/application/account-import-processes.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

interface FeedEvent {
  position: number;
  id: string;
  type: string;
  timestamp: string;
  data: { import_supplier: string | null; external_account_number?: string } & Record<string, unknown>;
}

const supplierOf = (e: FeedEvent) => e.data.import_supplier;
/** The event's type and account: what most checks compare. */
const typeAndAccount = (e: FeedEvent) => [e.type, e.data.external_account_number];

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
  it('returns the external events in order, scoped to the token’s suppliers, without payloads', async () => {
    await populate();
    const events = await all();
    const mine = events.filter((e) => supplierOf(e) !== null);
    // process also records the staged payload's note and statement (docs/account-records.md)
    expect(mine.map(typeAndAccount)).toEqual([
      ['data_import.import_process.staged-v1', 'ACC-1'],
      ['data_import.import_process.staged-v1', 'ACC-2'],
      ['data_import.import_process.complete-v1', 'ACC-1'],
      ['data_import.post_import.completed-v1', 'ACC-1'],
      ['data_import.post_import.completed-v1', 'ACC-1'],
      ['data_import.transfer_status.changed-v1', 'ACC-1'],
      ['data_import.post_import.completed-v1', 'ACC-1'],
    ]);
    expect(mine.every((e) => supplierOf(e) === SUPPLIER)).toBe(true);
    const account = { import_supplier: SUPPLIER, external_account_number: 'ACC-1' };
    expect(mine[2]!.data).toMatchObject({ ...account, operations_team_name: TEAM, platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/) });
    expect(mine.slice(3, 5).map((e) => e.data['record_type'])).toEqual(['note', 'historical_statement']);
    expect(mine[5]!.data).toEqual({ ...account, from: 'PENDING', to: 'IN_PROGRESS' });
    expect(mine[6]!.data).toEqual({ ...account, record_type: 'transaction', transaction_id: 'TX-1', transaction_type: 'CHARGE', transaction_date: '2026-11-01', amount: '12.50' });
    for (const e of events) {
      expect(Object.keys(e)).toEqual(['position', 'id', 'type', 'timestamp', 'data']);
      expect(e.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(JSON.stringify(events)).not.toContain('Claire'); // no staged payload leaks
    expect(events.some((e) => e.type === 'data_import.product.created-v1' && supplierOf(e) === null)).toBe(true);
    const positions = events.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const others = (await all(otherToken)).filter((e) => supplierOf(e) !== null);
    expect(others.map((e) => e.data.external_account_number)).toEqual(['OTHER-1']);
  });

  it('a successful process dry run is import_process.dry_run_complete-v1, a failing one import_process.dry_run_error-v1, each seen only by its supplier', async () => {
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

    const mine = (await all()).filter((e) => supplierOf(e) !== null);
    expect(mine.map(typeAndAccount)).toEqual([
      ['data_import.import_process.staged-v1', 'ACC-1'],
      ['data_import.import_process.dry_run_complete-v1', 'ACC-1'],
      ['data_import.import_process.dry_run_error-v1', 'ACC-1'],
    ]);
    expect(mine[2]!.data).toEqual({
      import_supplier: SUPPLIER,
      external_account_number: 'ACC-1',
      operation: 'process',
      code: 'operations_team_name_does_not_exist',
      errors: [{ code: 'operations_team_name_does_not_exist', attr: 'operations_team_name' }],
    });
    expect(mine[1]!.data).toEqual({ import_supplier: SUPPLIER, external_account_number: 'ACC-1', platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/), operations_team_name: TEAM });
    const others = (await all(otherToken)).filter((e) => supplierOf(e) !== null);
    expect(others.map(typeAndAccount)).toEqual([
      ['data_import.import_process.staged-v1', 'OTHER-1'],
      ['data_import.import_process.dry_run_error-v1', 'OTHER-1'],
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
    async function readFrames(count: number, lastEventId?: string): Promise<{ id: string; name: string; event: FeedEvent }[]> {
      const res = await api.app.request('/v1/data-import/events/?limit=2', {
        headers: { authorization: `Token ${token}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      const frames: { id: string; name: string; event: FeedEvent }[] = [];
      while (frames.length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0 && frames.length < count) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (id && name && data) frames.push({ id, name, event: JSON.parse(data) as FeedEvent });
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
    const frames = [...first, ...rest, ...late];
    // `event:` is the type, `id:` the position, `data:` the feed item.
    expect(frames.every((f) => f.name === f.event.type && f.id === String(f.event.position))).toBe(true);
    const received = frames.map((f) => f.event);
    expect(received.slice(0, expected.length)).toEqual(expected);
    expect(late[0]!.event).toMatchObject({ type: 'data_import.import_process.staged-v1', data: { external_account_number: 'ACC-3' } });
    expect(new Set(received.map((e) => e.position)).size).toBe(received.length);
  });
});
