import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request shares among its reads: the read generation, read once (by a statement that began
 * after the request arrived) for every cached read the request makes (src/queries/generation-cached-reads.ts).
 */
export interface RequestScope {
  generation?: Promise<number>;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

const scoped = new WeakSet<object>();

/** Marks read models whose reads share one check a request: the service then runs each request in a scope. */
export function markRequestScoped<T extends object>(read: T): T {
  scoped.add(read);
  return read;
}

/** Whether `read` wants a request scope (only the generation-cached reads of PostgreSQL do: none elsewhere costs a scope). */
export const wantsRequestScope = (read: object): boolean => scoped.has(read);

let begun = 0;

/**
 * Counts a request in, before any of its reads (the service's first middlewares). A store whose check of the
 * read generation is a statement of its own (SQLite) lets one check serve the calls after it until the next
 * request begins: every request it serves began before it, as a request scope would guarantee, with no scope.
 */
export function beginRequest(): void {
  begun++;
}

/** How many requests began in this process so far. */
export const requestsBegun = (): number => begun;
