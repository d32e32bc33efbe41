import { Command, InvalidArgumentError, Option } from 'commander';
import { importSupplierStatuses, type ImportSupplierStatus } from '../../events/import-supplier.js';
import { serviceConfigKeys, type ServiceConfigKey } from '../../events/service-config.js';
import {
  createApiKey,
  createImportSupplier,
  createOperationsTeam,
  revokeApiKey,
  setImportSupplierConfig,
  setImportSupplierStatus,
  setServiceConfig,
} from '../application/operator.js';
import { effectiveConfigValue, serviceConfigSettings } from '../domain/service-config/service-config-settings.js';
import { info, JSON_OPTION_HELP, oneOf, operatorActor, out, printJson, table, withLedger } from './context.js';

/** A table row from a JSON view's row: the same fields, named in capitals. */
const upperCased = (row: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toUpperCase(), v]));

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function supplierCommand(): Command {
  const supplier = new Command('supplier').description('manage import suppliers (the groups migrated accounts belong to)');
  supplier
    .command('create')
    .description('create an import supplier')
    .argument('<CODE>', 'supplier code: 1-64 characters of A-Z, 0-9, _ and -')
    .addOption(new Option('--status <status>', 'initial migration status').choices([...importSupplierStatuses]).default('Ongoing'))
    .option('--send-emails', 'send automated customer emails on migration', false)
    .option('--document-root <path>', 'root of this supplier\'s documents inside the document store')
    .action(async (code: string, opts: { status: ImportSupplierStatus; sendEmails: boolean; documentRoot?: string }) => {
      await withLedger((ledger) =>
        createImportSupplier(
          ledger,
          { code, status: opts.status, sendEmails: opts.sendEmails, documentRoot: opts.documentRoot ?? null },
          operatorActor(),
        ),
      );
      info(`created import supplier ${code} (${opts.status})`);
    });
  supplier
    .command('set-status')
    .description('change the migration status of an import supplier')
    .argument('<CODE>', 'supplier code')
    .argument('<STATUS>', `one of ${importSupplierStatuses.join(', ')}`, oneOf(importSupplierStatuses))
    .action(async (code: string, status: ImportSupplierStatus) => {
      const changed = await withLedger((ledger) => setImportSupplierStatus(ledger, code, status, operatorActor()));
      info(changed ? `import supplier ${code} is now ${status}` : `import supplier ${code} was already ${status}`);
    });
  supplier
    .command('set-config')
    .description("change an import supplier's data-import configuration (only the options given change)")
    .argument('<CODE>', 'supplier code')
    .option('--send-emails', 'send automated customer emails on migration')
    .option('--no-send-emails', 'do not send them')
    .option('--document-root <path>', "root of this supplier's documents inside the document store")
    .option('--no-document-root', 'the supplier has no documents')
    .option('--default-team <name>', 'operations team of v2 scheduled creations that name none (must exist)')
    .option('--no-default-team', 'no default team: a v2 creation must name its team')
    .action(async (code: string, opts: { sendEmails?: boolean; documentRoot?: string | false; defaultTeam?: string | false }) => {
      const change: { sendEmails?: boolean; documentRoot?: string | null; defaultOperationsTeamName?: string | null } = {};
      if (opts.defaultTeam !== undefined) change.defaultOperationsTeamName = opts.defaultTeam === false ? null : opts.defaultTeam;
      if (opts.sendEmails !== undefined) change.sendEmails = opts.sendEmails;
      if (opts.documentRoot !== undefined) change.documentRoot = opts.documentRoot === false ? null : opts.documentRoot;
      const changed = await withLedger((ledger) => setImportSupplierConfig(ledger, code, change, operatorActor()));
      info(changed ? `import supplier ${code} configuration changed` : `import supplier ${code} configuration unchanged`);
    });
  supplier
    .command('list')
    .description('list import suppliers')
    .option('--json', JSON_OPTION_HELP, false)
    .action(async (opts: { json: boolean }) => {
      const rows = await withLedger((ledger) => ledger.read.listImportSuppliers());
      const view = rows.map((r) => ({
        code: r.code,
        status: r.status,
        send_emails: r.sendEmails,
        document_root: r.documentRoot,
        default_team: r.defaultOperationsTeamName,
        created_at: r.createdAt,
      }));
      if (opts.json) return printJson(view);
      if (view.length === 0) return info('no import suppliers yet');
      out(table(view.map((r) => upperCased({ ...r, send_emails: String(r.send_emails), document_root: r.document_root ?? '', default_team: r.default_team ?? '' }))));
    });
  return supplier;
}

