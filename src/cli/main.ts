import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { createLogger } from '../logger.js';
import { runServer } from '../server.js';
import { accountCommand } from './account-commands.js';
import { apiKeyCommand, configCommand, supplierCommand, teamCommand } from './operator-commands.js';
import { populateCommand } from './populate-commands.js';
import { UsageError } from './context.js';
import { eventsCommand } from './events-commands.js';
import { emailCommand } from './email-commands.js';
import { exportCommand } from './export-commands.js';
import { projectionsCommand, VerifyFailed } from './projection-commands.js';

/** Exit codes: 0 success, 1 a rule refused the change (or a runtime failure), 2 bad usage or configuration. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

export function buildProgram(): Command {
  const program = new Command('import-ledger')
    .description(
      'Operator command line of import-ledger. Acts on the PostgreSQL database of LEDGER_DATABASE_URL when set, else on the SQLite file of LEDGER_DATABASE (default ./data/ledger.db).',
    )
    .showHelpAfterError()
    .exitOverride();
  program
    .command('serve')
    .description('run the HTTP service (HOST, PORT, LEDGER_DATABASE or LEDGER_DATABASE_URL, ... from the environment)')
    .action(async () => {
      const config = loadConfig();
      await runServer(config, createLogger(config.LOG_LEVEL));
    });
  for (const command of [supplierCommand(), teamCommand(), apiKeyCommand(), accountCommand(), configCommand(), populateCommand(), projectionsCommand(), eventsCommand(), emailCommand(), exportCommand()]) {
    program.addCommand(command.exitOverride().showHelpAfterError());
    for (const sub of command.commands) sub.exitOverride().showHelpAfterError();
  }
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`error: ${error.detail} (${error.code})\n`);
      return EXIT.refused;
    }
    if (error instanceof VerifyFailed) {
      process.stderr.write(`${error.message}\n`);
      return EXIT.refused;
    }
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.refused;
  }
}
