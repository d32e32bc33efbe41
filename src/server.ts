import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Logger } from 'pino';
import type { LedgerConfig } from './config.js';
import { LocalDirectoryDocumentStore } from './adapters/document-store.js';
import { inlineProjections } from '../projections/index.js';
import { createApp, type ServiceState } from './http/app.js';
import { createStartingApp } from './http/starting-app.js';
import { ledgerLocation, openLedger } from './ledger.js';
import { LedgerMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { populateWorkerFromConfig } from './populate/worker.js';
import { paymentVendorsFromConfig } from './adapters/payment-vendors.js';
import { mailerFromConfig } from './mailer/mailer.js';
import { AccountCreationScheduler } from './scheduler/account-creation-scheduler.js';
import { DEMO_SUPPLIER, seedDemoData } from './seed.js';
import { rebuildStaleProjections } from './startup-rebuild.js';
import { BatchStats } from './store/write-batches.js';
import { RelayThread } from './relay/relay-thread.js';
import { threadEntry } from './thread-module.js';
import { RelayMetrics } from './relay/relay-metrics.js';

/**
 * Serves probes from the first moment (`starting`), opens the ledger, rebuilds stale projections, seeds
 * demo data on a fresh non-production database, then serves the API until a signal; after SIGTERM it
 * drains for LEDGER_DRAIN_DELAY_MS (docs/operations.md "Probes") and stops.
 */
export async function runServer(config: LedgerConfig, logger: Logger): Promise<ServerType> {
  let state: ServiceState = 'starting';
  const metrics = config.LEDGER_METRICS_PORT === undefined ? null : new LedgerMetrics({ ready: () => state === 'ready' });
  const metricsServer = metrics
    ? await startMetricsServer(metrics, config.LEDGER_METRICS_HOST, config.LEDGER_METRICS_PORT!, (err) => logger.warn({ err }, 'metrics could not be collected'))
    : null;
  if (metricsServer) logger.info({ host: config.LEDGER_METRICS_HOST, port: metricsServer.port }, `metrics on http://${config.LEDGER_METRICS_HOST}:${metricsServer.port}/metrics`);
  // Until the ledger is ready the port answers probes only; then the app takes over the same listener.
  let fetch: (request: Request, env: unknown) => Response | Promise<Response> = createStartingApp({ logger, newId: randomUUID, metrics: metrics?.http }).fetch;
  const server = serve({ fetch: (request, env) => fetch(request, env), hostname: config.HOST, port: config.PORT });
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.HOST, port }, 'starting: /healthz and /readyz answer 503 until the ledger is ready');
  const { ledger, tokenSecret, statsTimer, upkeep } = await startLedger(config, logger, metrics).catch(async (error: unknown) => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close();
    await metricsServer?.close();
    throw error;
  });
  const app = createApp({
    ...ledger,
    logger,
    tokenSecret,
    maxBodyBytes: config.LEDGER_MAX_BODY_BYTES,
    accessLog: config.LEDGER_ACCESS_LOG,
    databaseReachable: () => ledger.healthCheck(),
    documents: new LocalDirectoryDocumentStore(config.LEDGER_DOCUMENT_STORE),
    paymentVendors: paymentVendorsFromConfig(config),
    metrics: metrics?.http ?? null,
    serviceState: () => state,
    webhookDestinations: { allowPrivateNetworks: config.LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS },
  });
  fetch = app.fetch;
  metrics?.watch({
    logPosition: () => ledger.log.lastPosition(),
    projections: inlineProjections.map((p) => p.name),
    workQueues: () => ledger.read.workQueueFigures(),
    supplierFigures: (limit) => ledger.read.supplierFigures(limit),
  });
  state = 'ready';
  logger.info({ host: config.HOST, port }, `import-ledger listening on http://${config.HOST}:${port}`);
  // The background workers run beside the HTTP service on the same ledger; on PostgreSQL, on every instance.
  const workers = [
    populateWorkerFromConfig(ledger, config, logger, { actor: 'system:populate-worker', requestId: null }),
    mailerFromConfig(ledger, config, logger, { actor: 'system:mailer', requestId: null }),
    new AccountCreationScheduler({ ctx: ledger, logger: logger.child({ component: 'scheduler' }), actor: { actor: 'system:scheduler', requestId: null } }),
  ];
  for (const worker of workers) worker.start();
  // Events out: NATS when configured, and the webhook endpoints, each relay on its lease, in a thread of their
  // own with a ledger of their own, so that no request waits behind them (src/relay).
  const relays = RelayThread.start(
    threadEntry('relay-thread', import.meta.url),
    {
      location: ledgerLocation(config),
      nats: config.LEDGER_NATS_URL ? { url: config.LEDGER_NATS_URL, stream: config.LEDGER_NATS_STREAM, subjectPrefix: config.LEDGER_NATS_SUBJECT_PREFIX } : null,
      webhooks: {
        schedule: config.LEDGER_WEBHOOK_RETRY_SCHEDULE,
        disableAfterMs: config.LEDGER_WEBHOOK_DISABLE_AFTER,
        timeoutMs: config.LEDGER_WEBHOOK_TIMEOUT_MS,
        concurrency: config.LEDGER_WEBHOOK_CONCURRENCY,
        allowPrivateNetworks: config.LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        attemptRetentionDays: config.LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS,
      },
      leaseMs: config.LEDGER_RELAY_LEASE_MS,
      logLevel: config.LOG_LEVEL,
    },
    metrics ? new RelayMetrics(metrics.registry, () => ledger.log.lastPosition()) : null,
    logger.child({ component: 'relays' }),
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workerStopped = Promise.all([...workers.map((worker) => worker.stop()), relays.stop()]);
    server.close(() => {
      void workerStopped.finally(async () => {
        if (statsTimer) clearInterval(statsTimer);
        await metricsServer?.close();
        await upkeep.stop();
        await ledger.close();
        process.exit(0);
      });
    });
  };
  const shutdown = (signal: string) => {
    // A SIGINT while draining (Ctrl-C after a SIGTERM) stops at once.
    if (state === 'draining') {
      if (signal === 'SIGINT') stop();
      return;
    }
    state = 'draining';
    // SIGTERM drains: /readyz answers 503 while requests are still served, so the load balancer stops first.
    const drainMs = signal === 'SIGTERM' ? config.LEDGER_DRAIN_DELAY_MS : 0;
    logger.info({ signal, drainMs }, drainMs > 0 ? 'draining: /readyz answers 503, requests are still served' : 'shutting down');
    setTimeout(() => {
      if (drainMs > 0) logger.info('drained: shutting down');
      stop();
    }, drainMs);
    setTimeout(() => process.exit(0), drainMs + 5_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return server;
}

/** Everything before the API can answer: open (and migrate) the ledger, rebuild stale projections, seed demo data. */
async function startLedger(config: LedgerConfig, logger: Logger, metrics: LedgerMetrics | null) {
  // On PostgreSQL, at debug level: every 5 s, how the writer batched and how long it held the writers' lock.
  const batchStats = logger.isLevelEnabled('debug') && config.LEDGER_DATABASE_URL ? new BatchStats() : null;
  const ledger = await openLedger(ledgerLocation(config), {
    ...(batchStats ? { onBatch: batchStats.add } : {}),
    ...(metrics ? { observer: metrics.observer } : {}),
    ...(config.LEDGER_SQLITE_WRITER === 'thread' && !config.LEDGER_DATABASE_URL ? { writerThread: true } : {}),
    webhookAttemptRetentionDays: config.LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS,
  });
  const statsTimer = batchStats
    ? setInterval(() => {
        const summary = batchStats.take();
        if (summary.batches > 0) logger.debug(summary, 'write batches');
      }, 5_000).unref()
    : null;
  try {
    const tokenSecret = await ledger.tokenSecret(config.LEDGER_TOKEN_SECRET);
    // Drawn here on a new database, so that the service has its identity before it answers anything.
    logger.info({ database: ledger.location, service_id: await ledger.serviceId() }, 'database opened');
    await rebuildStaleProjections(ledger, logger, metrics ?? undefined);
    const upkeep = ledger.startUpkeep(logger);
    if (config.NODE_ENV !== 'production') {
      const demo = await seedDemoData(ledger);
      if (demo) printDemoKey(demo.key, config);
    }
    return { ledger, tokenSecret, statsTimer, upkeep };
  } catch (error) {
    if (statsTimer) clearInterval(statsTimer);
    await ledger.close().catch(() => undefined);
    throw error;
  }
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
