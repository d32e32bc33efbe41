import { Command } from 'commander';
import { OPERATOR_URL_ENV } from '../adapters/network-operators.js';
import { loadConfig } from '../config.js';
import { SUPPLY_TYPES } from '../domain/account-import-process/identifiers.js';
import { createLogger } from '../logger.js';
import { populateWorkerFromConfig, type PopulateProgress } from '../populate/worker.js';
import { info, operatorActor, withLedger } from './context.js';

function describe(progress: PopulateProgress): string {
  const { supplyType, identifier, batchId } = progress.request;
  const what = `${supplyType === 'ELECTRICITY' ? 'PRM' : 'PCE'} ${identifier} (batch ${batchId}, attempt ${progress.attempt})`;
  switch (progress.kind) {
    case 'imported':
      return `imported ${what}`;
    case 'errored':
      return `errored  ${what}: ${progress.reason}`;
    case 'retrying':
      return `retrying ${what} at ${progress.retryAt}: ${progress.reason}`;
    case 'released':
      return `released ${what}: stopped before the operator answered`;
  }
}

export function populateCommand(): Command {
  const populate = new Command('populate').description('supply point pre-population from the network operators');
  populate
    .command('run')
    .description(
      'work through the populate queue until every request has ended (imported or errored), then exit; progress on stderr. ' +
        'Uses LEDGER_ELECTRICITY_OPERATOR_URL, LEDGER_GAS_OPERATOR_URL, LEDGER_OPERATOR_TIMEOUT_MS and populate-rate-per-second.',
    )
    .action(async () => {
      const config = loadConfig();
      // Progress lines say what happens; the worker's own logs go to stderr, errors only unless LOG_LEVEL asks for more.
      const logger = createLogger(['debug', 'trace'].includes(config.LOG_LEVEL) ? config.LOG_LEVEL : 'error', false);
      for (const supplyType of SUPPLY_TYPES) {
        const variable = OPERATOR_URL_ENV[supplyType];
        if (!config[variable]) info(`warning: ${variable} is not set: ${supplyType} requests will be errored`);
      }
      const counts = { imported: 0, errored: 0, retrying: 0, released: 0 };
      let interrupted = false;
      await withLedger(async (ledger) => {
        const worker = populateWorkerFromConfig(ledger, config, logger, operatorActor(), (progress) => {
          counts[progress.kind]++;
          info(describe(progress));
        });
        const stop = () => {
          interrupted = true;
          void worker.stop();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await worker.drain();
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      });
      const summary = `${counts.imported} imported, ${counts.errored} errored, ${counts.retrying} transient failures retried`;
      info(interrupted ? `stopped (the rest stays queued): ${summary}` : `done: ${summary}`);
    });
  return populate;
}
