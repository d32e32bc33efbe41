import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { parseTraceparent } from '../../src/http/trace-context.js';
import { MAX_REQUEST_ID_LENGTH } from '../../src/http/request-context.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/** Correlation: a caller's X-Request-Id and W3C traceparent follow the request into the events' metadata. */

const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const stagePayload = (ext: string) => ({ ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext });

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

describe('parseTraceparent', () => {
  it('takes every well-formed version-00 header as it is', () => {
    fc.assert(
      fc.property(hex(32), hex(16), hex(2), (traceId, parentId, flags) => {
        fc.pre(!/^0+$/.test(traceId) && !/^0+$/.test(parentId));
        const header = `00-${traceId}-${parentId}-${flags}`;
        expect(parseTraceparent(header)).toBe(header);
      }),
    );
  });

  it('reads the first four fields of a later version, and refuses version ff', () => {
    expect(parseTraceparent(`cc-${TRACEPARENT.slice(3)}-what-comes-later`)).toBe(`cc-${TRACEPARENT.slice(3)}`);
    expect(parseTraceparent(`ff-${TRACEPARENT.slice(3)}`)).toBeNull();
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['uppercase hex', TRACEPARENT.toUpperCase()],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['version 00 with a fifth field', `${TRACEPARENT}-extra`],
    ['not hex', '00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01'],
    ['a script', '<script>alert(1)</script>'],
  ])('refuses %s', (_name, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('never accepts a header that is not 55 characters of the W3C shape (arbitrary strings)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (header) => {
        const parsed = parseTraceparent(header);
        if (parsed !== null) expect(parsed).toMatch(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
      }),
    );
  });
});

describe('correlation through the real app', () => {
  let api: TestApi;
  let token: string;
  beforeEach(async () => {
    api = await createTestApi();
    token = await accessToken(api, api.key);
  });
  afterEach(async () => {
    await api.close();
  });

  it("records a valid traceparent and the caller's X-Request-Id in the stored event's metadata", async () => {
    const res = await api.post(STAGE, stagePayload('TRACE-1'), token, { traceparent: TRACEPARENT, 'x-request-id': 'lb-req-7f3a' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('lb-req-7f3a');
    const [stored] = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, 'TRACE-1'));
    expect(stored!.metadata).toMatchObject({ requestId: 'lb-req-7f3a', correlationId: 'lb-req-7f3a', traceparent: TRACEPARENT });
  });

  it('records no traceparent when none (or an invalid one) came: the metadata text is what it always was', async () => {
    expect((await api.post(STAGE, stagePayload('TRACE-2'), token)).status).toBe(201);
    expect((await api.post(STAGE, stagePayload('TRACE-3'), token, { traceparent: '00-zz-bad' })).status).toBe(201);
    for (const ext of ['TRACE-2', 'TRACE-3']) {
      const [stored] = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
      expect(Object.keys(stored!.metadata).sort()).toEqual(['actor', 'causationId', 'correlationId', 'eventId', 'requestId']);
    }
    const rows = await api.execute("SELECT metadata FROM events WHERE type = 'AccountStaged' ORDER BY global_position");
    const texts = rows.map((row) => String(row['metadata']));
    expect(texts).toHaveLength(2);
    for (const text of texts) expect(text).not.toContain('traceparent');
  });

  it(`accepts an X-Request-Id of at most ${MAX_REQUEST_ID_LENGTH} safe characters, else makes one`, async () => {
    const longest = 'a'.repeat(MAX_REQUEST_ID_LENGTH);
    const echoed = async (id: string) => (await api.app.request('/healthz', { headers: { 'x-request-id': id } })).headers.get('x-request-id');
    expect(await echoed(longest)).toBe(longest);
    expect(await echoed('A_b-c=9')).toBe('A_b-c=9');
    for (const bad of [`${longest}a`, 'has space', 'semi;colon', 'quote"d', 'ünïcode']) {
      const id = await echoed(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
