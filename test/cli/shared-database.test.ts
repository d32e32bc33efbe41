import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { obtainToken } from '../../src/application/tokens.js';
import { createApp } from '../../src/http/app.js';
import { openLedger, type Ledger } from '../../src/ledger.js';
import { SUPPLIER, TEAM, TOKEN_SECRET, loadExample, operator, plainAppDeps, tempDatabaseFile } from '../support/ledger.js';
import { checkedApp } from '../support/openapi-check.js';
import { createExampleProducts } from '../support/products.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from './run-cli.js';

/**
 * A change made with the CLI while the server runs is visible to the
 * server's next request (no stale cache). The app stays open on the file
 * while the real bin writes to it from another process, with either SQLite writer.
 */
describe.each(['inline', 'thread'])('the CLI and a running app on the same database, writer %s', (writer) => {
  let db: { file: string; cleanup: () => void };
  let ledger: Ledger;
  let app: ReturnType<typeof createApp>;
  let keyId: string;
  let token: string;

  beforeEach(async () => {
    db = tempDatabaseFile();
    ledger = await openLedger({ sqliteFile: db.file }, { writerThread: writer === 'thread' });
    await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createOperationsTeam(ledger, TEAM, operator);
    await createExampleProducts(ledger); // the products the example's agreements name
    const created = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'shared database test' }, operator);
    keyId = created.keyId;
    app = checkedApp(
      createApp({
        ...ledger,
        ...plainAppDeps,
        logger: pino({ level: 'silent' }),
        tokenSecret: TOKEN_SECRET,
        maxBodyBytes: 5 * 1024 * 1024,
        databaseReachable: async () => true,
      }),
    );
    // Tokens come from the application service: this file is about the CLI, not the GraphQL route.
    token = (await obtainToken(ledger, TOKEN_SECRET, { apiKey: created.key })).token;
  });
  afterEach(async () => {
    await ledger.close();
    db.cleanup();
  });

  const stage = (externalAccountNumber: string) =>
    Promise.resolve(
      app.request('/v1/data-import/account-import-process/create-or-update/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
        body: JSON.stringify({ ...loadExample('account-domestic.json'), external_account_number: externalAccountNumber }),
      }),
    );
  const pending = () =>
    Promise.resolve(
      app.request(`/v1/data-import/pending-account-import-processes/${SUPPLIER}/`, { headers: { authorization: `Token ${token}` } }),
    );

  it(
    'supplier set-status Paused makes the next stage request answer 400 import_supplier_migration_not_ongoing',
    async () => {
      expect((await stage('LEG-SHARED-1')).status).toBe(201);

      const run = await runCli(db.file, ['supplier', 'set-status', SUPPLIER, 'Paused']);
      expect(run).toMatchObject({ code: 0 });

      const res = await stage('LEG-SHARED-2');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'import_supplier_migration_not_ongoing' });
      // Re-staging an account staged before the pause is refused too.
      expect((await stage('LEG-SHARED-1')).status).toBe(400);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'api-key revoke makes the next request with a token of that key answer 401 authentication_failed',
    async () => {
      expect((await pending()).status).toBe(200);

      const run = await runCli(db.file, ['api-key', 'revoke', keyId]);
      expect(run).toMatchObject({ code: 0 });

      const res = await pending();
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'authentication_failed' });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
