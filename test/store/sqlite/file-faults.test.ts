import { templateAnswer } from '../contract/harness.js';
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../../events/account-import-process.js';
import { inlineProjections } from '../../../projections/index.js';
import { randomIds } from '../../../src/application/clock-and-ids.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { createApp } from '../../../src/http/app.js';
import { assembleLedger, type Ledger } from '../../../src/ledger.js';
import { LedgerMetrics } from '../../../src/observability/metrics.js';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { sqliteLedger } from '../../../src/store/sqlite/open-sqlite-ledger.js';
import { loadExample, obtainToken, operator, plainAppDeps, SUPPLIER, TEAM, TestClock, TOKEN_SECRET, tempDatabaseFile } from '../../support/ledger.js';
import { parseScrape } from '../../support/metrics.js';
import { checkedRequest } from '../../support/openapi-check.js';
import { createExampleProducts } from '../../support/products.js';
import { skipBecause } from '../../support/skip.js';

/**
 * The faults a SQLite file can meet while the service runs: the disk full (SQLITE_FULL, through
 * `max_page_count`) and the file made read-only under the open connection (`chattr +i`). Each write is
 * answered 201 or 503 `store_unavailable` with `Retry-After`, never a 500; nothing is half-written; the
 * service writes again by itself once the fault is gone, and a write retried with its Idempotency-Key is
 * stored once.
 */

interface Served {
  readonly ledger: Ledger;
  readonly database: OpenDatabase;
  readonly metrics: LedgerMetrics;
  readonly app: ReturnType<typeof createApp>;
  readonly token: string;
  close(): Promise<void>;
}

const opened: Served[] = [];
afterEach(async () => {
  for (const served of opened.splice(0)) await served.close();
});

async function serve(): Promise<Served> {
  // On a disk: the read-only fault (chattr +i under the open connection) is met as a disk file meets it; tmpfs meets it otherwise.
  const { file, cleanup } = tempDatabaseFile({ onDisk: true });
  const database = openDatabase(file);
  const clock = new TestClock().read;
  const ledger = assembleLedger(sqliteLedger(database, { clock, newId: randomIds.uuid, rebuildAnswer: templateAnswer }), { clock, ids: randomIds });
  await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(ledger, TEAM, operator);
  await createExampleProducts(ledger);
  const { key } = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'faults' }, operator);
  const metrics = new LedgerMetrics();
  const app = createApp({
    ...ledger,
    ...plainAppDeps,
    logger: pino({ level: 'silent' }),
    tokenSecret: TOKEN_SECRET,
    maxBodyBytes: 5 * 1024 * 1024,
    databaseReachable: () => ledger.healthCheck(),
    metrics: metrics.http,
  });
  app.request = checkedRequest(app.request);
  const body = (await (await obtainToken(app, { APIKey: key })).json()) as { data: { obtainToken: { token: string } } };
  const served: Served = {
    ledger,
    database,
    metrics,
    app,
    token: body.data.obtainToken.token,
    close: async () => {
      await ledger.close();
      cleanup();
    },
  };
  opened.push(served);
  return served;
}

const account = (ext: string) => ({ ...loadExample('account-domestic.json'), external_account_number: ext });

/** Stages `ext` with the Idempotency-Key `stage-<ext>`. */
const stage = (s: Served, ext: string) =>
  Promise.resolve(
    s.app.request('/v1/data-import/account-import-process/create-or-update/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${s.token}`, 'idempotency-key': `stage-${ext}` },
      body: JSON.stringify(account(ext)),
    }),
  );

/** Sends every staging at once; sorts the answers into acknowledged and refused (503 store_unavailable). */
async function stageAll(s: Served, exts: readonly string[]): Promise<{ acknowledged: string[]; refused: { ext: string; body: Record<string, unknown> }[] }> {
  const answers = await Promise.all(exts.map(async (ext) => ({ ext, res: await stage(s, ext) })));
  const acknowledged: string[] = [];
  const refused: { ext: string; body: Record<string, unknown> }[] = [];
  for (const { ext, res } of answers) {
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 201 || res.status === 200) acknowledged.push(ext);
    else {
      expect({ ext, status: res.status, body }).toMatchObject({ status: 503, body: { code: 'store_unavailable' } });
      expect(res.headers.get('retry-after')).toBe('1');
      refused.push({ ext, body });
    }
  }
  return { acknowledged, refused };
}

