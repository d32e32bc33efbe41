import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/** Where the HTTP layer reports its requests (the service's metrics; the HTTP layer knows no metrics library). */
export interface HttpMetrics {
  started(): void;
  /** `route` is a registered route template (`/v1/data-import/accounts/:code/`), never a raw path. */
  finished(method: string, route: string, status: number, seconds: number): void;
  /** A request answered 503 `store_unavailable`: why the store could not serve it (src/store/store-faults.ts). */
  storeUnavailable(reason: string): void;
}

/** The label of a request that no route answered (404s of arbitrary paths): one label, however many paths. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the route a request was for: the last matched route that is
 * a handler (middleware is registered for every method), so a request refused
 * by authentication is still counted under its endpoint. A raw path never
 * becomes a label, so the label set is the route table's, however many
 * distinct paths arrive.
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== 'ALL') return route.path;
  }
  return UNMATCHED_ROUTE;
}

/** Counts every request, its latency to the response being ready, and those in flight. */
export function httpMetrics(metrics: HttpMetrics) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    metrics.started();
    try {
      await next();
    } finally {
      metrics.finished(c.req.method, routeTemplate(c), c.res.status, (performance.now() - started) / 1000);
    }
  });
}
