import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { errorFields, isDryRunSuccess, platformAccountNumber } from '../../src/migrate/answers.js';
import { parseRetryAfter } from '../../src/adapters/network-operators.js';
import { NoAnswer, type ApiAnswer, type ApiClient } from '../../src/migrate/api-client.js';
import { MigrationInput, type InputItem, type ReadItem } from '../../src/migrate/input.js';
import { countNonBlankLines } from '../../src/migrate/ndjson.js';
import { readAhead } from '../../src/migrate/read-ahead.js';
import { ForeignJournal, Journal, idempotencyKey, type JournalOwner } from '../../src/migrate/journal.js';
import { MigrateScratch } from '../../src/migrate/migrate-scratch.js';
import { Progress } from '../../src/migrate/progress.js';
import { Report } from '../../src/migrate/report.js';
import { backoffMs, classify, createSender, DEFAULT_RETRY_POLICY } from '../../src/migrate/retry.js';
import { createTokenSource, tokenLifetimeMs } from '../../src/migrate/token-source.js';

// Typed as whatever the fake answers for (the fakes below answer for any operation of the document).
const answer = <B = never>(status: number, body: unknown = {}, extra: Partial<ApiAnswer> = {}): ApiAnswer<B> =>
  ({ status, body, retryAfterMs: null, next: null, replayed: false, ...extra }) as ApiAnswer<B>;

