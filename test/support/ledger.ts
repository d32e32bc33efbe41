import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import type { Actor, IdGenerator } from '../../src/application/context.js';
import { randomIds } from '../../src/application/context.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { createApp } from '../../src/http/app.js';
import type { DocumentStore } from '../../src/adapters/document-store.js';
import type { PaymentVendors } from '../../src/adapters/payment-vendors.js';
import { openLedger, type Ledger } from '../../src/ledger.js';
import { createExampleProducts } from './products.js';

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
    this.now = new Date(this.now.getTime() + seconds * 1000);
  }
}

export function tempDatabaseFile(): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'import-ledger-test-'));
  return { file: join(dir, 'ledger.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestLedger {
  readonly ledger: Ledger;
  readonly clock: TestClock;
  /** The SQLite file behind the ledger (see sqlite.ts to look inside it). */
  readonly file: string;
  close(): Promise<void>;
}

/** A real ledger on a temp SQLite file with a fixed clock. */
export async function createTestLedger(options: { ids?: IdGenerator } = {}): Promise<TestLedger> {
  const { file, cleanup } = tempDatabaseFile();
  const clock = new TestClock();
  const ledger = await openLedger({ sqliteFile: file }, { clock: clock.read, ids: options.ids ?? randomIds });
  return {
    ledger,
    clock,
    file,
    close: async () => {
      await ledger.close();
      cleanup();
    },
  };
}

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
 * The real app over a temp-file database, with two suppliers, a team, one key for each supplier
 * and (unless `exampleProducts: false`) the products of products.json that the account examples name.
 */
export async function createTestApi(
  options: {
    maxBodyBytes?: number;
    ids?: IdGenerator;
    exampleProducts?: boolean;
    documents?: DocumentStore;
    paymentVendors?: PaymentVendors;
  } = {},
): Promise<TestApi> {
  const base = await createTestLedger(options);
  const { ledger } = base;
  await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createImportSupplier(ledger, { code: OTHER_SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(ledger, TEAM, operator);
  if (options.exampleProducts !== false) await createExampleProducts(ledger);
  const { key, keyId } = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'test' }, operator);
  const other = await createApiKey(ledger, { suppliers: [OTHER_SUPPLIER], label: 'other' }, operator);
  const app = createApp({
    ...ledger,
    logger: pino({ level: 'silent' }),
    tokenSecret: TOKEN_SECRET,
    maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
    databaseReachable: async () => true,
    documents: options.documents,
    paymentVendors: options.paymentVendors,
  });
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
