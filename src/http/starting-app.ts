import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';
import { httpMetrics, type HttpMetrics } from './metrics-middleware.js';
import { requestContext } from './request-context.js';

const STARTING = 'The service is starting (migrations, projection rebuilds); retry shortly.';

/**
 * What the API port answers while the instance starts (docs/operations.md "Probes"): it
 * listens from the first moment, so the load balancer's readiness probe and the
 * orchestrator's start-up probe get an answer, but nothing reaches the ledger
 * before it is migrated and its projections are current. `/healthz` and
 * `/readyz` answer 503 `starting`; every other request 503 `service_starting`.
 */
export function createStartingApp(deps: { readonly logger: Logger; readonly newId: () => string; readonly metrics?: HttpMetrics }): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: true });
  if (deps.metrics) app.use('*', httpMetrics(deps.metrics));
  app.use('*', ...requestContext(deps.logger, deps.newId));
  const probe = (c: Context<AppEnv>) => {
    c.set('expectedUnavailable', true);
    c.header('Retry-After', '1');
    return c.json({ status: 'starting', detail: STARTING }, 503);
  };
  app.get('/healthz', probe);
  app.get('/readyz', probe);
  app.all('*', (c) => errorResponse(c, new DomainError('service_starting', STARTING), { 'Retry-After': '1' }));
  return app;
}