describe('retries: decided by HTTP status only', () => {
  it('429, 408, 409 and 5xx are transient; 401 renews the token; other 4xx stand', () => {
    expect([429, 408, 409, 500, 502, 503, 504].map(classify)).toEqual(Array(7).fill('transient'));
    expect(classify(401)).toBe('reauthenticate');
    expect([200, 201, 400, 403, 404, 413, 415, 422].map(classify)).toEqual(Array(8).fill('done'));
  });

  it('property: a wait is between half the exponential ceiling and the ceiling, and never shorter than Retry-After (capped at 60 s)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.option(fc.integer({ min: 0, max: 600_000 })), fc.double({ min: 0, max: 0.999, noNaN: true }), (attempt, retryAfter, r) => {
        const policy = { attempts: 8, baseDelayMs: 250, maxDelayMs: 15_000 };
        const wait = backoffMs(policy, attempt, retryAfter, () => r);
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        expect(wait).toBeGreaterThanOrEqual(Math.round(ceiling / 2));
        if (retryAfter === null) expect(wait).toBeLessThanOrEqual(ceiling);
        else expect(wait).toBe(Math.max(Math.min(retryAfter, 60_000), Math.round(ceiling / 2 + (r * ceiling) / 2)));
      }),
    );
  });

  it('property: the default tries outlast a service restart of 15 s, whatever the draws (full jitter spent all eight within a 5 s restart)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 7, maxLength: 7 }), (draws) => {
        const waited = draws.reduce((sum, r, i) => sum + backoffMs(DEFAULT_RETRY_POLICY, i + 1, null, () => r), 0);
        expect(waited).toBeGreaterThanOrEqual(15_000);
      }),
    );
  });

  it('Retry-After in seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3', new Date())).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), new Date(4_000))).toBe(6000);
    expect(parseRetryAfter(null, new Date())).toBeNull();
    expect(parseRetryAfter('soon', new Date())).toBeNull();
  });

  it('the sender retries transient answers and lost connections, renews on 401, and gives up after the tries', async () => {
    const tokens = { current: async () => 't1', renew: async () => 't2' };
    const sent: string[] = [];
    const script: (ApiAnswer | Error)[] = [answer(503), new NoAnswer('reset'), answer(429, {}, { retryAfterMs: 1 }), answer(401), answer(201, { ok: 1 })];
    const sender = createSender(tokens, { attempts: 5, baseDelayMs: 1, maxDelayMs: 2 }, { stopped: () => false, sleep: async () => undefined });
    const outcome = await sender.send(async (token) => {
      sent.push(token);
      const next = script.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    expect(outcome).toMatchObject({ kind: 'answer', answer: { status: 201 }, attempts: 4 });
    const refusals = createSender(tokens, { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, { stopped: () => false, sleep: async () => undefined });
    expect(await refusals.send(async () => answer(400, { code: 'x' }))).toMatchObject({ kind: 'answer', attempts: 1 });
    expect(await refusals.send(async () => answer(503))).toMatchObject({ kind: 'answer', answer: { status: 503 }, attempts: 3 });
    expect(await refusals.send(async () => Promise.reject(new NoAnswer('down')))).toMatchObject({ kind: 'no-answer', attempts: 3 });
    const stopping = createSender(tokens, { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, { stopped: () => true, sleep: async () => undefined });
    expect(await stopping.send(async () => answer(503))).toEqual({ kind: 'interrupted' });
  });
});

describe('answers: error codes are data, decisions follow statuses and documented fields', () => {
  it('reads the spec-7 body, whatever the codes are called and whether attr is null or non_field_errors', () => {
    const body = { detail: 'Nope.', code: 'operations_team_name_does_not_exist', errors: [{ detail: 'x', code: 'c1', attr: null }, { detail: 'y', code: 'c2', attr: 'non_field_errors' }] };
    expect(errorFields(answer(400, body))).toEqual({ error_code: 'operations_team_name_does_not_exist', error_items: ':c1;non_field_errors:c2', detail: 'Nope.' });
    expect(errorFields(answer(400, { status: 'TRANSACTION_IMPORT_ERROR', error_detail: 'closed period', transaction_data: {} }))).toMatchObject({ error_code: 'TRANSACTION_IMPORT_ERROR', detail: 'closed period' });
    expect(errorFields(answer(503, '<html>down</html>'))).toMatchObject({ error_code: null, detail: '<html>down</html>' });
  });

  it('an already-imported account is known by its platform_account_number (spec 4.8), not its code', () => {
    expect(platformAccountNumber({ code: 'anything', platform_account_number: 'A-0000ABCD' })).toBe('A-0000ABCD');
    expect(platformAccountNumber({ code: 'account_already_imported' })).toBeNull();
  });

  it('a would-succeed process dry run is the documented 400 message, or a code that names the dry run', () => {
    expect(isDryRunSuccess(answer(400, { code: 'dry_run_rollback', detail: 'x' }))).toBe(true);
    expect(isDryRunSuccess(answer(400, { code: 'renamed', detail: 'Account would successfully import. Rolled back due to Dry Run.' }))).toBe(true);
    expect(isDryRunSuccess(answer(400, { code: 'account_marked_to_skip', detail: 'Marked to skip.' }))).toBe(false);
    expect(isDryRunSuccess(answer(201, { code: 'dry_run_rollback' }))).toBe(false);
  });
});

describe('tokens', () => {
  const jwt = (iat: number, exp: number) => `h.${Buffer.from(JSON.stringify({ iat, exp })).toString('base64url')}.s`;

  it('are renewed with the refresh token before they expire, on the client clock, whatever the service clock says', async () => {
    let now = 1_000_000;
    const asked: Record<string, string>[] = [];
    const client: Pick<ApiClient, 'graphql'> = {
      graphql: async (_query, variables) => {
        const input = variables['input'] as Record<string, string>;
        asked.push(input);
        // The service's clock is a year behind: only the lifetime (exp - iat) counts.
        return answer(200, { data: { obtainToken: { token: jwt(100 + asked.length, 100 + asked.length + 3600), refreshToken: 'r1', refreshExpiresIn: 0 } } });
      },
    };
    const tokens = createTokenSource(client, 'ilk_key', { now: () => now });
    const first = await tokens.current();
    now += 50 * 60 * 1000;
    expect(await tokens.current()).toBe(first);
    now += 6 * 60 * 1000; // within 5 minutes of the 60
    const second = await tokens.current();
    expect(second).not.toBe(first);
    expect(asked).toEqual([{ APIKey: 'ilk_key' }, { refreshToken: 'r1' }]);
    // A 401 renews once, however many workers saw it.
    const [a, b] = await Promise.all([tokens.renew(second), tokens.renew(second)]);
    expect(a).toBe(b);
    expect(asked).toHaveLength(3);
    expect(tokenLifetimeMs(first)).toBe(3_600_000);
  });

  it('fall back to the API key when the refresh token is refused', async () => {
    const asked: Record<string, string>[] = [];
    const client: Pick<ApiClient, 'graphql'> = {
      graphql: async (_q, variables) => {
        const input = variables['input'] as Record<string, string>;
        asked.push(input);
        if (input['refreshToken']) return answer(200, { data: { obtainToken: null }, errors: [{ message: 'expired' }] });
        return answer(200, { data: { obtainToken: { token: jwt(1, 3601), refreshToken: 'r', refreshExpiresIn: 0 } } });
      },
    };
    const tokens = createTokenSource(client, 'ilk_key');
    await tokens.renew(await tokens.current());
    expect(asked.map((i) => Object.keys(i)[0])).toEqual(['APIKey', 'refreshToken', 'APIKey']);
  });
});

describe('journal, keys and report', () => {
  it('Idempotency-Keys: stable for the same body, new for a changed one, printable ASCII of at most 255', () => {
    const key = idempotencyKey('SUP', 'stage', 'LEG-1', '{"a":1}');
    expect(idempotencyKey('SUP', 'stage', 'LEG-1', '{"a":1}')).toBe(key);
    expect(idempotencyKey('SUP', 'stage', 'LEG-1', '{"a":2}')).not.toBe(key);
    expect(idempotencyKey('SUP', 'process', 'LEG-1', '{"a":1}')).not.toBe(key);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (supplier, id) => {
        expect(idempotencyKey(supplier, 'stage', id, '{}')).toMatch(/^[\x21-\x7e]{1,255}$/);
      }),
    );
  });

  /** A journal as a new run opens it: with a scratch file of its own (closed after the test). */
  const scratches: MigrateScratch[] = [];
  afterEach(() => scratches.splice(0).forEach((scratch) => scratch.close()));
  const openJournal = async (file: string, fresh: boolean, whose: JournalOwner): Promise<Journal> => {
    const scratch = await MigrateScratch.open();
    scratches.push(scratch);
    return Journal.open(file, fresh, whose, scratch);
  };

  const owner = { service_id: '0b8c3f5e-0000-4000-8000-000000000001', supplier: 'LEGACY_ENERGIE', folder: '/data/migration' };

  it('the journal survives a torn last line, and --fresh starts it over with its owner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ledger-journal-'));
    try {
      const file = join(dir, 'j.ndjson');
      const journal = await openJournal(file, false, owner);
      journal.record({ step: 'accounts', id: 'LEG-1', outcome: 'imported', platform_account_number: 'A-1' });
      journal.close();
      const { appendFileSync } = await import('node:fs');
      appendFileSync(file, '{"step":"accounts","id":"LEG-2","outc');
      const reopened = await openJournal(file, false, owner);
      expect(reopened.finished('accounts', 'LEG-1')).toMatchObject({ outcome: 'imported', platform_account_number: 'A-1' });
      expect(reopened.finished('accounts', 'LEG-2')).toBeUndefined();
      reopened.close();
      const other = { ...owner, service_id: '0b8c3f5e-0000-4000-8000-000000000002' };
      const fresh = await openJournal(file, true, other);
      expect(fresh.size).toBe(0);
      fresh.close();
      expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
        expect.objectContaining({ journal: 'import-ledger migrate journal', ...other }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a journal is refused, before anything is read from it, for another service, supplier or folder, or when it names none", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ledger-journal-'));
    try {
      const file = join(dir, 'j.ndjson');
      const journal = await openJournal(file, false, owner);
      journal.record({ step: 'accounts', id: 'LEG-1', outcome: 'imported', platform_account_number: 'A-1' });
      journal.close();
      for (const changed of [{ service_id: '0b8c3f5e-0000-4000-8000-000000000002' }, { supplier: 'OTHER' }, { folder: '/data/other' }]) {
        await expect(openJournal(file, false, { ...owner, ...changed })).rejects.toThrow(ForeignJournal);
      }
      await expect(openJournal(file, false, { ...owner, service_id: 'x' })).rejects.toThrow(/belongs to service 0b8c3f5e-0000-4000-8000-000000000001, supplier LEGACY_ENERGIE, folder \/data\/migration; this run is service x.*Nothing was sent/);
      const old = join(dir, 'old.ndjson');
      writeFileSync(old, '{"step":"accounts","id":"LEG-1","outcome":"imported","at":"2026-01-01T00:00:00Z"}\n');
      await expect(openJournal(old, false, owner)).rejects.toThrow(/names no service/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CSV report quotes what needs quoting, and the summary counts outcomes and failed codes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ledger-report-'));
    try {
      const report = new Report(join(dir, 'r.csv'));
      const base = { platform_account_number: null, http_status: 400, error_items: 'customers.0.mobile:invalid_phone_number', detail: 'say "no", twice' };
      report.add({ step: 'accounts', id: 'A,1', outcome: 'failed', error_code: 'account_failed_validation', ...base });
      report.add({ step: 'accounts', id: 'A2', outcome: 'imported', error_code: null, ...base, http_status: 201, error_items: null, detail: null });
      report.close();
      expect(readFileSync(join(dir, 'r.csv'), 'utf8').split('\r\n')).toEqual([
        'step,id,outcome,platform_account_number,http_status,error_code,error_items,detail',
        'accounts,"A,1",failed,,400,account_failed_validation,customers.0.mobile:invalid_phone_number,"say ""no"", twice"',
        'accounts,A2,imported,,201,,,',
        '',
      ]);
      expect(report.summary()).toMatchObject({ byOutcome: { failed: 1, imported: 1 }, byErrorCode: { account_failed_validation: 1 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('progress', () => {
  const sink = (isTTY: boolean) => {
    const written: string[] = [];
    return { written, stream: { isTTY, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WritableStream & { isTTY?: boolean } };
  };

  it('off a terminal: a JSON line per running step every interval, and one when the step ends', async () => {
    const { written, stream } = sink(false);
    let now = 0;
    const progress = new Progress({ stream, intervalMs: 5, now: () => now });
    const step = progress.begin('accounts', 10);
    step.done = 4;
    step.failed = 1;
    now = 2000;
    await new Promise((resolve) => setTimeout(resolve, 30));
    step.done = 10;
    progress.end(step);
    progress.stop();
    const lines = written.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatchObject({ progress: 'accounts', done: 4, total: 10, failed: 1, per_second: 2, eta_seconds: 3, finished: false });
    expect(lines.at(-1)).toMatchObject({ progress: 'accounts', done: 10, finished: true, eta_seconds: 0 });
  });

  it('a step still being counted has no total and no ETA until its total is set', async () => {
    const { written, stream } = sink(false);
    let now = 0;
    const progress = new Progress({ stream, intervalMs: 5, now: () => now });
    const step = progress.begin('accounts', null);
    step.done = 4;
    now = 2000;
    await new Promise((resolve) => setTimeout(resolve, 30));
    step.total = 10;
    await new Promise((resolve) => setTimeout(resolve, 30));
    progress.stop();
    const lines = written.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ progress: 'accounts', done: 4, total: null, per_second: 2, eta_seconds: null, finished: false });
    expect(lines.at(-1)).toMatchObject({ progress: 'accounts', done: 4, total: 10, eta_seconds: 3, finished: false });
  });

  it('on a terminal: a step still being counted shows ? for its total and no ETA', () => {
    const { written, stream } = sink(true);
    let now = 0;
    const progress = new Progress({ stream, intervalMs: 5, now: () => now });
    const accounts = progress.begin('accounts', null);
    accounts.done = 25;
    now = 5000;
    progress.stop();
    expect(written.at(-1) ?? '').toMatch(/accounts +\[\.{28}\] 25\/\? 5\.0\/s ETA --  failed 0/);
  });

  it('on a terminal: a bar per step with done/total, rate, ETA and failures, redrawn in place', () => {
    const { written, stream } = sink(true);
    let now = 0;
    const progress = new Progress({ stream, intervalMs: 5, now: () => now });
    const products = progress.begin('products', 2);
    products.done = 2;
    now = 1000;
    progress.end(products);
    const accounts = progress.begin('accounts', 100);
    accounts.done = 25;
    accounts.failed = 3;
    now = 6000;
    progress.stop();
    const last = written.at(-1) ?? '';
    expect(last).toContain('\x1b[1A');
    expect(last).toMatch(/products +\[#+\] 2\/2 2\.0\/s done/);
    expect(last).toMatch(/accounts +\[#{7}\.{21}\] 25\/100 5\.0\/s ETA 15s  failed 3/);
  });
});

describe('input: the accounts of an NDJSON file', () => {
  it('are counted (the progress total) as readline splits them, blank lines left out, whatever the chunks the file is read in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ledger-count-'));
    try {
      const file = join(dir, 'accounts.ndjson');
      const line = fc.oneof(fc.constantFrom('', ' ', '\t', '\r', ' \r', '{}', '{"a":1}\r'), fc.string({ maxLength: 40 }).map((text) => text.replace(/\n/g, '')));
      await fc.assert(
        fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 17 }), async (lines, endsWithNewline, chunkBytes) => {
          writeFileSync(file, lines.join('\n') + (endsWithNewline && lines.length > 0 ? '\n' : ''));
          let expected = 0;
          for await (const read of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (read.trim() !== '') expected++;
          expect(await countNonBlankLines(file, chunkBytes)).toBe(expected);
        }),
        { numRuns: 200 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('input: the NDJSON record files', () => {
  it('a line is the same item (journal id, text sent) wherever it moves in the file; a supplier left out is filled in the same way every time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ledger-lines-'));
    try {
      mkdirSync(join(dir, 'records'));
      const a = '{"import_supplier":"SUP","external_account_number":"A","notes":[{"body":"x"}]}';
      const b = '{"external_account_number":"B","notes":[{"body":"y"}]}';
      const read = async () => {
        const items: ReadItem[] = [];
        for await (const item of new MigrationInput(dir).recordLines('notes', 'SUP')) items.push(item);
        return items;
      };
      writeFileSync(join(dir, 'records', 'notes.ndjson'), `${a}\n${b}\nnot json\n`);
      const first = await read();
      writeFileSync(join(dir, 'records', 'notes.ndjson'), `\n${b}\n${a}\n`);
      const moved = await read();
      const byId = (items: ReadItem[], id: string) => items.find((item) => item.id === id) as InputItem;
      for (const id of ['A', 'B']) {
        expect(byId(moved, id).journalId).toBe(byId(first, id).journalId);
        expect(byId(moved, id).json).toBe(byId(first, id).json);
      }
      expect(byId(first, 'A').json).toBe(a);
      expect(JSON.parse(byId(first, 'B').json!)).toEqual({ import_supplier: 'SUP', external_account_number: 'B', notes: [{ body: 'y' }] });
      expect(first[2]).toMatchObject({ id: 'line 3', problem: expect.stringContaining('not JSON') as unknown as string });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('read-ahead: the accounts read and prepared ahead of the workers', () => {
  /** A source that counts what was read of it, async or not, failing at `failAt` if given. */
  const source = (count: number, asynchronous: boolean, failAt?: number) => {
    const state = { read: 0 };
    async function* slow() {
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (i === failAt) throw new Error(`unreadable ${i}`);
        state.read++;
        yield i;
      }
    }
    return { state, items: asynchronous ? slow() : Array.from({ length: count }, (_, i) => (state.read++, i)) };
  };

  it('gives every item once, in the source\'s order, to any number of concurrent takers, never more than `depth` read ahead', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 10 }), fc.boolean(), async (count, depth, takers, asynchronous) => {
        const { state, items } = source(count, asynchronous);
        let prepared = 0;
        let taken = 0;
        const iterator = readAhead(items as AsyncIterable<number> | Iterable<number>, depth, (i) => (prepared++, { i }));
        const order: number[] = [];
        await Promise.all(
          Array.from({ length: takers }, async () => {
            for (;;) {
              const next = await iterator.next();
              if (next.done) return;
              taken++;
              order.push(next.value.i);
              // Never more prepared than taken, plus what is read ahead (and the reads the takers themselves wait on).
              expect(prepared - taken).toBeLessThanOrEqual(depth + takers);
              await new Promise((resolve) => setImmediate(resolve));
            }
          }),
        );
        expect(order).toEqual(Array.from({ length: count }, (_, i) => i));
        expect(prepared).toBe(count);
        if (asynchronous) expect(state.read).toBe(count);
      }),
      { numRuns: 60 },
    );
  });

  it('reads ahead while its takers wait, and passes a failure to read to the taker of that item', async () => {
    const { state, items } = source(10, true, 6);
    const iterator = readAhead(items, 4, (i) => i);
    expect(await iterator.next()).toEqual({ done: false, value: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.read).toBe(5); // the one taken and four ahead, none more
    for (let i = 1; i <= 5; i++) expect(await iterator.next()).toEqual({ done: false, value: i });
    await expect(iterator.next()).rejects.toThrow('unreadable 6');
  });
});
