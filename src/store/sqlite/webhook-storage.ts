import { setImmediate } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_PURGE_CHUNK,
  attemptParams,
  DEFAULT_SECRET_OVERLAP_MS,
  insertChunks,
  toStoredAttempt,
  type AttemptRaw,
  type AttemptRow,
  type WebhookAttempts,
  type WebhookSecrets,
} from '../webhook-storage.js';

/**
 * The webhook secrets and the delivery log on the service's connection. Their writes are units of the group
 * commit (`run`): they share its batches and its WAL syncs off the event loop, and never hold SQLite's one
 * write lock through a sync of their own (another connection's writer, the relay thread's or the service's,
 * would wait that long).
 */
export function sqliteWebhookStorage(sqlite: Database.Database, run: <T>(work: () => T) => Promise<T>): { webhookSecrets: WebhookSecrets; webhookAttempts: WebhookAttempts } {
  const insertSecret = sqlite.prepare<[string, string, string, string]>(
    'INSERT INTO webhook_secrets (endpoint_id, secret_id, secret, created_at, expires_at) VALUES (?, ?, ?, ?, NULL)',
  );
  const expireCurrent = sqlite.prepare<[string, string]>('UPDATE webhook_secrets SET expires_at = ? WHERE endpoint_id = ? AND expires_at IS NULL');
  const forgetExpired = sqlite.prepare<[string, string]>('DELETE FROM webhook_secrets WHERE endpoint_id = ? AND expires_at <= ?');
  const signing = sqlite.prepare<[string, string], { secret: string }>(
    'SELECT secret FROM webhook_secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY expires_at IS NULL DESC, created_at DESC, secret_id DESC',
  );
  const forgetAll = sqlite.prepare<[string]>('DELETE FROM webhook_secrets WHERE endpoint_id = ?');
  const rotate = sqlite.transaction((endpointId: string, secretId: string, secret: string, now: string, expiresAt: string) => {
    forgetExpired.run(endpointId, now);
    expireCurrent.run(expiresAt, endpointId);
    insertSecret.run(endpointId, secretId, secret, now);
  });

  // A multi-row insert per chunk size met (full chunks, and the last one's size).
  const inserts = new Map<number, Database.Statement>();
  const insertOf = (rows: number) => {
    let statement = inserts.get(rows);
    if (!statement) {
      statement = sqlite.prepare(`INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
      if (inserts.size > 50) inserts.clear();
      inserts.set(rows, statement);
    }
    return statement;
  };
  const record = sqlite.transaction((rows: readonly AttemptRow[]) => {
    for (const chunk of insertChunks(rows)) insertOf(chunk.length).run(...chunk.flatMap(attemptParams));
  });
  const listAll = sqlite.prepare<[string, number, number], AttemptRaw>('SELECT * FROM webhook_attempts WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?');
  const listFailed = sqlite.prepare<[string, number, number], AttemptRaw>(
    "SELECT * FROM webhook_attempts WHERE endpoint_id = ? AND outcome = 'failed' AND id < ? ORDER BY id DESC LIMIT ?",
  );
  const purgeChunk = sqlite.prepare<[string, number]>(
    'DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE attempted_at < ? ORDER BY attempted_at LIMIT ?)',
  );

  return {
    webhookSecrets: {
      async add(endpointId, secretId, secret, now) {
        await run(() => insertSecret.run(endpointId, secretId, secret, now.toISOString()));
      },
      async rotate(endpointId, newSecretId, newSecret, now, overlapMs = DEFAULT_SECRET_OVERLAP_MS) {
        await run(() => rotate(endpointId, newSecretId, newSecret, now.toISOString(), new Date(now.getTime() + overlapMs).toISOString()));
      },
      async signingSecrets(endpointId, now) {
        return signing.all(endpointId, now.toISOString()).map((row) => row.secret);
      },
      async remove(endpointId) {
        await run(() => forgetAll.run(endpointId));
      },
    },
    webhookAttempts: {
      async record(rows) {
        if (rows.length > 0) await run(() => record(rows));
      },
      async list(endpointId, { failedOnly, before, limit }) {
        return (failedOnly ? listFailed : listAll).all(endpointId, before ?? Number.MAX_SAFE_INTEGER, limit).map(toStoredAttempt);
      },
      async purge(olderThan) {
        const cutoff = olderThan.toISOString();
        let deleted = 0;
        for (;;) {
          const { changes } = await run(() => purgeChunk.run(cutoff, ATTEMPT_PURGE_CHUNK));
          deleted += changes;
          if (changes < ATTEMPT_PURGE_CHUNK) return deleted;
          // Each chunk is a unit of its own: other requests run between them.
          await setImmediate();
        }
      },
    },
  };
}
