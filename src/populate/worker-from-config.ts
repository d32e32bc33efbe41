import type { Logger } from 'pino';
import { networkOperatorsFromConfig, OPERATOR_URL_ENV } from '../adapters/network-operators.js';
import type { Actor } from '../application/context.js';
import type { LedgerConfig } from '../config.js';
import type { Ledger } from '../ledger.js';
import { SUPPLY_TYPES } from '../domain/account-import-process/identifiers.js';
import { leaseForTimeout, PopulateWorker, type PopulateProgress } from './worker.js';

/** The populate worker the server and `import-ledger populate run` use: operators and timeouts from the environment. */
export function populateWorkerFromConfig(
  ledger: Ledger,
  config: LedgerConfig,
  logger: Logger,
  actor: Actor,
  onProgress?: (progress: PopulateProgress) => void,
): PopulateWorker {
  const operators = networkOperatorsFromConfig(config, ledger.clock);
  const log = logger.child({ component: 'populate-worker' });
  for (const supplyType of SUPPLY_TYPES) {
    if (operators[supplyType].unavailableReason !== null) {
      log.warn({ supplyType, env: OPERATOR_URL_ENV[supplyType] }, `${OPERATOR_URL_ENV[supplyType]} is not set: ${supplyType} populate requests will error`);
    }
  }
  const options = { leaseMs: leaseForTimeout(config.LEDGER_OPERATOR_TIMEOUT_MS) };
  return new PopulateWorker({ ctx: ledger, limits: ledger.limits, operators, logger: log, actor, onProgress, options });
}
