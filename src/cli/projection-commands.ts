import { Command } from 'commander';
import { inlineProjections } from '../../projections/index.js';
import type { AnyRowProjection } from '../../projections/projection.js';
import { info, out, UsageError, withLedger } from './context.js';
import { progressReporter } from './progress.js';

const names = inlineProjections.map((p) => p.name);

function select(name: string | undefined): AnyRowProjection[] {
  if (name === undefined) return [...inlineProjections];
  const projection = inlineProjections.find((p) => p.name === name);
  if (!projection) throw new UsageError(`unknown projection ${name}; one of ${names.join(', ')}`);
  return [projection];
}

/** Exit code 1 without a domain error: verify found differences. */
export class VerifyFailed extends Error {
  override name = 'VerifyFailed';
}

export function projectionsCommand(): Command {
  const projections = new Command('projections').description('rebuild and verify the read models from the event log');
  projections
    .command('rebuild')
    .description('replay the whole log into fresh tables and swap them in with one transaction (the server keeps serving meanwhile)')
    .option('--name <projection>', `only this projection: ${names.join(', ')}`)
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
    .option('--name <projection>', `only this projection: ${names.join(', ')}`)
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
