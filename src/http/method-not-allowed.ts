import type { Hono, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { RouterRoute } from 'hono/types';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A route that answers a method, not a middleware registered for every method. */
const forMethod = (route: RouterRoute) => route.method !== 'ALL';

/**
 * 405 `method_not_allowed` with `Allow` (RFC 9110) for a path some route serves, asked with a
 * method none of its routes take, before the body or the credentials are looked at: a PUT on a list
 * is a wrong method, not a wrong body. A path no route serves goes on to 404. The request's own match
 * (hono's, HEAD answered as GET) says whether a route serves it; only a request none serves asks
 * `app`'s router about the other methods.
 */
export function methodNotAllowed(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (matchedRoutes(c).some(forMethod)) return next();
    const path = c.req.path;
    const allowed: string[] = METHODS.filter((method) => app.router.match(method, path)[0].some(([[, route]]) => forMethod(route)));
    if (allowed.length === 0) return next();
    if (allowed.includes('GET')) allowed.splice(1, 0, 'HEAD');
    c.header('Allow', allowed.join(', '));
    throw new DomainError('method_not_allowed', `Method ${c.req.method} is not allowed here: use ${allowed.join(', ')}.`);
  };
}
