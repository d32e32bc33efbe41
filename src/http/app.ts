import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { LedgerContext } from '../application/context.js';
import { DomainError } from '../domain/errors.js';
import { tokenAuth } from './auth.js';
import { ConcurrencyLimiter, processConcurrencyLimit } from './concurrency-limiter.js';
import { requestRateLimit } from './request-rate-limiter.js';
import { idempotency } from './idempotency.js';
import type { IdempotencyRecords } from '../store/idempotency.js';
import type { SharedLimits } from '../store/shared-limits.js';
import type { RelayStore } from '../store/relay-store.js';
import type { AppEnv } from './env.js';
import { errorResponse, toDomainError } from './errors.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { storeUnavailable } from '../store/store-faults.js';
import { jsonBody } from './json-body.js';
import { beginRequest, requestScope, wantsRequestScope } from '../queries/request-scope.js';
import { requestContext, type AccessLog } from './request-context.js';
import { httpMetrics, type HttpMetrics } from './metrics-middleware.js';
import { accountImportProcessRoutes, PROCESS_PATH } from './routes/account-import-processes.js';
import { accountStatusRoutes } from './routes/account-status.js';
import { eventsFeedRoutes } from './routes/events-feed.js';
import { accountHistoryRoutes } from './routes/account-history.js';
import { businessRoutes } from './routes/businesses.js';
import { graphqlRoutes } from './routes/graphql.js';
import { productRoutes } from './routes/products.js';
import { supplyPointPopulateRoutes } from './routes/supply-point-populate.js';
import { accountRecordRoutes } from './routes/account-records.js';
import type { DocumentStore } from '../adapters/document-store.js';
import type { PaymentVendors } from '../adapters/payment-vendors.js';
import { paymentInstructionRoutes } from './routes/payment-instructions.js';
import { reconciliationRoutes } from './routes/reconciliation.js';
import { accountRecordsExportRoutes } from './routes/account-records-export.js';
import { catalogueReadRoutes } from './routes/catalogue-reads.js';
import { verificationRoutes } from './routes/verifications.js';
import { serviceIdentityRoutes } from './routes/service-identity.js';
import { v2AccountRoutes } from './routes/v2-accounts.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { docsRoutes } from './routes/docs.js';
import { faviconRoutes } from './routes/favicon.js';
import { importProgressRoutes } from './routes/import-progress.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { PUBLIC_ONLY, type DestinationPolicy } from '../relay/webhooks/destination.js';
import type { WebhookAttempts, WebhookSecrets } from '../store/webhook-storage.js';
import { openApiDocument } from './openapi/document.js';
import { describeOperations } from './openapi/register.js';

export interface AppDeps extends LedgerContext {
  /** The process concurrency limit's slots and the request-rate buckets (the ledger's: cluster-wide on PostgreSQL). */
  readonly limits: SharedLimits;
  readonly logger: Logger;
  readonly tokenSecret: string;
  /** Request bodies larger than this are refused with 413. */
  readonly maxBodyBytes: number;
  /** True when the database answers; used by /readyz. */
  readonly databaseReachable: () => Promise<boolean>;
  /** Where notes' and statements' documents are looked up (docs/account-records.md; `emptyDocumentStore`: every path is missing). */
  readonly documents: DocumentStore;
  /** Resolves once every write committed so far is on disk (the ledger's `durable`). */
  readonly durable: () => Promise<void>;
  /** Idempotency-Key records (the ledger's `idempotency`). */
  readonly idempotency: IdempotencyRecords;
  /** The payment vendors payment instructions are checked with (docs/payment-instructions-and-emails.md; `noPaymentVendors`: none configured). */
  readonly paymentVendors: PaymentVendors;
  /** Where requests are counted and timed (the service's metrics, docs/operations.md "Metrics"); null: not counted. */
  readonly metrics: HttpMetrics | null;
  /** The service's identity (the ledger's `serviceId`): GET /v1/data-import/service/. */
  readonly serviceId: () => Promise<string>;
  /** Which requests get a log line of their own (LEDGER_ACCESS_LOG; every one when not given). */
  readonly accessLog?: AccessLog;
  /** Where the instance is in its life (docs/operations.md "Probes"): /readyz answers 200 only when `ready`. */
  readonly serviceState: () => ServiceState;
  /** Webhook endpoints' signing secrets and delivery log (the ledger's). */
  readonly webhookSecrets: WebhookSecrets;
  readonly webhookAttempts: WebhookAttempts;
  /** Where the relays stand (an endpoint's delivery position and what waits for a retry: the endpoint reads show it). */
  readonly relays: RelayStore;
  /** Where webhooks may be delivered (LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS); public https only unless given. */
  readonly webhookDestinations?: DestinationPolicy;
}

/** An instance starts, serves, and drains after SIGTERM (still answering while the load balancer lets go of it). */
export type ServiceState = 'starting' | 'ready' | 'draining';

