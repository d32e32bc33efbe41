import { Command, Option } from 'commander';
import type { FolderCliOptions } from '../migrate/folder-run.js';
import { ExitWith } from './exit.js';
import { concurrency, serviceUrl } from './migrate-command.js';

/** `import-ledger verify`: the definition only, as `migrate`'s; src/migrate/verify.ts is imported when it runs. */
export function verifyCommand(): Command {
  return new Command('verify')
    .description('compare a migration folder with what a running service holds for the supplier, over HTTP (with progress and a report)')
    .addHelpText(
      'after',
      '\nThe folder is the one migrate reads (docs/migrate.md). Compared: products and their rates, businesses and their contracts, each account\n' +
        '(imported once; else its state and latest refusal code), accounts the service holds that the folder does not, and per imported\n' +
        'account its notes, transactions, historical statements, payment instructions and ledger balance. Exit 0 the two agree, 1 they differ,\n' +
        '2 bad usage or configuration.',
    )
    .argument('<DIR>', 'the migration folder (docs/migrate.md)')
    .requiredOption('--url <BASE_URL>', 'the service, e.g. http://127.0.0.1:8080', serviceUrl)
    .requiredOption('--supplier <CODE>', 'the import supplier the accounts belong to')
    .addOption(new Option('--api-key <KEY>', 'the API key (default: the LEDGER_API_KEY environment variable)').env('LEDGER_API_KEY'))
    .option('--concurrency <N>', 'accounts compared in detail at once (1-64)', concurrency, 8)
    .option('--report <FILE>', 'the report, one line per difference: CSV when FILE ends in .csv, else NDJSON')
    .action(async function (this: Command, dir: string, opts: FolderCliOptions) {
      const { runVerifyCommand } = await import('../migrate/run-verify.js');
      const code = await runVerifyCommand(dir, opts, (message) => this.error(`error: ${message}`, { exitCode: 2 }));
      if (code !== 0) throw new ExitWith(code);
    });
}
