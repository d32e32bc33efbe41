import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import pino from 'pino';
import type { PaymentVendors } from '../../src/adapters/payment-vendors.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { createApp } from '../../src/http/app.js';
import { migrate, type MigrateOptions, type MigrateResult } from '../../src/migrate/migrate.js';
import type { DifferenceLine } from '../../src/migrate/verify-report.js';
import { verify, type VerifyResult } from '../../src/migrate/verify.js';
import type { ReportLine } from '../../src/migrate/report.js';
import { createTestLedger, loadExample, operator, plainAppDeps, type TestLedger, type TestStore } from '../support/ledger.js';
import { checkedHandler } from '../support/openapi-check.js';

/**
 * The migrate tests' world: the real service on a real port over a temp database (its clock the test's
 * TestClock, so a token can be made to expire), a migration folder written to a temp directory, and a
 * tiny fault-injecting proxy in front of the service.
 */
export const SUPPLIER = 'LEGACY_ENERGIE';
export const TEAM = 'Migrations';
const SECRET = 'migrate-test-secret-0123456789-0123456789';

export interface RunningService extends TestLedger {
  readonly base: string;
  readonly apiKey: string;
  /** Requests the service received (after the proxy, if any). */
  requests: number;
  /** Called before each request reaches the app (e.g. to move the clock mid-run). */
  onRequest: ((count: number) => void) | null;
  /** The bodies of the token requests (POST /v1/graphql/) received, in order. */
  readonly tokenRequests: string[];
  /** Every POST under /v1/data-import/ received, in order: its path and its Idempotency-Key (null: none). */
  readonly posts: { readonly path: string; readonly idempotencyKey: string | null }[];
  /** Stops the service; fails when an answer it gave did not match the OpenAPI document. */
  stop(): Promise<void>;
}

/** `paymentVendors`: the service's vendors (none by default: payment instructions are refused `invalid_vendor`). */
export async function startService(options: { store?: TestStore; paymentVendors?: PaymentVendors } = {}): Promise<RunningService> {
  const test = await createTestLedger(options.store ? { store: options.store } : {});
  const { ledger } = test;
  await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(ledger, TEAM, operator);
  const { key } = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'migrate' }, operator);
  const app = createApp({
    ...ledger,
    ...plainAppDeps,
    ...(options.paymentVendors ? { paymentVendors: options.paymentVendors } : {}),
    logger: pino({ level: 'silent' }),
    tokenSecret: SECRET,
    maxBodyBytes: 5 * 1024 * 1024,
    databaseReachable: async () => true,
  });
  const service: RunningService = {
    ...test,
    base: '',
    apiKey: key,
    requests: 0,
    onRequest: null,
    tokenRequests: [],
    posts: [],
    stop: async () => undefined,
  };
  // Every answer the migrate command gets from the service is checked against the document on its way out.
  const mismatches: Error[] = [];
  const checked = checkedHandler((req) => app.fetch(req), (error) => mismatches.push(error));
  const server: ServerType = serve({
    fetch: async (req: Request) => {
      service.requests++;
      service.onRequest?.(service.requests);
      const path = new URL(req.url).pathname;
      if (path === '/v1/graphql/') service.tokenRequests.push(await req.clone().text());
      if (req.method === 'POST' && path.startsWith('/v1/data-import/')) service.posts.push({ path, idempotencyKey: req.headers.get('idempotency-key') });
      return checked(req);
    },
    hostname: '127.0.0.1',
    port: 0,
  });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(service, {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await test.close();
      if (mismatches.length > 0) throw new Error(`${mismatches.length} answers did not match the OpenAPI document; the first: ${mismatches[0]!.message}`);
    },
  });
}

/** Account number of the i-th account of a generated folder. */
export const ext = (i: number) => `LEG-${String(i).padStart(7, '0')}`;

export interface FolderSpec {
  readonly accounts: number;
  /** Accounts (by index) whose mobile number is broken: staging refuses them. */
  readonly invalid?: (i: number) => boolean;
  /** Accounts (by index) that get notes and transactions records. */
  readonly withRecords?: (i: number) => boolean;
  /** One NDJSON file instead of a file per account. */
  readonly ndjson?: boolean;
}

export interface Folder {
  readonly dir: string;
  readonly work: string;
  cleanup(): void;
}

