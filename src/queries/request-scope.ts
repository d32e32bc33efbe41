import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request shares among its reads: the read generation, read once (by a statement that began
 * after the request arrived) for every cached read the request makes (src/queries/generation-cached-reads.ts).
 */
export interface RequestScope {
  generation?: Promise<number>;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
