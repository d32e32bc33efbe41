import { Command, CommanderError } from 'commander';
import { ExitWith } from './exit.js';

/**
 * The command line starts fast: only commander is loaded up front. `--help` lists the registry's entries
 * without loading any, and a run loads only the module of the command it names (the bundle is split per
 * module). The descriptions are the commands' own (test/cli/cli-start.test.ts checks they agree).
 */
interface CommandEntry {
  readonly name: string;
  readonly description: string;
  readonly load: () => Promise<Command>;
}

export const commandRegistry: readonly CommandEntry[] = [
  {
    name: 'serve',
    description: 'run the HTTP service (HOST, PORT, LEDGER_DATABASE or LEDGER_DATABASE_URL, ... from the environment)',
    load: async () => (await import('./serve-command.js')).serveCommand(),
  },
  { name: 'supplier', description: 'manage import suppliers (the groups migrated accounts belong to)', load: async () => (await import('./operator-commands.js')).supplierCommand() },
  { name: 'team', description: 'manage operations teams', load: async () => (await import('./operator-commands.js')).teamCommand() },
  { name: 'api-key', description: 'manage API keys (stored only as a hash)', load: async () => (await import('./operator-commands.js')).apiKeyCommand() },
  { name: 'account', description: 'operator actions on account import processes', load: async () => (await import('./account-commands.js')).accountCommand() },
  { name: 'webhook', description: 'manage webhook endpoints: where external events are delivered, signed', load: async () => (await import('./webhook-commands.js')).webhookCommand() },
  { name: 'config', description: 'service-wide settings', load: async () => (await import('./operator-commands.js')).configCommand() },
  { name: 'populate', description: 'supply point pre-population from the network operators', load: async () => (await import('./populate-commands.js')).populateCommand() },
  { name: 'projections', description: 'rebuild and verify the read models from the event log', load: async () => (await import('./projection-commands.js')).projectionsCommand() },
  { name: 'events', description: 'read the event log', load: async () => (await import('./events-commands.js')).eventsCommand() },
  { name: 'emails', description: 'the customer-email outbox (welcome emails queued when accounts are processed)', load: async () => (await import('./email-commands.js')).emailCommand() },
  { name: 'export', description: 'export read models for checks outside the service', load: async () => (await import('./export-commands.js')).exportCommand() },
  { name: 'migrate', description: 'migrate a folder into a running service over HTTP (resumable, with progress and a report)', load: async () => (await import('./migrate-command.js')).migrateCommand() },
  { name: 'verify', description: 'compare a migration folder with what a running service holds for the supplier, over HTTP (with progress and a report)', load: async () => (await import('./verify-command.js')).verifyCommand() },
];

/** Exit codes: 0 success, 1 a rule refused the change (or a runtime failure), 2 bad usage or configuration. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

const DESCRIPTION =
  'Operator command line of import-ledger. Acts on the PostgreSQL database of LEDGER_DATABASE_URL when set, else on the SQLite file of LEDGER_DATABASE (default ./data/ledger.db).';

/**
 * Every command reports bad usage the one way commander does (its parse errors, `command.error()`): the
 * line, then where the usage is, never the whole usage text; an unknown option is named with the closest
 * known one. A runtime error is thrown and printed by `main`, its line only.
 */
function prepare(command: Command, path: string): Command {
  command.exitOverride().showHelpAfterError(`(see '${path} --help' for usage)`).showSuggestionAfterError();
  checkRequiredOptionsLast(command);
  for (const sub of command.commands) prepare(sub, `${path} ${sub.name()}`);
  return command;
}

/**
 * Commander checks required options before it looks for unknown ones, so a misspelt `--suplier` would be
 * reported as a missing `--supplier`. They are checked in `preAction` instead: it runs once the unknown
 * options and the missing arguments were reported.
 */
function checkRequiredOptionsLast(command: Command): void {
  const required = command.options.filter((option) => option.mandatory);
  for (const option of required) option.makeOptionMandatory(false);
  if (required.length === 0) return;
  command.hook('preAction', () => {
    const missing = required.find((option) => command.getOptionValue(option.attributeName()) === undefined);
    if (missing) command.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
  });
}

/** The program with the commands `loaded` picks loaded, the others as stubs that only list themselves in help. */
async function programWith(loaded: (name: string) => boolean): Promise<Command> {
  const program = new Command('import-ledger').description(DESCRIPTION);
  for (const entry of commandRegistry) {
    program.addCommand(loaded(entry.name) ? await entry.load() : new Command(entry.name).description(entry.description));
  }
  return prepare(program, 'import-ledger');
}

/** The program with every command loaded (for tests and tools that walk the whole tree). */
export const buildProgram = (): Promise<Command> => programWith(() => true);

export async function main(argv: readonly string[]): Promise<number> {
  try {
    const named = argv.find((arg) => !arg.startsWith('-'));
    await (await programWith((name) => name === named)).parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ExitWith) return error.code;
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // The error classes live with the commands' code: looked up only when one was thrown.
    const [{ DomainError }, { VerifyFailed }, { ConfigError }] = await Promise.all([
      import('../domain/errors.js'),
      import('./projection-commands.js'),
      import('../config.js'),
    ]);
    if (error instanceof DomainError) {
      process.stderr.write(`error: ${error.detail} (${error.code})\n`);
      return EXIT.refused;
    }
    if (error instanceof VerifyFailed) {
      process.stderr.write(`${error.message}\n`);
      return EXIT.refused;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.refused;
  }
}
