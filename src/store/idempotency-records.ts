import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { UnitOfWorkHook } from './sqlite-event-store.js';
import type { IdempotencyKeyRow } from './idempotency-schema.js';

/** How long a key is remembered: the draft asks for at least 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The request being handled under an Idempotency-Key. */
export interface IdempotentRequest {
  readonly keyId: string;
  readonly idempotencyKey: string;
  readonly fingerprint: string;
  readonly requestPath: string;
}

export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
}

interface RawRow {
  key_id: string;
  idempotency_key: string;
  fingerprint: string;
  request_path: string;
  event_positions: string;
  status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: string;
  completed_at: string | null;
}

const toRow = (raw: RawRow): IdempotencyKeyRow => ({
  keyId: raw.key_id,
  idempotencyKey: raw.idempotency_key,
  fingerprint: raw.fingerprint,
  requestPath: raw.request_path,
  eventPositions: raw.event_positions,
  status: raw.status,
  responseBody: raw.response_body,
  responseContentType: raw.response_content_type,
  createdAt: raw.created_at,
  completedAt: raw.completed_at,
});

/**
 * The `idempotency_keys` table and the async scope that ties a request to the
 * events it appends. `run(request, fn)` handles a request; while it runs,
 * every unit of work the event store commits for it also records, in the same
 * savepoint, the key with the positions of the events appended
 * (`unitOfWorkHook`, given to SqliteEventStore). The response is stored on
 * that row by `complete` once rendered.
 */
export class IdempotencyRecords {
  private readonly scope = new AsyncLocalStorage<IdempotentRequest>();
  private readonly statements;

  constructor(
    sqlite: Database.Database,
    private readonly clock: () => Date,
  ) {
    this.statements = {
      find: sqlite.prepare<[string, string], RawRow>('SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      forget: sqlite.prepare<[string, string]>('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      reserve: sqlite.prepare<[string, string, string, string, string, string]>(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, created_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
           event_positions = (SELECT json_group_array(value) FROM (
             SELECT value FROM json_each(idempotency_keys.event_positions)
             UNION ALL SELECT value FROM json_each(excluded.event_positions)))`,
      ),
      complete: sqlite.prepare<[string, string, string, string, number, string, string | null, string, string]>(
        `INSERT INTO idempotency_keys
           (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
         VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?)
         ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
           status = excluded.status, response_body = excluded.response_body,
           response_content_type = excluded.response_content_type, completed_at = excluded.completed_at`,
      ),
      purge: sqlite.prepare<[string]>('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
  }

  /** Runs `fn` (the request's handling) so that the events it appends are recorded with the key. */
  run<T>(request: IdempotentRequest, fn: () => Promise<T>): Promise<T> {
    return this.scope.run(request, fn);
  }

  /** For SqliteEventStore: called when a unit of work is submitted, in the submitter's context. */
  readonly unitOfWorkHook = (): UnitOfWorkHook | undefined => {
    const request = this.scope.getStore();
    if (!request) return undefined;
    return (appended) => {
      if (appended.length === 0) return;
      this.statements.reserve.run(
        request.keyId,
        request.idempotencyKey,
        request.fingerprint,
        request.requestPath,
        JSON.stringify(appended.map((stored) => stored.globalPosition)),
        this.clock().toISOString(),
      );
    };
  };

  /** The key's row; a row past the retention is deleted (the key may then be used afresh). */
  find(keyId: string, idempotencyKey: string): IdempotencyKeyRow | null {
    const raw = this.statements.find.get(keyId, idempotencyKey);
    if (!raw) return null;
    if (raw.created_at < new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString()) {
      this.statements.forget.run(keyId, idempotencyKey);
      return null;
    }
    return toRow(raw);
  }

  /** Stores the response of the key's request (creating the row when the request appended nothing). */
  complete(request: IdempotentRequest, response: StoredResponse): void {
    const now = this.clock().toISOString();
    this.statements.complete.run(
      request.keyId,
      request.idempotencyKey,
      request.fingerprint,
      request.requestPath,
      response.status,
      response.body,
      response.contentType,
      now,
      now,
    );
  }

  /** Deletes the rows past the retention; returns how many. */
  purgeExpired(): number {
    const before = new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
    return this.statements.purge.run(before).changes;
  }
}