/** Each staging acknowledged is stored once (one AccountStaged, one row), the file is sound, the projections equal a rebuild. */
async function expectStoredOnce(s: Served, exts: readonly string[]): Promise<void> {
  for (const ext of exts) {
    const stream = await s.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
    expect(stream.filter((e) => e.event.type === 'AccountStaged'), `staging of ${ext}`).toHaveLength(1);
    expect(await s.ledger.read.findAccountImportProcess(SUPPLIER, ext)).not.toBeNull();
  }
  expect(s.database.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  const [count] = s.database.sqlite.prepare('SELECT count(*) AS n, max(global_position) AS top FROM events').all() as { n: number; top: number }[];
  expect(count!.n).toBe(count!.top);
  expect((await s.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
}

const unavailableCount = async (s: Served, reason: string) => parseScrape((await s.metrics.text()).body).value('ledger_store_unavailable_total', { reason });

describe('SQLite: the disk fills up (SQLITE_FULL)', () => {
  it('writes answer 503 store_unavailable while the file cannot grow, nothing half-written; once it can, the same keys store each write once', async () => {
    const s = await serve();
    const before = await stageAll(s, ['FULL-0', 'FULL-1', 'FULL-2']);
    expect(before.refused).toEqual([]);
    // The file may not grow by one page: every write that needs a new page fails.
    const pages = s.database.sqlite.pragma('page_count', { simple: true }) as number;
    s.database.sqlite.pragma(`max_page_count = ${pages}`);
    const exts = Array.from({ length: 40 }, (_, i) => `FULL-${i + 3}`);
    const during = await stageAll(s, exts);
    expect(during.refused.length).toBeGreaterThan(0);
    expect(String(during.refused[0]!.body['detail'])).toContain('disk is full');
    expect(await unavailableCount(s, 'disk_full')).toBeGreaterThan(0);
    // Reads and the probes go on: the database answers.
    expect((await s.app.request('/healthz')).status).toBe(200);
    expect((await s.app.request('/readyz')).status).toBe(200);
    const got = await s.app.request(`/v1/data-import/account-transfer-status/${SUPPLIER}/FULL-0/`, {
      headers: { authorization: `Token ${s.token}` },
    });
    expect(got.status).toBe(200);
    // Nothing of a refused write is in the log.
    for (const { ext } of during.refused) expect(await s.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext))).toEqual([]);

    // Room again: the service writes by itself; every write, retried with its key, is stored once.
    s.database.sqlite.pragma('max_page_count = 1073741823');
    const after = await stageAll(s, exts);
    expect(after.refused).toEqual([]);
    await expectStoredOnce(s, [...before.acknowledged, ...exts]);
  });
});

/**
 * Whether `chattr` can make a file immutable here (root on a file system with the flag); else why not.
 * Under CI=true (root, like the CI machine) its absence is a failure, never a silent skip.
 */
function immutableFlag(): string | null {
  const { file, cleanup } = tempDatabaseFile({ onDisk: true });
  try {
    execFileSync('sh', ['-c', `mkdir -p "$(dirname '${file}')" && touch '${file}' && chattr +i '${file}' && chattr -i '${file}'`], { stdio: 'pipe' });
    return null;
  } catch (error) {
    const why = `chattr +i is unavailable here (it needs root and a file system with the immutable flag): ${(error as Error).message.split('\n')[0]}`;
    if (process.env['CI'] === 'true') throw new Error(`the read-only file test needs chattr under CI: ${why}`);
    return why;
  } finally {
    cleanup();
  }
}

describe('SQLite: the file turns read-only under the open connection', () => {
  if (skipBecause(immutableFlag())) return;
  it('writes answer 503 store_unavailable while the file and its WAL refuse writes, nothing half-written; back by itself afterwards', async () => {
    const s = await serve();
    const before = await stageAll(s, ['RO-0', 'RO-1']);
    expect(before.refused).toEqual([]);
    // The database file and its WAL: the shared-memory index stays writable (it is mapped: a write refused there is a SIGBUS).
    const files = [s.database.file, `${s.database.file}-wal`];
    execFileSync('chattr', ['+i', ...files]);
    const exts = Array.from({ length: 20 }, (_, i) => `RO-${i + 2}`);
    let during: Awaited<ReturnType<typeof stageAll>>;
    try {
      during = await stageAll(s, exts);
    } finally {
      execFileSync('chattr', ['-i', ...files]);
    }
    expect(during.acknowledged).toEqual([]);
    expect(during.refused).toHaveLength(exts.length);
    expect(String(during.refused[0]!.body['detail'])).toMatch(/read-only|cannot be read or written/);
    expect((await unavailableCount(s, 'io_error')) + (await unavailableCount(s, 'read_only'))).toBeGreaterThan(0);
    for (const ext of exts) expect(await s.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext))).toEqual([]);

    const after = await stageAll(s, exts);
    expect(after.refused).toEqual([]);
    await expectStoredOnce(s, [...before.acknowledged, ...exts]);
  });
});
