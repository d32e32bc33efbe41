import type { Logger } from 'pino';
import { inlineProjections } from '../projections/index.js';
import type { Ledger } from './ledger.js';

/**
 * Before the server accepts requests: a projection whose declared version
 * differs from the one its table was built with (or a new projection over
 * events already in the log) is rebuilt from the log, with progress logged.
 */
export async function rebuildStaleProjections(ledger: Ledger, logger: Logger): Promise<void> {
  const stale = await ledger.projections.stale(inlineProjections);
  if (stale.length === 0) return;
  const names = stale.map((p) => `${p.name}@${p.version}`);
  logger.info({ projections: names }, 'projection versions changed: rebuilding from the log before serving');
  let lastLogged = 0;
  const summary = await ledger.projections.rebuild(stale, {
    onProgress: ({ eventsRead, eventsTotal }) => {
      if (eventsRead - lastLogged >= 100_000 || eventsRead === eventsTotal) {
        lastLogged = eventsRead;
        logger.info({ eventsRead, eventsTotal }, 'rebuilding projections');
      }
    },
  });
  logger.info(summary, 'projections rebuilt');
}
