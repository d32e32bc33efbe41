import type { Hono, MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * 405 `method_not_allowed` with `Allow` (RFC 9110) for a path some route serves, asked with a
 * method none of its routes take, before the body or the credentials are looked at: a PUT on a list
 * is a wrong method, not a wrong body. A path no route serves goes on to 404. The routes are
 * `app`'s own, matched by hono's router, read at the first request (when every route is mounted).
 */
export function methodNotAllowed(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  let router: TrieRouter<true> | undefined;
  const serves = (method: string, path: string) => router!.match(method, path)[0].length > 0;
  return async (c, next) => {
    if (!router) {
      router = new TrieRouter<true>();
      for (const route of app.routes) if (route.method !== 'ALL') router.add(route.method, route.path, true);
    }
    const path = c.req.path;
    if (serves(c.req.method === 'HEAD' ? 'GET' : c.req.method, path)) return next();
    const allowed: string[] = METHODS.filter((method) => serves(method, path));
    if (allowed.length === 0) return next();
    if (allowed.includes('GET')) allowed.splice(1, 0, 'HEAD');
    c.header('Allow', allowed.join(', '));
    throw new DomainError('method_not_allowed', `Method ${c.req.method} is not allowed here: use ${allowed.join(', ')}.`);
  };
}
