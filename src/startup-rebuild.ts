import type { Logger } from 'pino';
import { inlineProjections } from '../projections/index.js';
import type { Ledger } from './ledger.js';

/**
 * Before the server accepts requests: a projection whose declared version
 * differs from the one its table was built with (or a new projection over
 * events already in the log) is rebuilt from the log, with progress logged.
 * On a shared database one instance does it; the others wait and find
 * nothing left to rebuild.
 */
export async function rebuildStaleProjections(ledger: Ledger, logger: Logger, watcher?: RebuildWatcher): Promise<void> {
  let lastLogged = 0;
  const summary = await ledger.projections.rebuildStale(inlineProjections, {
    onStale: (stale) => {
      watcher?.rebuildStarted(stale.map((p) => p.name));
      logger.info({ projections: stale.map((p) => `${p.name}@${p.version}`) }, 'projection versions changed: rebuilding from the log before serving');
    },
    onProgress: ({ eventsRead, eventsTotal }) => {
      watcher?.rebuildProgress(eventsRead, eventsTotal);
      if (eventsRead - lastLogged >= 100_000 || eventsRead === eventsTotal) {
        lastLogged = eventsRead;
        logger.info({ eventsRead, eventsTotal }, 'rebuilding projections');
      }
    },
  });
  watcher?.rebuildDone();
  if (summary) logger.info(summary, 'projections rebuilt');
}

/** Told how a start-up rebuild goes (the metrics' rebuild progress). */
export interface RebuildWatcher {
  rebuildStarted(projections: readonly string[]): void;
  rebuildProgress(eventsRead: number, eventsTotal: number): void;
  rebuildDone(): void;
}
