import { describe, expect, it } from 'vitest';
import { buildProgram, commandRegistry } from '../../src/cli/main.js';

/**
 * The fast start (src/cli/main.ts) lists commands from a registry without loading them: the registry
 * must say what the commands themselves say, or `--help` would drift from `<command> --help`.
 */
describe('the command registry', () => {
  it('names every command once, with the description the command itself has', async () => {
    const program = await buildProgram();
    expect(program.commands.map((c) => c.name())).toEqual(commandRegistry.map((e) => e.name));
    for (const entry of commandRegistry) {
      const command = program.commands.find((c) => c.name() === entry.name);
      expect({ name: entry.name, description: command?.description() }).toEqual({ name: entry.name, description: entry.description });
    }
  });

  it('every command and subcommand has a description (what --help shows)', async () => {
    const walk = (command: Awaited<ReturnType<typeof buildProgram>>, path: string): string[] =>
      command.commands.flatMap((c) => [...(c.description() ? [] : [`${path} ${c.name()}`]), ...walk(c, `${path} ${c.name()}`)]);
    expect(walk(await buildProgram(), 'import-ledger')).toEqual([]);
  });
});
