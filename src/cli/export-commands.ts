import { once } from 'node:events';
import { createWriteStream, openSync, renameSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { Command } from 'commander';
import { reconciliationFormats, reconciliationParts, type ReconciliationFormat } from '../export/reconciliation-export.js';
import { keysetChunks } from '../queries/keyset-chunks.js';
import { info, oneOf, withLedger } from './context.js';
import { progressReporter } from './progress.js';

/** Writes with backpressure: waits for the stream to drain when its buffer is full. */
async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

export function exportCommand(): Command {
  const command = new Command('export').description('export read models for checks outside the service');
  command
    .command('reconciliation')
    .description(
      "one record per account of an import supplier (the cut-over check): external account number, state, platform account number, transfer status, first staged at, account created at, counts of notes, transactions and historical statements, ledger balance",
    )
    .argument('<SUPPLIER>', 'import supplier code')
    .option('--format <format>', `${reconciliationFormats.join(' or ')}`, oneOf(reconciliationFormats), 'csv' as ReconciliationFormat)
    .option('--output <file>', 'write to this file (complete or not at all: written beside it, then renamed); default stdout')
    .action(async (supplier: string, opts: { format: ReconciliationFormat; output?: string }) => {
      await withLedger(async (ledger) => {
        const total = await ledger.read.countAccountImportProcesses(supplier);
        const partial = opts.output === undefined ? null : `${opts.output}.partial`;
        // Opened here, so a path that cannot be written fails at once with its reason (exit 1).
        const target: Writable = partial === null ? process.stdout : createWriteStream(partial, { fd: openSync(partial, 'w') });
        let failure: Error | null = null;
        target.on('error', (error) => (failure ??= error));
        const progress = progressReporter(`export ${supplier}`);
        const tally = { items: 0 };
        const started = performance.now();
        try {
          const chunks = keysetChunks((range, limit) => ledger.read.reconciliationChunk(supplier, range, limit), { range: { after: null, through: null } });
          for await (const part of reconciliationParts(opts.format, chunks, tally)) {
            await write(target, part);
            if (failure) throw failure;
            progress.update(tally.items, total);
          }
          if (partial !== null) {
            target.end();
            await once(target, 'close');
            if (failure) throw failure;
            renameSync(partial, opts.output!);
          }
        } catch (error) {
          if (partial !== null) {
            target.destroy();
            rmSync(partial, { force: true });
          }
          throw error;
        }
        progress.done();
        const seconds = (performance.now() - started) / 1000;
        info(
          `exported ${tally.items.toLocaleString()} accounts of ${supplier} as ${opts.format}${opts.output ? ` to ${opts.output}` : ''} ` +
            `in ${seconds.toFixed(2)} s`,
        );
      }, supplier);
    });
  return command;
}
