import { Command, InvalidArgumentError, Option } from 'commander';
import type { MigrateCliOptions } from '../migrate/run-command.js';
import { ExitWith } from './exit.js';

/** An http:// or https:// URL: the service's base. */
export function serviceUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return value;
  } catch {
    throw new InvalidArgumentError('expected an http:// or https:// URL');
  }
}

/** `--concurrency N`: a whole number from 1 to 64 (migrate's requests in flight, verify's accounts compared at once). */
export function concurrency(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64) throw new InvalidArgumentError('expected a whole number from 1 to 64');
  return Number(value);
}

/**
 * Migrate's requests in flight when `--concurrency` is not given. The service commits the writes that arrive
 * together in one transaction (its group commit), so a deeper pipeline costs it less CPU an account, and
 * reads wait behind more writes: docs/migrate.md#concurrency gives the measurements behind 32.
 */
export const MIGRATE_CONCURRENCY = 32;

/** `import-ledger migrate`: the definition only, so `--help` costs no more than commander; src/migrate/ is imported when it runs. */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('migrate a folder into a running service over HTTP (resumable, with progress and a report)')
    .addHelpText(
      'after',
      '\nThe folder: products.json, businesses/*.json, businesses/payment-instructions.ndjson, accounts/*.json or accounts.ndjson,\n' +
        'records/<EXT>/{notes,transactions,statements,payment-instructions}.json, records/{notes,transactions,statements,payment-instructions}.ndjson;\n' +
        'a step whose input is absent is skipped. Every write carries an Idempotency-Key; settled items are journaled (FILE.journal.ndjson\n' +
        'beside --report, else ./migrate-<SUPPLIER>.journal.ndjson) and skipped by a re-run. Exit 0 nothing failed, 1 some items failed,\n' +
        '2 bad usage or configuration, 130 interrupted (Ctrl-C: the requests in flight finish; run again to resume).',
    )
    .argument('<DIR>', 'the migration folder (docs/migrate.md)')
    .requiredOption('--url <BASE_URL>', 'the service, e.g. http://127.0.0.1:8080', serviceUrl)
    .requiredOption('--supplier <CODE>', 'the import supplier the accounts belong to')
    .requiredOption('--team <NAME>', 'the operations team accounts are processed against')
    .addOption(new Option('--api-key <KEY>', 'the API key (default: the LEDGER_API_KEY environment variable)').env('LEDGER_API_KEY'))
    .option('--concurrency <N>', 'requests in flight at once (1-64)', concurrency, MIGRATE_CONCURRENCY)
    .option('--dry-run', 'validate everything and dry-run the process step of staged accounts; creates nothing, writes no journal', false)
    .option('--stage-only', 'stop after staging the accounts (no process, no records)', false)
    .option('--report <FILE>', 'the report, one line per item: CSV when FILE ends in .csv, else NDJSON; the journal is FILE.journal.ndjson')
    .option('--fresh', 'ignore (and start over) the journal of an earlier run', false)
    .action(async function (this: Command, dir: string, opts: MigrateCliOptions) {
      const { runMigrateCommand } = await import('../migrate/run-command.js');
      const code = await runMigrateCommand(dir, opts, (message) => this.error(`error: ${message}`, { exitCode: 2 }));
      if (code !== 0) throw new ExitWith(code);
    });
}