/** The composition root of the HTTP service: everything it uses arrives in `deps`. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: true });
  // First, so that it times the whole answer and sees every status, an error's too.
  if (deps.metrics) app.use('*', httpMetrics(deps.metrics));
  app.use('*', ...requestContext(deps.logger, deps.ids.uuid, deps.accessLog));
  app.use('*', methodNotAllowed(app));
  // A request's cached reads see the read generation as checked after it began: on PostgreSQL in a scope of
  // its own that its reads share, on SQLite by the count of requests begun (src/queries/request-scope.ts).
  app.use(
    '*',
    wantsRequestScope(deps.read)
      ? (_c, next) => requestScope.run({}, next)
      : (_c, next) => {
          beginRequest();
          return next();
        },
  );
  // Liveness: the process answers. A database that cannot be reached is no reason to restart the instance
  // (it serves again by itself once the database is back): /readyz takes it out of the load balancer instead.
  // Registered before the wait for durability below: it shows nothing of the store, so it never waits for a sync.
  app.get('/healthz', (c) => c.json({ status: 'ok' as const }));
  // No answer shows a write before it is on disk: a write's own answer already waits for its batch's
  // sync; a read (or an Idempotency-Key replay) that saw a batch still being synced waits for it too.
  // A streamed body reads on after this point (docs/reliability.md).
  app.use('*', async (c, next) => {
    await next();
    await deps.durable();
  });

  // The contract, generated from the routes (on first request, once every route is registered), and its reference page.
  app.route('/', docsRoutes(openApiDocument(app)));
  app.route('/', dashboardRoutes());
  app.route('/', faviconRoutes());
  describeOperations(app);

  // Readiness (the load balancer's): ready, and the database answers. Draining still serves every other request.
  // Registered after the described operations, so that the document (and the reference page, which renders
  // lazily from the top) lists it after the data-import operations rather than before them.
  app.get('/readyz', async (c) => {
    const state = deps.serviceState();
    if (state !== 'ready') {
      if (state === 'starting') c.set('expectedUnavailable', true);
      c.header('Retry-After', '1');
      return c.json(
        state === 'draining'
          ? { status: 'draining' as const, detail: 'The instance is shutting down; send new requests elsewhere.' }
          : { status: 'starting' as const, detail: 'The service is starting (migrations, projection rebuilds); retry shortly.' },
        503,
      );
    }
    if (await deps.databaseReachable()) return c.json({ status: 'ready' as const });
    c.header('Retry-After', '1');
    return c.json({ status: 'unavailable' as const, detail: 'The database is not reachable.' }, 503);
  });

  app.use('/v1/graphql/', jsonBody(deps.maxBodyBytes, { parse: false }));
  app.route('/v1/graphql/', graphqlRoutes(deps, deps.tokenSecret, deps.limits));

  // The slot is taken on arrival, before authentication and body parsing, so that "in flight" counts
  // every process request the server is handling, not only the instant it spends in the store.
  app.use(PROCESS_PATH, processConcurrencyLimit(new ConcurrencyLimiter(deps.read, deps.limits)));

  // The rate limit counts every authenticated request, before its body is read (docs/reliability.md).
  const rateLimit = requestRateLimit(deps.read, deps.limits);
  const auth = tokenAuth(deps, deps.tokenSecret);
  /** Every data-import API, v1 and v2, sits behind the same authentication, rate limit, body limits and Idempotency-Key. */
  const dataImportApi = () => {
    const sub = new Hono<AppEnv>({ strict: true });
    sub.use('*', auth, rateLimit, jsonBody(deps.maxBodyBytes));
    sub.use('*', idempotency(deps.idempotency, deps.store));
    return sub;
  };
  const api = dataImportApi();
  api.route('/', accountImportProcessRoutes(deps));
  api.route('/', accountStatusRoutes(deps));
  api.route('/', importProgressRoutes(deps));
  api.route('/', reconciliationRoutes(deps));
  api.route('/', accountRecordsExportRoutes(deps));
  api.route('/', catalogueReadRoutes(deps));
  api.route('/', verificationRoutes(deps, deps.serviceId));
  api.route('/', serviceIdentityRoutes(deps.serviceId));
  api.route('/', eventsFeedRoutes(deps));
  api.route('/', accountHistoryRoutes(deps));
  api.route('/', businessRoutes(deps));
  api.route('/', productRoutes(deps));
  api.route('/', supplyPointPopulateRoutes(deps));
  api.route('/', accountRecordRoutes(deps, deps.documents));
  api.route('/', paymentInstructionRoutes(deps, deps.paymentVendors));
  api.route('/', webhookEndpointRoutes({ ...deps, webhookDestinations: deps.webhookDestinations ?? PUBLIC_ONLY }));
  app.route('/v1/data-import', api);
  // The platform's v2 account operations: validate, schedule a creation, its status (docs/v2-accounts.md).
  app.route('/v2/data-import', dataImportApi().route('/', v2AccountRoutes(deps)));

  // No route answered: nothing threw, so this answers directly.
  app.notFound((c) => errorResponse(c, new DomainError('not_found', 'Not found.')));
  // The one place where errors become responses: middleware and routes throw a DomainError (anything else is
  // a 500). Hono calls this at the layer that threw, inside the mounted sub-app too, so middleware further
  // out (request log, concurrency slot, Idempotency-Key) sees the answer as c.res after `await next()`.
  app.onError((error, c) => {
    const mapped = toDomainError(error);
    if (mapped.code === 'store_unavailable') {
      const unavailable = storeUnavailable(error);
      deps.metrics?.storeUnavailable(unavailable?.reason ?? 'busy');
      // One line a request, without the stack: an outage under load answers many.
      (c.get('logger') ?? deps.logger).warn({ reason: unavailable?.reason, cause: error instanceof Error ? error.message : String(error) }, 'store unavailable');
    }
    if (mapped.code === 'internal_error') {
      (c.get('logger') ?? deps.logger).error({ err: error }, 'unhandled error');
    }
    return errorResponse(c, mapped);
  });
  return app;
}
