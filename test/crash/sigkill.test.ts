import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { inlineProjections } from '../../projections/index.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { obtainToken } from '../../src/application/tokens.js';
import { openLedger, type LedgerLocation } from '../../src/ledger.js';
import { BIN, PROJECT_ROOT, cliEnv } from '../cli/run-cli.js';
import { createTestDatabaseLocation, databaseEnv, loadExample, operator, type TestDatabaseLocation } from '../support/ledger.js';
import { createExampleProducts } from '../support/products.js';
import { freePort } from '../support/net.js';

/** Crash cycles: a few in the default run, more with LEDGER_CRASH_CYCLES=50. */
const CYCLES = Number(process.env['LEDGER_CRASH_CYCLES'] ?? 3);
const SUPPLIER = 'LEGACY_ENERGIE';
const SECRET = 'crash-test-secret-0123456789-0123456789';
const account = JSON.stringify(loadExample('account-domestic.json'));


async function startServer(location: LedgerLocation): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ ...databaseEnv(location), PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'error', LEDGER_TOKEN_SECRET: SECRET }),
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 500; i++) {
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) return { child, base };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

/**
 * What is wrong with the database after the kill, from outside the service: SQLite's integrity_check of
 * the file; on PostgreSQL (whose server outlives the killed client) amcheck's checks of every table of the
 * ledger (verify_heapam) and of every B-tree index against its table (bt_index_check with heapallindexed).
 */
async function integrityProblems(db: TestDatabaseLocation): Promise<unknown[]> {
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

describe('crash safety (SIGKILL under concurrent stage/process/notes/transactions load, retried with Idempotency-Key)', () => {
  it(`after ${CYCLES} kills: every acknowledged write is stored once, the database is sound, projections equal a rebuild`, async () => {
    const db = await createTestDatabaseLocation();
    try {
      const setup = await openLedger(db.location);
      await createImportSupplier(setup, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
      await createOperationsTeam(setup, 'Migrations', operator);
      await createExampleProducts(setup);
      const { key } = await createApiKey(setup, { suppliers: [SUPPLIER], label: null }, operator);
      const { token } = await obtainToken(setup, SECRET, { apiKey: key });
      await setup.close();

      /**
       * Every write carries an Idempotency-Key. A request whose answer was lost with the server is sent
       * again, with the same key and body, after the restart: it must then succeed, and nothing may be
       * stored twice (the key is committed with the events, docs/reliability.md).
       */
      type Kind = 'stage' | 'process' | 'notes' | 'transactions';
      interface Write {
        readonly kind: Kind;
        readonly ext: string;
        readonly path: string;
        readonly body: string;
      }
      const writeFor = (kind: Kind, ext: string): Write => {
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
      };
      const next_: Record<Kind, Kind | null> = { stage: 'process', process: 'notes', notes: 'transactions', transactions: null };
      const acknowledged: Record<Kind, Set<string>> = { stage: new Set(), process: new Set(), notes: new Set(), transactions: new Set() };
      const imported = new Map<string, string>();
      let lost: Write[] = [];
      let replayed = 0;
      let next = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const { child, base } = await startServer(db.location);
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
        /** Sends one write; null when the connection died with the server. */
        const send = async (write: Write): Promise<Response | null> =>
          fetch(`${base}/v1/data-import/${write.path}`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': `${write.kind}-${write.ext}` },
            body: write.body,
          }).catch(() => null);
        const record = async (write: Write, res: Response): Promise<void> => {
          if (res.status !== 200 && res.status !== 201) throw new Error(`${write.kind} ${write.ext} answered ${res.status}: ${await res.text()}`);
          if (res.headers.get('idempotent-replayed') === 'true') replayed++;
          acknowledged[write.kind].add(write.ext);
          if (write.kind === 'process') imported.set(write.ext, ((await res.json()) as { platform_account_number: string }).platform_account_number);
        };
        /** Runs the chain of writes for one account from `first`; stops (remembering the write) if the server dies. */
        const chain = async (first: Write | null): Promise<boolean> => {
          for (let write = first; write; ) {
            const res = await send(write);
            if (!res) {
              lost.push(write);
              return false;
            }
            await record(write, res);
            const kind = next_[write.kind];
            write = kind ? writeFor(kind, write.ext) : null;
          }
          return true;
        };
        // First, the writes whose answers were lost in the last crash, again with the same keys.
        const retries = lost;
        lost = [];
        for (const write of retries) if (!(await chain(write))) break;

        let running = true;
        const worker = async () => {
          while (running) if (!(await chain(writeFor('stage', `CRASH-${next++}`)))) return;
        };
        const load = Promise.all(Array.from({ length: 8 }, worker));
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
        child.kill('SIGKILL');
        running = false;
        await exited;
        await load;

        const ledger = await openLedger(db.location);
        try {
          expect(await integrityProblems(db)).toEqual([]);
          for (const ext of acknowledged.stage) {
            const row = await ledger.read.findAccountImportProcess(SUPPLIER, ext);
            expect(row, `acknowledged staging of ${ext}`).not.toBeNull();
            const stream = await ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
            const count = (type: string) => stream.filter((e) => e.event.type === type).length;
            expect(count('AccountStaged')).toBe(1);
            expect(count('AccountProcessed')).toBeLessThanOrEqual(1);
            if (acknowledged.process.has(ext)) expect(count('AccountProcessed'), `processing of ${ext}`).toBe(1);
            expect(count('LedgerTransactionAdded')).toBeLessThanOrEqual(1);
            if (acknowledged.transactions.has(ext)) expect(count('LedgerTransactionAdded'), `transaction of ${ext}`).toBe(1);
            const requestNotes = (await ledger.read.listAccountNotes(SUPPLIER, ext)).filter((n) => n.body === `Crash note for ${ext}`);
            expect(requestNotes.length).toBeLessThanOrEqual(1);
            if (acknowledged.notes.has(ext)) expect(requestNotes, `note of ${ext}`).toHaveLength(1);
            expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
          }
          for (const [ext, number] of imported) {
            expect(await ledger.read.findAccountImportProcess(SUPPLIER, ext)).toMatchObject({ state: 'IMPORTED', platformAccountNumber: number });
          }
          expect((await ledger.projections.verify(inlineProjections)).differences).toEqual([]);
        } finally {
          await ledger.close();
        }
      }
      expect(acknowledged.transactions.size).toBeGreaterThan(0);
      if (process.env['LEDGER_CRASH_CYCLES']) console.log(`${CYCLES} cycles: ${acknowledged.stage.size} accounts, ${replayed} retries answered from a stored or rebuilt response`);
      const staged = acknowledged.stage;
      expect(staged.size).toBeGreaterThan(0);
    } finally {
      await db.release();
    }
  }, 120_000);
});
