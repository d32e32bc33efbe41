import { Command, InvalidArgumentError } from 'commander';
import { out, withLedger } from './context.js';

const position = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

export function eventsCommand(): Command {
  const events = new Command('events').description('read the event log');
  events
    .command('tail')
    .description('print the log as JSON lines, in global order')
    .option('--from <position>', 'start after this global position', position, 0)
    .option('--type <type>', 'only events of this type (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .action(async (opts: { from: number; type?: string[] }) => {
      await withLedger(async (ledger) => {
        const log = await ledger.log.open({ after: opts.from });
        for await (const batch of log) {
          for (const stored of batch) {
            if (opts.type && !opts.type.includes(stored.event.type)) continue;
            out(
              JSON.stringify({
                position: stored.globalPosition,
                stream: stored.streamId,
                streamPosition: stored.streamPosition,
                type: stored.event.type,
                version: stored.event.version,
                recordedAt: stored.recordedAt,
                metadata: stored.metadata,
                data: stored.event.data,
              }),
            );
          }
        }
      });
    });
  return events;
}
