import { checkedRequest } from './openapi-check.js';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { inject } from 'vitest';
import { randomIds, type IdGenerator } from '../../src/application/clock-and-ids.js';
import type { Actor } from '../../src/application/context.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { createApp, type AppDeps } from '../../src/http/app.js';
import { emptyDocumentStore, type DocumentStore } from '../../src/adapters/document-store.js';
import { noPaymentVendors, type PaymentVendors } from '../../src/adapters/payment-vendors.js';
import type { LedgerMetrics } from '../../src/observability/metrics.js';
import type { StoreObserver } from '../../src/store/store-observer.js';
import type { IdempotencyRecords } from '../../src/store/idempotency.js';
import type { DestinationPolicy } from '../../src/relay/webhooks/destination.js';
import { openLedger, type Ledger, type LedgerLocation } from '../../src/ledger.js';
import { createTestDatabase, executeOn, postgresAvailable } from './postgres.js';
import { createExampleProducts } from './products.js';
import { executeOnFile } from './sqlite.js';

export const SUPPLIER = 'LEGACY_ENERGIE';
export const OTHER_SUPPLIER = 'OTHER_SUPPLIER';
export const TEAM = 'Migrations';
export const TOKEN_SECRET = 'test-secret-0123456789-0123456789-0123456789';
export const operator: Actor = { actor: 'operator:test', requestId: null };

/** A clock tests can move. */
export class TestClock {
  constructor(public now = new Date('2026-11-21T10:00:00.000Z')) {}
  readonly read = () => new Date(this.now.getTime());
  advanceSeconds(seconds: number) {
    this.advanceMs(seconds * 1000);
  }
  advanceMs(ms: number) {
    this.now = new Date(this.now.getTime() + ms);
  }
}

/**
 * Where test databases live: the memory file system where the machine has one (Linux's /dev/shm), else the
 * temp directory. Every commit of a SQLite ledger waits for its fsync, a good part of an HTTP test's time
 * on a disk and none in memory; what the tests check (a SIGKILL loses nothing acknowledged, a full or
 * read-only file is refused cleanly) holds the same there, and no test can cut the power.
 */
function testDatabaseRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** A database file in a directory of its own (in memory unless `onDisk`: for the faults only a disk file has). */
export function tempDatabaseFile(options: { onDisk?: boolean } = {}): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(options.onDisk ? tmpdir() : testDatabaseRoot(), 'import-ledger-test-'));
  return { file: join(dir, 'ledger.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The store a test ledger is opened on. */
export type TestStore = 'sqlite' | 'postgres';

/**
 * The store the tests of this process run on: LEDGER_TEST_STORE=postgres (the
 * "postgres" project of vitest.config.ts) opens every test ledger on a
 * PostgreSQL database of its own; unset or `sqlite`, on a temp SQLite file.
 */
export function testStore(): TestStore {
  const store = process.env['LEDGER_TEST_STORE'] || 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') throw new Error(`LEDGER_TEST_STORE must be sqlite or postgres, not ${JSON.stringify(store)}`);
  return store;
}

export interface TestLedger {
  readonly ledger: Ledger;
  readonly clock: TestClock;
  /** Which store backs the ledger: for the few checks that must be written per dialect. */
  readonly store: TestStore;
  /** Where the ledger lives: open a second instance on it (`openLedger`), or point a CLI run or a server at it (`databaseEnv`). */
  readonly location: LedgerLocation;
  /**
   * Runs one statement on a connection of its own to the database behind the
   * ledger, as an auditor, a database console or a crash would see it (no
   * application code in between); returns the rows it read (none for a
   * write, which commits at once). Integers are JS numbers on both stores
   * (PostgreSQL's int8 included); keep the SQL portable, or branch on `store`.
   */
  execute(sql: string): Promise<Record<string, unknown>[]>;
  /** Every row of `table` in a stable order (by its first two columns): what "identical tables" is checked on. */
  tableRows(table: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** The environment naming `location` to a CLI run or a server process (the other variable unset, so it cannot win). */
export function databaseEnv(location: LedgerLocation): Record<string, string | undefined> {
  return 'postgresUrl' in location
    ? { LEDGER_DATABASE_URL: location.postgresUrl, LEDGER_DATABASE: undefined }
    : { LEDGER_DATABASE: location.sqliteFile, LEDGER_DATABASE_URL: undefined };
}

/** An empty, migrated database of the test store, nothing open on it: where a test's ledger (or server, or CLI run) lives. */
export interface TestDatabaseLocation {
  readonly store: TestStore;
  readonly location: LedgerLocation;
  execute(sql: string): Promise<Record<string, unknown>[]>;
  /** Deletes the file, or empties the database and gives it back. */
  release(): Promise<void>;
}

/**
 * A database for one test on the store of `testStore()` (or `store`, for a
 * test of one store only): a temp SQLite file (created by the first ledger
 * that opens it), or a PostgreSQL database cloned from the migrated template
 * (test/support/postgres.ts).
 */
export async function createTestDatabaseLocation(store: TestStore = testStore()): Promise<TestDatabaseLocation> {
  if (store === 'postgres') {
    if (!postgresAvailable()) {
      throw new Error(`LEDGER_TEST_STORE=postgres, but ${(inject('postgres') as { unavailable: string }).unavailable}`);
    }
    const database = await createTestDatabase();
    return {
      store,
      location: { postgresUrl: database.url },
      execute: (sql) => executeOn(database.url, sql, { numbers: true }),
      release: () => database.drop(),
    };
  }
  const { file, cleanup } = tempDatabaseFile();
  return {
    store,
    location: { sqliteFile: file },
    execute: (sql) => executeOnFile(file, sql),
    release: async () => cleanup(),
  };
}

/**
 * A real ledger with a fixed clock, on the store LEDGER_TEST_STORE names: a
 * temp SQLite file (the default), or a PostgreSQL database of its own.
 */
export async function createTestLedger(options: { ids?: IdGenerator; store?: TestStore; observer?: StoreObserver } = {}): Promise<TestLedger> {
  const database = await createTestDatabaseLocation(options.store);
  const clock = new TestClock();
  let ledger: Ledger;
  try {
    ledger = await openLedger(database.location, { clock: clock.read, ids: options.ids ?? randomIds, ...(options.observer ? { observer: options.observer } : {}) });
  } catch (error) {
    await database.release();
    throw error;
  }
  return {
    ledger,
    clock,
    store: database.store,
    location: database.location,
    execute: database.execute,
    tableRows: (table) => database.execute(`SELECT * FROM "${table}" ORDER BY 1, 2`),
    close: async () => {
      try {
        await ledger.close();
      } finally {
        await database.release();
      }
    },
  };
}

/** The app dependencies a test leaves out unless it is about them: no documents, no payment vendors, no metrics, always ready. */
export const plainAppDeps = {
  documents: emptyDocumentStore,
  paymentVendors: noPaymentVendors,
  metrics: null,
  serviceState: () => 'ready',
} as const satisfies Partial<AppDeps>;

export function loadExample(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../fixtures/examples/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

export interface TestApi extends TestLedger {
  readonly app: ReturnType<typeof createApp>;
  /** A key scoped to SUPPLIER only. */
  readonly key: string;
  readonly keyId: string;
  /** A key scoped to OTHER_SUPPLIER only. */
  readonly otherKey: string;
  token(key?: string): Promise<string>;
  post(path: string, body: unknown, token: string, headers?: Record<string, string>): Promise<Response>;
  get(path: string, token: string): Promise<Response>;
}

/**
 * The real app over a test ledger (createTestLedger: a temp SQLite file, or a PostgreSQL database of its
 * own with LEDGER_TEST_STORE=postgres), with two suppliers, a team, one key for each supplier and (unless
 * `exampleProducts: false`) the products of products.json that the account examples name.
 */
export async function createTestApi(
  options: {
    maxBodyBytes?: number;
    ids?: IdGenerator;
    exampleProducts?: boolean;
    documents?: DocumentStore;
    paymentVendors?: PaymentVendors;
    store?: TestStore;
    /** The service's metrics: the store reports to it, and the app counts requests into it. */
    metrics?: LedgerMetrics;
    /** Wraps the store's Idempotency-Key records the app uses (to watch or hold them). */
    idempotency?: (records: IdempotencyRecords) => IdempotencyRecords;
    /** Where webhooks may go (LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS); public https only by default, as the service's. */
    webhookDestinations?: DestinationPolicy;
  } = {},
): Promise<TestApi> {
  const base = await createTestLedger({ ...options, ...(options.metrics ? { observer: options.metrics.observer } : {}) });
  const { ledger } = base;
  const seed = async () => {
    await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createImportSupplier(ledger, { code: OTHER_SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createOperationsTeam(ledger, TEAM, operator);
    if (options.exampleProducts !== false) await createExampleProducts(ledger);
    const mine = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'test' }, operator);
    const other = await createApiKey(ledger, { suppliers: [OTHER_SUPPLIER], label: 'other' }, operator);
    return { ...mine, other };
  };
  // A failed seed gives the database back (on PostgreSQL it would otherwise stay out of the worker's spares).
  const { key, keyId, other } = await seed().catch(async (error: unknown) => {
    await base.close();
    throw error;
  });
  const app = createApp({
    ...ledger,
    logger: pino({ level: 'silent' }),
    tokenSecret: TOKEN_SECRET,
    maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
    databaseReachable: async () => true,
    documents: options.documents ?? emptyDocumentStore,
    paymentVendors: options.paymentVendors ?? noPaymentVendors,
    metrics: options.metrics?.http ?? null,
    serviceState: () => 'ready',
    ...(options.idempotency ? { idempotency: options.idempotency(ledger.idempotency) } : {}),
    ...(options.webhookDestinations ? { webhookDestinations: options.webhookDestinations } : {}),
  });
  // Every answer a test receives through the app is checked against the OpenAPI document (test/support/openapi-check.ts).
  app.request = checkedRequest(app.request);
  const api: TestApi = {
    ...base,
    app,
    key,
    keyId,
    otherKey: other.key,
    async token(apiKey = key) {
      const res = await obtainToken(app, { APIKey: apiKey });
      const body = (await res.json()) as { data: { obtainToken: { token: string } | null } };
      if (!body.data.obtainToken) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.data.obtainToken.token;
    },
    post: (path, body, token, headers = {}) =>
      Promise.resolve(
        app.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    get: (path, token) => Promise.resolve(app.request(path, { headers: { authorization: `Token ${token}` } })),
  };
  return api;
}

export function obtainToken(
  app: ReturnType<typeof createApp>,
  input: { APIKey?: string; refreshToken?: string },
): Promise<Response> {
  return Promise.resolve(
    app.request('/v1/graphql/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation($input: ObtainTokenInput!) { obtainToken(input: $input) { token refreshToken refreshExpiresIn } }',
        variables: { input },
      }),
    }),
  );
}
