import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { inlineProjections } from '../../projections/index.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { obtainToken } from '../../src/application/tokens.js';
import { openLedger, type Ledger, type LedgerLocation } from '../../src/ledger.js';
import { BIN, PROJECT_ROOT, cliEnv } from '../cli/run-cli.js';
import { databaseEnv, loadExample, operator, type TestDatabaseLocation } from '../support/ledger.js';
import { freePort } from '../support/net.js';
import { createExampleProducts } from '../support/products.js';
import { checkedFetch } from '../support/openapi-check.js';

/**
 * The crash tests' workload: servers started as real processes (`import-ledger serve`) and killed with
 * SIGKILL, writes sent to them with an Idempotency-Key each, and the checks that hold after any kill.
 */

export const SUPPLIER = 'LEGACY_ENERGIE';
/** Crash cycles: a few in the default run, more with LEDGER_CRASH_CYCLES=50. */
export const CRASH_CYCLES = Number(process.env['LEDGER_CRASH_CYCLES'] ?? 3);
/** A crash test's time limit: it grows with the cycles it runs. */
export const crashTestTimeout = (cycles: number) => 60_000 + cycles * 20_000;
const SECRET = 'crash-test-secret-0123456789-0123456789';
const account = JSON.stringify(loadExample('account-domestic.json'));

