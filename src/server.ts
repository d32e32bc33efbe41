import { serve, type ServerType } from '@hono/node-server';
import type { Logger } from 'pino';
import type { LedgerConfig } from './config.js';
import { LocalDirectoryDocumentStore } from './adapters/document-store.js';
import { createApp } from './http/app.js';
import { ledgerLocation, openLedger } from './ledger.js';
import { populateWorkerFromConfig } from './populate/worker-from-config.js';
import { paymentVendorsFromConfig } from './adapters/payment-vendors.js';
import { mailerFromConfig } from './mailer/mailer-from-config.js';
import { AccountCreationScheduler } from './scheduler/account-creation-scheduler.js';
import { DEMO_SUPPLIER, seedDemoData } from './seed.js';
import { rebuildStaleProjections } from './startup-rebuild.js';
import { BatchStats } from './store/write-batches.js';

/** Opens the ledger, seeds demo data on a fresh non-production database, and serves HTTP until a signal arrives. */
export async function runServer(config: LedgerConfig, logger: Logger): Promise<ServerType> {
  // On PostgreSQL, at debug level: every 5 s, how the writer batched and how long it held the writers' lock.
  const batchStats = logger.isLevelEnabled('debug') && config.LEDGER_DATABASE_URL ? new BatchStats() : null;
  const ledger = await openLedger(ledgerLocation(config), batchStats ? { onBatch: batchStats.add } : {});
  const statsTimer = batchStats
    ? setInterval(() => {
        const summary = batchStats.take();
        if (summary.batches > 0) logger.debug(summary, 'write batches');
      }, 5_000).unref()
    : null;
  logger.info({ database: ledger.location }, 'database opened');
  const tokenSecret = await ledger.tokenSecret(config.LEDGER_TOKEN_SECRET);
  await rebuildStaleProjections(ledger, logger);
  const upkeep = ledger.startUpkeep(logger);
  if (config.NODE_ENV !== 'production') {
    const demo = await seedDemoData(ledger);
    if (demo) printDemoKey(demo.key, config);
  }
  const app = createApp({
    ...ledger,
    logger,
    tokenSecret,
    maxBodyBytes: config.LEDGER_MAX_BODY_BYTES,
    databaseReachable: () => ledger.healthCheck(),
    documents: new LocalDirectoryDocumentStore(config.LEDGER_DOCUMENT_STORE),
    paymentVendors: paymentVendorsFromConfig(config),
  });
  const server = serve({ fetch: app.fetch, hostname: config.HOST, port: config.PORT }, (info) => {
    logger.info({ host: config.HOST, port: info.port }, `import-ledger listening on http://${config.HOST}:${info.port}`);
  });
  // Supply point pre-population runs beside the HTTP service, on the same ledger (docs/supply-points.md).
  const populateWorker = populateWorkerFromConfig(ledger, config, logger, { actor: 'system:populate-worker', requestId: null });
  populateWorker.start();
  // The customer-email outbox is delivered after commit, beside the HTTP service (docs/payment-instructions-and-emails.md).
  const mailer = mailerFromConfig(ledger, config, logger, { actor: 'system:mailer', requestId: null });
  mailer.start();
  // v2 scheduled account creations run as their windows open, on every instance, each once (README "v2 accounts").
  const scheduler = new AccountCreationScheduler({
    ctx: ledger,
    logger: logger.child({ component: 'scheduler' }),
    actor: { actor: 'system:scheduler', requestId: null },
  });
  scheduler.start();
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const workerStopped = Promise.all([populateWorker.stop(), mailer.stop(), scheduler.stop()]);
    server.close(() => {
      void workerStopped.finally(async () => {
        if (statsTimer) clearInterval(statsTimer);
        await upkeep.stop();
        await ledger.close();
        process.exit(0);
      });
    });
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return server;
}

function printDemoKey(key: string, config: LedgerConfig): void {
  const base = `http://${config.HOST}:${config.PORT}`;
  const query = JSON.stringify({
    query: 'mutation($key: String!) { obtainToken(input: {APIKey: $key}) { token refreshToken refreshExpiresIn } }',
    variables: { key },
  });
  process.stdout.write(
    [
      '',
      `First run: created import supplier ${DEMO_SUPPLIER} (Ongoing), operations team Migrations and an API key scoped to ${DEMO_SUPPLIER}.`,
      'The key is shown only this once:',
      '',
      `  ${key}`,
      '',
      'Obtain a token:',
      '',
      `  curl -s ${base}/v1/graphql/ -H 'Content-Type: application/json' -d '${query}'`,
      '',
    ].join('\n'),
  );
}
