import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { setServiceConfig } from '../../src/application/operator.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/**
 * Simultaneous process calls (spec 4.8): one account is never imported twice,
 * and the optional concurrency limit of spec 8.1 answers 429 past it.
 */

const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const CALLS = 20;

interface ProcessBody {
  platform_account_number?: string;
  external_account_number?: string;
  detail?: string;
  code?: string;
  errors?: { detail: string; code: string; attr: string | null }[];
}


let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});

afterEach(() => {
  api.close();
});

async function stage(ext: string): Promise<void> {
  const res = await api.post(STAGE, { ...loadExample('account-domestic.json'), external_account_number: ext }, token);
  expect(res.status).toBe(201);
}

const processCall = (ext: string) =>
  api.post(PROCESS, { external_account_number: ext, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);

/** Fires all calls before awaiting any: they run concurrently inside the one app. */
async function fire(exts: readonly string[]): Promise<{ status: number; retryAfter: string | null; body: ProcessBody }[]> {
  const responses = await Promise.all(exts.map((ext) => processCall(ext)));
  return Promise.all(
    responses.map(async (res) => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as ProcessBody,
    })),
  );
}

describe('simultaneous process calls for one staged account', () => {
  it(`${CALLS} calls yield exactly one 201; the others are account_import_process_already_imported with the same number`, async () => {
    const ext = 'LEG-0000001';
    await stage(ext);

    const results = await fire(Array.from({ length: CALLS }, () => ext));

    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(1);
    const number = created[0]?.body.platform_account_number;
    expect(number).toMatch(/^A-[0-9A-F]{8}$/);
    expect(refused).toHaveLength(CALLS - 1);
    for (const { status, body } of refused) {
      expect({ status, code: body.code }).toEqual({ status: 400, code: 'account_import_process_already_imported' });
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'errors', 'external_account_number', 'non_field_errors', 'platform_account_number']);
      expect(body.external_account_number).toBe(ext);
      expect(body.platform_account_number).toBe(number);
    }

    const stream = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
    expect(stream.filter((stored) => stored.event.type === 'AccountProcessed')).toHaveLength(1);
    // Staged, processed, then the records the staged payload brings: contiguous, appended by one process only.
    expect(stream.map((stored) => stored.streamPosition)).toEqual(stream.map((_, i) => i + 1));
    const processedAt = stream.findIndex((stored) => stored.event.type === 'AccountProcessed');
    expect(new Set(stream.slice(processedAt).map((stored) => stored.metadata.causationId)).size).toBe(1);
  });
});

describe('the process concurrency limit (spec 8.1)', () => {
  it('with a limit of 1, simultaneous calls for different accounts get some 429 throttled with Retry-After; off again, all succeed', async () => {
    const exts = Array.from({ length: CALLS }, (_, i) => `LEG-C-${String(i).padStart(3, '0')}`);
    for (const ext of exts) await stage(ext);
    await setServiceConfig(api.ledger, 'process-concurrency-limit', 1, operator);

    const limited = await fire(exts);

    const throttled = limited.filter((r) => r.status === 429);
    const created = limited.filter((r) => r.status === 201);
    expect(throttled.length).toBeGreaterThan(0);
    expect(created.length).toBeGreaterThan(0);
    expect(throttled.length + created.length).toBe(CALLS);
    for (const { body, retryAfter } of throttled) {
      expect(body.code).toBe('throttled');
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'errors']);
      for (const item of body.errors ?? []) expect(Object.keys(item).sort()).toEqual(['attr', 'code', 'detail']);
      expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    }
    for (const { body } of created) expect(body.platform_account_number).toMatch(/^A-[0-9A-F]{8}$/);

    // A throttled call appended nothing: the account is still only staged.
    const throttledExts = exts.filter((_, i) => limited[i]?.status === 429);
    for (const ext of throttledExts) {
      expect(await api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, ext))).toBe(1);
    }

    await setServiceConfig(api.ledger, 'process-concurrency-limit', null, operator);
    const retried = await fire(throttledExts);
    expect(retried.map((r) => r.status)).toEqual(throttledExts.map(() => 201));
  });

  it('is disabled by default: 20 simultaneous calls for different accounts all succeed', async () => {
    const exts = Array.from({ length: CALLS }, (_, i) => `LEG-D-${String(i).padStart(3, '0')}`);
    for (const ext of exts) await stage(ext);
    const results = await fire(exts);
    expect(results.map((r) => r.status)).toEqual(exts.map(() => 201));
    const numbers = new Set(results.map((r) => r.body.platform_account_number));
    expect(numbers.size).toBe(CALLS);
  });
});
