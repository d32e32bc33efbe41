import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createImportSupplier } from '../../src/application/operator.js';
import { openLedger } from '../../src/ledger.js';
import { operator, tempDatabaseFile } from '../support/ledger.js';
import { CLI_TEST_TIMEOUT_MS, expectedOperatorActor, runCli, storedEvents } from './run-cli.js';

/** `import-ledger webhook ...`: the operator's webhook endpoints, on the database (docs/webhooks.md). */

let db: { file: string; cleanup: () => void };
beforeEach(async () => {
  db = tempDatabaseFile();
  const ledger = await openLedger({ sqliteFile: db.file });
  try {
    await createImportSupplier(ledger, { code: 'ACME', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  } finally {
    await ledger.close();
  }
});
afterEach(() => db.cleanup());

const PRIVATE = { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

describe('import-ledger webhook', () => {
  it(
    'adds endpoints (JSON or lines, the secret once), refuses what the rules refuse, lists them',
    async () => {
      const added = await runCli(db.file, ['webhook', 'add', 'https://93.184.215.14/hooks', '--supplier', 'ACME', '--event', 'data_import.*', '--event', 'account.created-v1', '--description', 'CRM', '--json']);
      expect(added.code, added.stderr).toBe(0);
      const endpoint = JSON.parse(added.stdout) as Record<string, unknown>;
      expect(endpoint).toEqual({
        id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
        url: 'https://93.184.215.14/hooks',
        import_supplier_code: 'ACME',
        event_types: ['data_import.*', 'account.created-v1'],
        description: 'CRM',
        status: 'enabled',
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        created_at: expect.any(String),
      });

      const refused = await runCli(db.file, ['webhook', 'add', 'https://127.0.0.1/hooks', '--supplier', 'ACME']);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(/not a public address.*\(webhook_url_refused\)/);
      expect((await runCli(db.file, ['webhook', 'add', 'http://localhost:9000/in', '--supplier', 'ACME'])).code).toBe(1);
      // With private networks allowed (tests, on-premises): plain http to loopback, the secret on a line of its own.
      const local = await runCli(db.file, ['webhook', 'add', 'http://127.0.0.1:9000/in', '--supplier', 'ACME'], PRIVATE);
      expect(local.code, local.stderr).toBe(0);
      expect(local.stderr).toMatch(/shown only once/);
      expect(local.stdout).toMatch(/^ID +STATUS +URL +EVENT_TYPES\nwe_\w+ +enabled +http:\/\/127\.0\.0\.1:9000\/in +all\nsecret: whsec_\S+\n$/);

      const badUsage = await runCli(db.file, ['webhook', 'add', 'https://93.184.215.14/', '--supplier', 'ACME', '--event', 'account.created']);
      expect(badUsage.code).toBe(2);
      expect(badUsage.stderr).toMatch(/--event: Not an event type/);
      expect(await runCli(db.file, ['webhook', 'add', 'https://93.184.215.14/', '--supplier', 'NOPE'])).toMatchObject({ code: 1, stderr: expect.stringContaining('(import_supplier_not_found)') });

      const list = await runCli(db.file, ['webhook', 'list', '--json']);
      const rows = JSON.parse(list.stdout) as { id: string; url: string; status: string }[];
      expect(rows.map((r) => [r.url, r.status])).toEqual([
        ['https://93.184.215.14/hooks', 'enabled'],
        ['http://127.0.0.1:9000/in', 'enabled'],
      ]);
      expect(list.stdout).not.toContain('whsec_');
      expect(JSON.parse((await runCli(db.file, ['webhook', 'list', '--supplier', 'ACME', '--json'])).stdout)).toHaveLength(2);
      const created = storedEvents(db.file).filter((e) => e.type === 'WebhookEndpointCreated');
      expect(created.map((e) => e.metadata['actor'])).toEqual([expectedOperatorActor(), expectedOperatorActor()]);
      expect(JSON.stringify(storedEvents(db.file))).not.toContain('whsec_');
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );

  it(
    'disables and enables, rotates the secret, shows deliveries, asks for a replay and removes',
    async () => {
      const { id, secret } = JSON.parse((await runCli(db.file, ['webhook', 'add', 'https://93.184.215.14/hooks', '--supplier', 'ACME', '--json'])).stdout) as { id: string; secret: string };
      expect(await runCli(db.file, ['webhook', 'disable', id])).toMatchObject({ code: 0, stderr: `webhook endpoint ${id} disabled\n` });
      expect(await runCli(db.file, ['webhook', 'disable', id])).toMatchObject({ code: 0, stderr: `webhook endpoint ${id} was already disabled\n` });
      expect((await runCli(db.file, ['webhook', 'list'])).stdout).toMatch(/disabled \(operator\)/);
      expect(await runCli(db.file, ['webhook', 'enable', id])).toMatchObject({ code: 0, stderr: `webhook endpoint ${id} enabled\n` });

      const rotated = await runCli(db.file, ['webhook', 'rotate-secret', id]);
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).toMatch(/^whsec_\S+\n$/);
      expect(rotated.stdout.trim()).not.toBe(secret);
      expect(rotated.stderr).toMatch(/previous one signs too until/);

      const ledger = await openLedger({ sqliteFile: db.file });
      try {
        // Now: the ledger keeps attempts for the retention (7 days) behind the real clock.
        const attempt = { endpointId: id, eventType: 'account.created-v1', attempt: 1, durationMs: 8, attemptedAt: new Date().toISOString() };
        await ledger.webhookAttempts.record([
          { ...attempt, messageId: 'msg_1', position: 1, statusCode: 200, error: null, outcome: 'delivered' },
          { ...attempt, messageId: 'msg_2', position: 2, statusCode: null, error: 'connect ECONNREFUSED', outcome: 'failed' },
        ]);
      } finally {
        await ledger.close();
      }
      const failed = JSON.parse((await runCli(db.file, ['webhook', 'deliveries', id, '--failed', '--json'])).stdout) as { message_id: string; status_code: number | null; error: string }[];
      expect(failed).toEqual([expect.objectContaining({ message_id: 'msg_2', status_code: null, error: 'connect ECONNREFUSED', outcome: 'failed' })]);
      const table = await runCli(db.file, ['webhook', 'deliveries', id]);
      expect(table.stdout.split('\n')[0]).toMatch(/^ATTEMPTED_AT +OUTCOME +STATUS +MS +EVENT +ATTEMPT +ERROR$/);
      expect(table.stdout).toMatch(/failed +- +8 +account\.created-v1@2 +1 +connect ECONNREFUSED/);

      expect(await runCli(db.file, ['webhook', 'replay', id, '--since', '2020-01-01T00:00:00Z'])).toMatchObject({ code: 0, stderr: expect.stringContaining('from log position 1 on') });
      expect(await runCli(db.file, ['webhook', 'replay', id, '--from-position', '2'])).toMatchObject({ code: 0, stderr: expect.stringContaining('from log position 2 on') });
      expect((await runCli(db.file, ['webhook', 'replay', id])).code).toBe(2);
      expect((await runCli(db.file, ['webhook', 'replay', id, '--since', 'yesterday'])).code).toBe(2);
      expect((await runCli(db.file, ['webhook', 'replay', id, '--from-position', '0'])).code).toBe(2);

      expect(await runCli(db.file, ['webhook', 'remove', id])).toMatchObject({ code: 0 });
      for (const args of [['remove', id], ['enable', id], ['deliveries', id], ['rotate-secret', id]]) {
        expect(await runCli(db.file, ['webhook', ...args])).toMatchObject({ code: 1, stderr: expect.stringContaining('(webhook_endpoint_not_found)') });
      }
      expect(storedEvents(db.file).filter((e) => e.streamId === `webhook-endpoint:${id}`).map((e) => e.type)).toEqual([
        'WebhookEndpointCreated',
        'WebhookEndpointChanged',
        'WebhookEndpointChanged',
        'WebhookEndpointSecretRotated',
        'WebhookEndpointReplayRequested',
        'WebhookEndpointReplayRequested',
        'WebhookEndpointRemoved',
      ]);
    },
    CLI_TEST_TIMEOUT_MS * 3,
  );
});
