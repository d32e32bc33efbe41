import type { ReadModels } from './read-models.js';
import { markRequestScoped, requestScope, requestsBegun, wantsRequestScope } from './request-scope.js';

/** The reads every request makes (its key, the rate limit, its supplier and team): the ones worth keeping. */
type CachedRead = 'findApiKey' | 'findImportSupplier' | 'operationsTeamExists' | 'configValue';

/** Past this many rows the cache starts again (API keys, suppliers, teams and settings are few). */
const MAX_ENTRIES = 10_000;

/**
 * A number read by a statement that began after the call. Calls arriving while a read is in flight share
 * the next one, so one round trip serves every request waiting and none is answered by an earlier read. A
 * read begins at the end of the event loop turn it was first asked in, shared by every call of that turn.
 */
export class FreshGeneration {
  private inFlight: Promise<number> | null = null;
  /** The read asked for in this turn and not begun yet: any call now shares it. */
  private notBegun: Promise<number> | null = null;
  private following: Promise<number> | null = null;

  constructor(private readonly read: () => Promise<number>) {}

  get(): Promise<number> {
    if (this.notBegun) return this.notBegun;
    if (!this.inFlight) return this.start();
    // The read in flight began before this call: wait for the one after it.
    this.following ??= this.inFlight.then(
      () => this.startFollowing(),
      () => this.startFollowing(),
    );
    return this.following;
  }

  private startFollowing(): Promise<number> {
    this.following = null;
    return this.notBegun ?? this.inFlight ?? this.start();
  }

  private start(): Promise<number> {
    const read = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.notBegun = null;
      return this.read();
    });
    this.notBegun = read;
    this.inFlight = read;
    const clear = () => {
      if (this.inFlight === read) this.inFlight = null;
    };
    read.then(clear, clear);
    return read;
  }
}

/**
 * PostgreSQL's check of the read generation (a round trip): a request's reads share one read, begun after the
 * request arrived (its scope), and the requests of one turn of the event loop share it too (FreshGeneration).
 * The service runs each request in a scope for read models cached behind it.
 */
export function requestSharedGeneration(readGeneration: () => Promise<number>): () => Promise<number> {
  const generation = new FreshGeneration(readGeneration);
  return markRequestScoped(() => {
    const scope = requestScope.getStore();
    return scope ? (scope.generation ??= generation.get()) : generation.get();
  });
}

/**
 * SQLite's check of the read generation (a statement on the process's own connection): one serves the calls
 * after it until the next request begins (src/queries/request-scope.ts), the event loop turns or the
 * connection changes a cached table itself (`ownChanges`, a count in memory), so each request it serves
 * began before it, with no per-request scope, and no caller outside a request keeps it past its turn.
 */
export function untilNextRequest(readGeneration: () => number, ownChanges: () => number): () => number {
  let generation = 0;
  /** The count of requests begun at the check that still serves, or null once the turn it was made in ended. */
  let checkedAt: number | null = null;
  let ownAtCheck = 0;
  const endTurn = () => {
    checkedAt = null;
  };
  return () => {
    const begun = requestsBegun();
    const own = ownChanges();
    if (checkedAt !== begun || ownAtCheck !== own) {
      if (checkedAt === null) setImmediate(endTurn);
      checkedAt = begun;
      ownAtCheck = own;
      generation = readGeneration();
    }
    return generation;
  };
}

/**
 * `read` with the rows every request reads kept in memory, as fresh as reading them again: each call first
 * checks the store's read generation (bumped with every change to those tables, on any instance or
 * connection) as the store's `currentGeneration` tells it, fresh for the call (PostgreSQL: a read begun after
 * the request arrived, requestSharedGeneration; SQLite: src/store/sqlite/read-generation.ts), and drops
 * everything kept when it moved. So a revoked key or a new setting applies to the next request everywhere.
 */
export function generationCachedReads<R extends Pick<ReadModels, CachedRead>>(read: R, currentGeneration: () => number | Promise<number>): R {
  let current = -1;
  const rows = new Map<string, unknown>();

  const cached = <T>(key: string, load: () => Promise<T>) => async (): Promise<T> => {
    const seen = await currentGeneration();
    // Any change of the number means a change of the rows (the reads come one after another, so in order).
    if (seen !== current) {
      current = seen;
      rows.clear();
    }
    if (rows.has(key)) return rows.get(key) as T;
    // Loaded by a statement after the generation was read: at least as new as it. Kept only while that
    // generation is still the newest seen (a load that raced a change is answered, not kept).
    const value = await load();
    if (current === seen) {
      if (rows.size >= MAX_ENTRIES) rows.clear();
      rows.set(key, value);
    }
    return value;
  };

  const overrides: Pick<ReadModels, CachedRead> = {
    findApiKey: (keyId) => cached(`key:${keyId}`, () => read.findApiKey(keyId))(),
    findImportSupplier: (code) => cached(`supplier:${code}`, () => read.findImportSupplier(code))(),
    operationsTeamExists: (name) => cached(`team:${name}`, () => read.operationsTeamExists(name))(),
    configValue: (key) => cached(`config:${key}`, () => read.configValue(key))(),
  };
  const cachedRead = { ...read, ...overrides };
  return wantsRequestScope(currentGeneration) ? markRequestScoped(cachedRead) : cachedRead;
}
