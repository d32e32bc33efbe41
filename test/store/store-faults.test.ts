import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/event-store.js';
import { storeFaultOf, storeUnavailable } from '../../src/store/store-faults.js';
import { toDomainError } from '../../src/http/errors.js';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('storeFaultOf: the drivers\' errors that say the database cannot serve now', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED'), 'unreachable'],
    ['a reset connection', coded('ECONNRESET', 'read ECONNRESET'), 'unreachable'],
    ['every address refused', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), 'unreachable'],
    ['a connection lost by node-postgres', new Error('Connection terminated unexpectedly'), 'unreachable'],
    ['a client that lost its connection', new Error('Client has encountered a connection error and is not queryable'), 'unreachable'],
    ['a connection that took too long', new Error('Connection terminated due to connection timeout'), 'unreachable'],
    ['pg_terminate_backend (57P01)', coded('57P01', 'terminating connection due to administrator command'), 'unreachable'],
    ['a crash of another backend (57P02)', coded('57P02'), 'unreachable'],
    ['a server starting up (57P03)', coded('57P03', 'the database system is starting up'), 'unreachable'],
    ['a connection exception (08006)', coded('08006'), 'unreachable'],
    ['a full disk', coded('SQLITE_FULL', 'database or disk is full'), 'disk_full'],
    ['a read-only file', coded('SQLITE_READONLY', 'attempt to write a readonly database'), 'read_only'],
    ['a moved file', coded('SQLITE_READONLY_DBMOVED'), 'read_only'],
    ['a write refused by the file system', coded('SQLITE_IOERR_WRITE', 'disk I/O error'), 'io_error'],
    ['a file that cannot be opened', coded('SQLITE_CANTOPEN'), 'io_error'],
    ['a lost connection behind another error', new Error('the COMMIT failed', { cause: coded('ECONNRESET') }), 'unreachable'],
  ])('%s: %s', (_, error, fault) => {
    expect(storeFaultOf(error)).toBe(fault);
  });

  it.each([
    ['a unique violation', coded('23505', 'duplicate key value')],
    ['a statement timeout', coded('57014', 'canceling statement due to statement timeout')],
    ['a SQLite constraint', coded('SQLITE_CONSTRAINT_UNIQUE')],
    ['a bug', new TypeError('x is undefined')],
    ['a string', 'ECONNREFUSED'],
  ])('%s is no fault of availability', (_, error) => {
    expect(storeFaultOf(error)).toBeNull();
    expect(toDomainError(error).code).toBe('internal_error');
  });

  it('a fault is answered 503 store_unavailable with Retry-After and a detail that names it; the store\'s own "retry" keeps its reason', () => {
    const answer = toDomainError(coded('SQLITE_FULL', 'database or disk is full'));
    expect(answer.code).toBe('store_unavailable');
    expect(answer.detail).toContain("the database's disk is full");
    expect((answer as unknown as { headers: Record<string, string> }).headers).toEqual({ 'Retry-After': '1' });
    expect(storeUnavailable(new StoreUnavailableError('the write lock could not be taken in time'))?.reason).toBe('busy');
    expect(storeUnavailable(new StoreUnavailableError('lost', { cause: coded('ECONNRESET') }))?.reason).toBe('unreachable');
  });
});