export interface Server {
  readonly child: ChildProcess;
  readonly base: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

/** Starts `import-ledger serve` on `location`, with `env` added to its environment (a metrics port, a log level). */
export async function startServer(location: LedgerLocation, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ ...databaseEnv(location), PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'error', LEDGER_TOKEN_SECRET: SECRET, ...env }),
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 500; i++) {
    if ((await checkedFetch(`${base}/healthz`).catch(() => null))?.ok) return { child, base, exited };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

/** The supplier, team, products and a token of a key scoped to the supplier. */
export async function setUpCrashDatabase(location: LedgerLocation): Promise<string> {
  const setup = await openLedger(location);
  try {
    await createImportSupplier(setup, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createOperationsTeam(setup, 'Migrations', operator);
    await createExampleProducts(setup);
    const { key } = await createApiKey(setup, { suppliers: [SUPPLIER], label: null }, operator);
    return (await obtainToken(setup, SECRET, { apiKey: key })).token;
  } finally {
    await setup.close();
  }
}

/**
 * What is wrong with the database after the kill, from outside the service: SQLite's integrity_check of
 * the file; on PostgreSQL (whose server outlives the killed client) amcheck's checks of every table of the
 * ledger (verify_heapam) and of every B-tree index against its table (bt_index_check with heapallindexed).
 */
export async function integrityProblems(db: TestDatabaseLocation): Promise<unknown[]> {
  if (db.store === 'sqlite') return (await db.execute('PRAGMA integrity_check')).filter((row) => Object.values(row)[0] !== 'ok');
  await db.execute('CREATE EXTENSION IF NOT EXISTS amcheck');
  const problems: unknown[] = [];
  for (const { name } of await db.execute("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")) {
    problems.push(...(await db.execute(`SELECT '${String(name)}' AS relation, * FROM verify_heapam('public."${String(name)}"')`)));
  }
  const indexes = await db.execute(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND a.amname = 'btree' ORDER BY 1`,
  );
  expect(indexes.length).toBeGreaterThan(0);
  // bt_index_check raises an error (failing the test) on the first inconsistency it finds.
  for (const { name } of indexes) await db.execute(`SELECT bt_index_check('public."${String(name)}"'::regclass, true)`);
  return problems;
}

type Kind = 'stage' | 'process' | 'notes' | 'transactions';
interface Write {
  readonly kind: Kind;
  readonly ext: string;
  readonly path: string;
  readonly body: string;
}

const NEXT: Record<Kind, Kind | null> = { stage: 'process', process: 'notes', notes: 'transactions', transactions: null };

function writeFor(kind: Kind, ext: string): Write {
  switch (kind) {
    case 'stage':
      return { kind, ext, path: 'account-import-process/create-or-update/', body: account.replace('"LEG-0000001"', JSON.stringify(ext)) };
    case 'process':
      return { kind, ext, path: 'account-import-process/process/', body: JSON.stringify({ external_account_number: ext, import_supplier_code: SUPPLIER, operations_team_name: 'Migrations' }) };
    case 'notes':
      return { kind, ext, path: 'notes/create/', body: JSON.stringify({ import_supplier: SUPPLIER, external_account_number: ext, notes: [{ body: `Crash note for ${ext}` }] }) };
    case 'transactions':
      return {
        kind,
        ext,
        path: 'transactions/create/',
        body: JSON.stringify({
          import_supplier: SUPPLIER,
          external_account_number: ext,
          transactions: [{ transaction_id: `TX-${ext}`, transaction_date: '2025-07-02', amount: 12.5, type: 'CHARGE', reason: 'IMPORTED_CHARGE', display_note: 'Solde', note: 'Crash test' }],
        }),
      };
  }
}

/** How long a write whose key is held by a request in flight elsewhere (409 idempotency_key_in_progress) is retried. */
const IN_PROGRESS_RETRY_MS = 15_000;
/** How long a write answered 503 `store_unavailable` is retried (with `retryUnavailable`): an outage of the database. */
const UNAVAILABLE_RETRY_MS = 60_000;

/**
 * Chains of writes per account (stage, process, notes, transactions), each
 * carrying an Idempotency-Key. A write whose answer was lost with its server
 * is sent again, with the same key and body, to a server still up (at once)
 * or to the next one started: it must then succeed, and nothing may be stored
 * twice (the key is committed with the events, docs/reliability.md). Every
 * answer must be 2xx, except a 409 `idempotency_key_in_progress` while the
 * key's first request may still be in flight, which is retried.
 */
export class CrashWorkload {
  readonly acknowledged: Record<Kind, Set<string>> = { stage: new Set(), process: new Set(), notes: new Set(), transactions: new Set() };
  private readonly imported = new Map<string, string>();
  /** Writes whose answers were lost with a server and that no server was left to take. */
  private lost: Write[] = [];
  get lostWrites(): number {
    return this.lost.length;
  }
  /** Writes answered from a stored (or rebuilt) response. */
  replayed = 0;
  /** Writes answered after their connection died with a server (sent again to another). */
  failedOver = 0;
  private next = 0;
  /** 503 `store_unavailable` answers received (with `retryUnavailable`). */
  unavailableAnswers = 0;
  /** Writes whose outcome the client could not know at first (answered 503), by key: each is sent again with its key. */
  readonly unknownOutcomes = new Set<string>();
  /** Of those, the ones whose retry was answered from a stored response: they had been written after all. */
  unknownThenReplayed = 0;
  /** When the last write was acknowledged (ms since the epoch): how soon the service served again after a fault. */
  lastAcknowledgedAt = 0;

  /**
   * With `retryUnavailable`, a 503 `store_unavailable` (the database down, a connection lost) is no failure:
   * the write is sent again, with its key, until it is answered otherwise (at most a minute).
   */
  constructor(
    private readonly token: string,
    private readonly options: { readonly retryUnavailable?: boolean } = {},
  ) {}

  /** Sends one write; null when the connection died with the server. */
  private async send(base: string, write: Write): Promise<Response | null> {
    const key = `${write.kind}-${write.ext}`;
    const deadline = Date.now() + IN_PROGRESS_RETRY_MS;
    const outage = Date.now() + UNAVAILABLE_RETRY_MS;
    for (;;) {
      const res = await checkedFetch(`${base}/v1/data-import/${write.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${this.token}`, 'idempotency-key': key },
        body: write.body,
      }).catch(() => null);
      if (res?.status === 503 && this.options.retryUnavailable && Date.now() < outage) {
        const body = await res.text();
        if (!body.includes('"store_unavailable"') || res.headers.get('retry-after') === null) throw new Error(`${key} answered 503: ${body}`);
        this.unavailableAnswers++;
        this.unknownOutcomes.add(key);
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 150));
        continue;
      }
      if (res?.status !== 409 || Date.now() > deadline) {
        if (res?.headers.get('idempotent-replayed') === 'true' && this.unknownOutcomes.has(key)) this.unknownThenReplayed++;
        return res;
      }
      const body = await res.text();
      if (!body.includes('idempotency_key_in_progress')) throw new Error(`${write.kind} ${write.ext} answered 409: ${body}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async record(write: Write, res: Response): Promise<void> {
    if (res.status !== 200 && res.status !== 201) throw new Error(`${write.kind} ${write.ext} answered ${res.status}: ${await res.text()}`);
    if (res.headers.get('idempotent-replayed') === 'true') this.replayed++;
    this.acknowledged[write.kind].add(write.ext);
    this.lastAcknowledgedAt = Date.now();
    if (write.kind === 'process') this.imported.set(write.ext, ((await res.json()) as { platform_account_number: string }).platform_account_number);
  }

  /**
   * Runs the chain of writes for one account from `first`, each sent to the first of `bases()` that answers
   * (a load balancer's failover); stops, remembering the write, when none does.
   */
  private async chain(first: Write, bases: () => readonly string[]): Promise<boolean> {
    for (let write: Write | null = first; write; ) {
      let res: Response | null = null;
      const tried = bases();
      for (const [i, base] of tried.entries()) {
        res = await this.send(base, write);
        if (res) {
          if (i > 0) this.failedOver++;
          break;
        }
      }
      if (!res) {
        this.lost.push(write);
        return false;
      }
      await this.record(write, res);
      const kind: Kind | null = NEXT[write.kind];
      write = kind ? writeFor(kind, write.ext) : null;
    }
    return true;
  }

  /** Sends the writes whose answers were lost in the last crash again, with the same keys. */
  async retryLost(bases: () => readonly string[]): Promise<void> {
    const retries = this.lost;
    this.lost = [];
    for (const write of retries) if (!(await this.chain(write, bases))) break;
  }

  /** `workers` concurrent chains on new accounts until `running()` is false or no server answers; worker i uses `basesOf(i)`. */
  async load(workers: number, running: () => boolean, basesOf: (worker: number) => () => readonly string[]): Promise<void> {
    const worker = async (i: number) => {
      while (running()) if (!(await this.chain(writeFor('stage', `CRASH-${this.next++}`), basesOf(i)))) return;
    };
    await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  }

  /** Every acknowledged write is stored once, nothing is stored twice, and the projections equal a rebuild. */
  async verify(db: TestDatabaseLocation): Promise<void> {
    const ledger: Ledger = await openLedger(db.location);
    try {
      expect(await integrityProblems(db)).toEqual([]);
      for (const ext of this.acknowledged.stage) {
        const row = await ledger.read.findAccountImportProcess(SUPPLIER, ext);
        expect(row, `acknowledged staging of ${ext}`).not.toBeNull();
        const stream = await ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
        const count = (type: string) => stream.filter((e) => e.event.type === type).length;
        expect(count('AccountStaged')).toBe(1);
        expect(count('AccountProcessed')).toBeLessThanOrEqual(1);
        if (this.acknowledged.process.has(ext)) expect(count('AccountProcessed'), `processing of ${ext}`).toBe(1);
        expect(count('LedgerTransactionAdded')).toBeLessThanOrEqual(1);
        if (this.acknowledged.transactions.has(ext)) expect(count('LedgerTransactionAdded'), `transaction of ${ext}`).toBe(1);
        const requestNotes = (await ledger.read.listAccountNotes(SUPPLIER, ext)).filter((n) => n.body === `Crash note for ${ext}`);
        expect(requestNotes.length).toBeLessThanOrEqual(1);
        if (this.acknowledged.notes.has(ext)) expect(requestNotes, `note of ${ext}`).toHaveLength(1);
        expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
      }
      for (const [ext, number] of this.imported) {
        expect(await ledger.read.findAccountImportProcess(SUPPLIER, ext)).toMatchObject({ state: 'IMPORTED', platformAccountNumber: number });
      }
      // The global positions are gapless: 1..n, whatever died mid-batch.
      const [positions] = await db.execute('SELECT count(*) AS n, max(global_position) AS top FROM events');
      expect(Number(positions?.['n'])).toBe(Number(positions?.['top']));
      expect((await ledger.projections.verify(inlineProjections)).differences).toEqual([]);
    } finally {
      await ledger.close();
    }
  }
}
