import { StoreUnavailableError, UniqueConstraintError } from './event-store.js';

/** What keeps the database from serving, as the drivers report it (see DETAIL); each passes once the fault does. */
export type StoreFault = 'unreachable' | 'disk_full' | 'read_only' | 'io_error';

/** The error codes Node's sockets give a connection that cannot be made or was cut. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN']);

/** PostgreSQL's SQLSTATEs of a server not serving (besides class 08): backend terminated, crashed peer, starting up, no slot left. */
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own words for a connection it lost or could not open in time (its errors carry no code). */
const LOST_CONNECTION = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

const codeOf = (error: object): string | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
};

function faultOfOne(error: unknown): StoreFault | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = codeOf(error);
  if (code !== undefined) {
    if (SOCKET_CODES.has(code) || UNREACHABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unreachable';
    if (code === 'SQLITE_FULL') return 'disk_full';
    if (code.startsWith('SQLITE_READONLY')) return 'read_only';
    if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) return 'io_error';
  }
  if (error instanceof Error && LOST_CONNECTION.test(error.message)) return 'unreachable';
  // Connecting to a name with several addresses fails with one error per address.
  if (error instanceof AggregateError) {
    for (const inner of error.errors as unknown[]) {
      const fault = faultOfOne(inner);
      if (fault) return fault;
    }
  }
  return null;
}

/** The fault behind `error` (or an error it was caused by), or null when it is no fault of the database's availability. */
export function storeFaultOf(error: unknown): StoreFault | null {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    const fault = faultOfOne(cause);
    if (fault) return fault;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return null;
}

const DETAIL: Record<StoreFault, string> = {
  unreachable: 'the database cannot be reached',
  disk_full: "the database's disk is full",
  read_only: 'the database file is read-only',
  io_error: 'the database file cannot be read or written',
};

/** A driver's error that says the database is not available now: answered 503 `store_unavailable`, as every StoreUnavailableError. */
export class StoreFaultError extends StoreUnavailableError {
  constructor(
    readonly fault: StoreFault,
    cause: unknown,
  ) {
    super(DETAIL[fault], { cause });
    this.name = 'StoreFaultError';
  }
}

/** `error` as the store's "unavailable, retry", a driver's fault wrapped, or null; `reason` names it for the metrics. */
export function storeUnavailable(error: unknown): { error: StoreUnavailableError; reason: StoreFault | 'busy' } | null {
  const fault = storeFaultOf(error);
  if (error instanceof StoreUnavailableError) return { error, reason: fault ?? 'busy' };
  return fault ? { error: new StoreFaultError(fault, error), reason: fault } : null;
}

/** A driver's unique-constraint violation (the unit was rolled back) as the port's error; anything else as it is. */
export function asUniqueConstraintError(error: unknown): unknown {
  const code = typeof error === 'object' && error !== null ? codeOf(error) : undefined;
  const unique = code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  return unique ? new UniqueConstraintError((error as Error).message, { cause: error }) : error;
}