export function teamCommand(): Command {
  const team = new Command('team').description('manage operations teams');
  team
    .command('create')
    .description('create an operations team')
    .argument('<NAME>', 'team name, as callers send it in operations_team_name')
    .action(async (name: string) => {
      await withLedger((ledger) => createOperationsTeam(ledger, name, operatorActor()));
      info(`created operations team ${name}`);
    });
  team
    .command('list')
    .description('list operations teams')
    .action(async () => {
      for (const name of await withLedger((ledger) => ledger.read.listOperationsTeams())) out(name);
    });
  return team;
}

export function apiKeyCommand(): Command {
  const apiKey = new Command('api-key').description('manage API keys (stored only as a hash)');
  apiKey
    .command('create')
    .description('create an API key scoped to import suppliers; prints only the key on stdout, once')
    .requiredOption('--supplier <CODE>', 'an import supplier the key may act for (repeatable)', collect)
    .option('--label <text>', 'a note to tell keys apart')
    .action(async (opts: { supplier: string[]; label?: string }) => {
      const { keyId, key } = await withLedger((ledger) =>
        createApiKey(ledger, { suppliers: opts.supplier, label: opts.label ?? null }, operatorActor()),
      );
      info(`created API key ${keyId} for ${opts.supplier.join(', ')}; the key below is shown only once`);
      out(key);
    });
  apiKey
    .command('revoke')
    .description('revoke an API key: it can no longer obtain tokens and its tokens stop working')
    .argument('<KEY_ID>', 'the key id printed when it was created (see api-key list)')
    .action(async (keyId: string) => {
      const changed = await withLedger((ledger) => revokeApiKey(ledger, keyId, operatorActor()));
      info(changed ? `revoked API key ${keyId}` : `API key ${keyId} was already revoked`);
    });
  apiKey
    .command('list')
    .description('list API keys (ids, scopes and status; never the keys)')
    .option('--json', JSON_OPTION_HELP, false)
    .action(async (opts: { json: boolean }) => {
      const rows = await withLedger((ledger) => ledger.read.listApiKeys());
      const view = rows.map((r) => ({ key_id: r.keyId, suppliers: r.suppliers, label: r.label, created_at: r.createdAt, revoked_at: r.revokedAt }));
      if (opts.json) return printJson(view);
      if (view.length === 0) return info('no API keys yet');
      out(table(view.map((r) => upperCased({ ...r, suppliers: r.suppliers.join(','), label: r.label ?? '', revoked_at: r.revoked_at ?? '' }))));
    });
  return apiKey;
}

const configValue = (value: string): number | null => {
  if (value === 'off') return null;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of at least 1, or off');
  return Number(value);
};

export function configCommand(): Command {
  const config = new Command('config').description('service-wide settings');
  config
    .command('set')
    .description('change a setting; takes effect on the server\'s next request')
    .argument('<KEY>', `one of ${serviceConfigKeys.join(', ')}`, oneOf(serviceConfigKeys))
    .argument('<VALUE>', 'a whole number, or off (where the setting allows it)', configValue)
    .action(async function (this: Command, key: ServiceConfigKey, value: number | null) {
      if (value === null && !serviceConfigSettings[key].offAllowed) {
        this.error(`error: ${key} cannot be turned off: expected a whole number of at least 1`, { exitCode: 2 });
      }
      const changed = await withLedger((ledger) => setServiceConfig(ledger, key, value, operatorActor()));
      info(changed ? `${key} = ${value ?? 'off'}` : `${key} was already ${value ?? 'off'}`);
    });
  config
    .command('get')
    .description('show a setting')
    .argument('<KEY>', `one of ${serviceConfigKeys.join(', ')}`, oneOf(serviceConfigKeys))
    .action(async (key: ServiceConfigKey) => {
      const value = effectiveConfigValue(key, await withLedger((ledger) => ledger.read.configValue(key)));
      out(value === null ? 'off' : String(value));
    });
  return config;
}