/** The notes and transactions records of account i (two notes, two transactions). */
export function recordsOf(i: number) {
  return {
    notes: [
      { body: `Migrated note A of ${ext(i)}`, created_at: '2025-07-01T10:00:00Z' },
      { body: `Migrated note B of ${ext(i)}`, created_at: '2025-07-02T10:00:00Z', is_pinned: true },
    ],
    transactions: [
      { transaction_id: `TX-${i}-1`, transaction_date: '2025-07-02', amount: 35.2, type: 'CHARGE', reason: 'IMPORTED_CHARGE' },
      { transaction_id: `TX-${i}-2`, transaction_date: '2025-07-05', amount: 20, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION', reference: `PMT-${i}` },
    ],
  };
}

/** A migration folder: the example products and business, `accounts` domestic accounts, and records. */
export function writeFolder(spec: FolderSpec): Folder {
  const work = mkdtempSync(join(tmpdir(), 'import-ledger-migrate-'));
  const dir = join(work, 'in');
  mkdirSync(join(dir, 'businesses'), { recursive: true });
  writeFileSync(join(dir, 'products.json'), JSON.stringify(loadExample('products.json')));
  writeFileSync(join(dir, 'businesses', 'BIZ-000123.json'), JSON.stringify(loadExample('business.json')));
  const domestic = loadExample('account-domestic.json');
  const lines: string[] = [];
  if (!spec.ndjson) mkdirSync(join(dir, 'accounts'));
  for (let i = 1; i <= spec.accounts; i++) {
    const customers = (domestic['customers'] as Record<string, unknown>[]).map((c) => ({ ...c, ...(spec.invalid?.(i) ? { mobile: '12345' } : {}) }));
    const account = { ...domestic, external_account_number: ext(i), customers };
    if (spec.ndjson) lines.push(JSON.stringify(account));
    else writeFileSync(join(dir, 'accounts', `${ext(i)}.json`), JSON.stringify(account));
    if (spec.withRecords?.(i)) {
      mkdirSync(join(dir, 'records', ext(i)), { recursive: true });
      const records = recordsOf(i);
      writeFileSync(join(dir, 'records', ext(i), 'notes.json'), JSON.stringify(records.notes));
      writeFileSync(join(dir, 'records', ext(i), 'transactions.json'), JSON.stringify({ import_supplier: SUPPLIER, external_account_number: ext(i), transactions: records.transactions }));
    }
  }
  if (spec.ndjson) writeFileSync(join(dir, 'accounts.ndjson'), `${lines.join('\n')}\n`);
  return { dir, work, cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

/** Runs a migration in this process with quick retries and no progress output. */
export function runMigration(service: Pick<RunningService, 'base' | 'apiKey'>, folder: Folder, overrides: Partial<MigrateOptions> = {}): Promise<MigrateResult> {
  return migrate(
    {
      dir: folder.dir,
      baseUrl: service.base,
      supplier: SUPPLIER,
      team: TEAM,
      apiKey: service.apiKey,
      concurrency: 8,
      dryRun: false,
      stageOnly: false,
      reportFile: join(folder.work, 'report.ndjson'),
      journalFile: join(folder.work, 'report.ndjson.journal.ndjson'),
      fresh: false,
      retry: { attempts: 8, baseDelayMs: 5, maxDelayMs: 50 },
      progressStream: { write: () => true } as unknown as NodeJS.WritableStream,
      ...overrides,
    },
    () => undefined,
  );
}

export interface FaultProxy {
  readonly base: string;
  /** What was injected, by kind. */
  readonly injected: { throttled: number; unavailable: number; lost: number };
  stop(): Promise<void>;
}

/**
 * A tiny HTTP proxy on 127.0.0.1 in front of `target` that, for writes under /v1/data-import/, answers
 * 429 (with Retry-After: 0) or 503 instead of forwarding, or forwards and then cuts the connection
 * before the answer reaches the client (a lost answer: the write was applied), as `decide` says.
 */
export async function startFaultProxy(target: string, decide: (n: number) => 'pass' | 'throttle' | 'unavailable' | 'lose'): Promise<FaultProxy> {
  const injected = { throttled: 0, unavailable: 0, lost: 0 };
  const targetUrl = new URL(target);
  let n = 0;
  const server: HttpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const fault = req.method === 'POST' && req.url?.startsWith('/v1/data-import/') ? decide(++n) : 'pass';
      if (fault === 'throttle') {
        injected.throttled++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"detail":"slow down","code":"throttled","errors":[]}');
        return;
      }
      if (fault === 'unavailable') {
        injected.unavailable++;
        res.writeHead(503, { 'content-type': 'text/html' }).end('<html>503 Service Unavailable</html>');
        return;
      }
      const upstream = request(
        { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            if (fault === 'lose') {
              injected.lost++;
              res.socket?.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => res.socket?.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    injected,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Exactly-once checks, read from the database behind the service, as an auditor would. */
export async function duplicates(service: Pick<RunningService, 'execute'>) {
  const [processed] = await service.execute(
    "SELECT COUNT(*) AS n FROM (SELECT stream_id FROM events WHERE type = 'AccountProcessed' GROUP BY stream_id HAVING COUNT(*) > 1) d",
  );
  const [notes] = await service.execute(
    "SELECT COUNT(*) AS n FROM (SELECT stream_id, json_extract(data, '$.body') FROM events WHERE type = 'AccountNoteCreated' GROUP BY 1, 2 HAVING COUNT(*) > 1) d",
  );
  const [transactions] = await service.execute(
    "SELECT COUNT(*) AS n FROM (SELECT json_extract(data, '$.transaction.transactionId') FROM events WHERE type = 'LedgerTransactionAdded' GROUP BY 1 HAVING COUNT(*) > 1) d",
  );
  return { processed: Number(processed?.['n']), notes: Number(notes?.['n']), transactions: Number(transactions?.['n']) };
}

export async function countOf(service: Pick<RunningService, 'execute'>, type: string): Promise<number> {
  const [row] = await service.execute(`SELECT COUNT(*) AS n FROM events WHERE type = '${type}'`);
  return Number(row?.['n']);
}

export const reportLines = (folder: Folder, name = 'report.ndjson'): ReportLine[] =>
  readFileSync(join(folder.work, name), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ReportLine);

/** Runs a verification in this process with quick retries and no progress output; its report goes to `report` in the folder's work dir. */
export function runVerify(service: Pick<RunningService, 'base' | 'apiKey'>, folder: Folder, report = 'verify.ndjson'): Promise<VerifyResult> {
  return verify(
    {
      dir: folder.dir,
      baseUrl: service.base,
      supplier: SUPPLIER,
      apiKey: service.apiKey,
      concurrency: 4,
      reportFile: join(folder.work, report),
      retry: { attempts: 8, baseDelayMs: 5, maxDelayMs: 50 },
      progressStream: { write: () => true } as unknown as NodeJS.WritableStream,
    },
    () => undefined,
  );
}

/** The differences a verification reported. */
export const differences = (folder: Folder, report = 'verify.ndjson'): DifferenceLine[] =>
  readFileSync(join(folder.work, report), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as DifferenceLine);
