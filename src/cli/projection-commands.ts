import { Command, Option } from 'commander';
import { inlineProjections } from '../../projections/index.js';
import type { AnyRowProjection } from '../../projections/projection.js';
import { info, out, withLedger } from './context.js';
import { progressReporter } from './progress.js';

const names = inlineProjections.map((p) => p.name);

/** `--name`: one projection (commander refuses any other name), else all of them. */
const nameOption = () => new Option('--name <projection>', 'only this projection').choices(names);

const select = (name: string | undefined): AnyRowProjection[] => inlineProjections.filter((p) => name === undefined || p.name === name);

/** Exit code 1 without a domain error: verify found differences. */
export class VerifyFailed extends Error {
  override name = 'VerifyFailed';
}

export function projectionsCommand(): Command {
  const projections = new Command('projections').description('rebuild and verify the read models from the event log');
  projections
    .command('rebuild')
    .description('replay the whole log into fresh tables and swap them in with one transaction (the server keeps serving meanwhile)')
    .addOption(nameOption())
    .action(async (opts: { name?: string }) => {
      const selected = select(opts.name);
      const progress = progressReporter('rebuild');
      const summary = await withLedger(async (ledger) =>
        ledger.projections.rebuild(selected, { onProgress: (p) => progress.update(p.eventsRead, p.eventsTotal) }),
      );
      progress.done();
      info(
        `rebuilt ${summary.projections.join(', ')}: ${summary.eventsRead.toLocaleString()} events read, ` +
          `${summary.rowsWritten.toLocaleString()} rows written in ${summary.seconds.toFixed(2)} s ` +
          `(${summary.eventsPerSecond.toLocaleString()} events/s)`,
      );
    });
  projections
    .command('verify')
    .description('rebuild into scratch tables and compare them row by row with the live ones; exit 1 on any difference')
    .addOption(nameOption())
    .action(async (opts: { name?: string }) => {
      const selected = select(opts.name);
      const progress = progressReporter('verify');
      const result = await withLedger(async (ledger) =>
        ledger.projections.verify(selected, { onProgress: (p) => progress.update(p.eventsRead, p.eventsTotal) }),
      );
      progress.done();
      if (result.differences.length === 0) {
        info(`verified ${selected.map((p) => p.name).join(', ')}: identical to a rebuild from ${result.eventsRead.toLocaleString()} events`);
        return;
      }
      for (const difference of result.differences) out(JSON.stringify(difference));
      throw new VerifyFailed(`${result.differences.length} row(s) differ between the live projections and a rebuild`);
    });
  return projections;
}
