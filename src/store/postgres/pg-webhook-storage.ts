import type pg from 'pg';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_PURGE_CHUNK,
  attemptParams,
  DEFAULT_SECRET_OVERLAP_MS,
  insertChunks,
  toStoredAttempt,
  type AttemptRaw,
  type WebhookAttempts,
  type WebhookSecrets,
} from '../webhook-storage.js';

/** Runs `work` in one transaction on a connection of the pool. */
async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // A connection that failed mid-transaction is not given back to the pool.
    client.release(true);
    throw error;
  }
}

/** `($1, ..., $10), ($11, ...)` for `rows` rows of ten parameters. */
const valuesList = (rows: number) =>
  Array.from({ length: rows }, (_, row) => `(${Array.from({ length: 10 }, (_, column) => `$${row * 10 + column + 1}`).join(', ')})`).join(', ');

/** The webhook secrets and the delivery log on the read pool, outside the writers' lock: no event is written with them. */
export function pgWebhookStorage(pool: pg.Pool): { webhookSecrets: WebhookSecrets; webhookAttempts: WebhookAttempts } {
  const insertSecret = 'INSERT INTO webhook_secrets (endpoint_id, secret_id, secret, created_at, expires_at) VALUES ($1, $2, $3, $4, NULL)';
  return {
    webhookSecrets: {
      async add(endpointId, secretId, secret, now) {
        await pool.query(insertSecret, [endpointId, secretId, secret, now.toISOString()]);
      },
      async rotate(endpointId, newSecretId, newSecret, now, overlapMs = DEFAULT_SECRET_OVERLAP_MS) {
        const at = now.toISOString();
        await inTransaction(pool, async (client) => {
          await client.query('DELETE FROM webhook_secrets WHERE endpoint_id = $1 AND expires_at <= $2', [endpointId, at]);
          await client.query('UPDATE webhook_secrets SET expires_at = $1 WHERE endpoint_id = $2 AND expires_at IS NULL', [
            new Date(now.getTime() + overlapMs).toISOString(),
            endpointId,
          ]);
          await client.query(insertSecret, [endpointId, newSecretId, newSecret, at]);
        });
      },
      async signingSecrets(endpointId, now) {
        const { rows } = await pool.query<{ secret: string }>(
          'SELECT secret FROM webhook_secrets WHERE endpoint_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY expires_at IS NULL DESC, created_at DESC, secret_id DESC',
          [endpointId, now.toISOString()],
        );
        return rows.map((row) => row.secret);
      },
      async remove(endpointId) {
        await pool.query('DELETE FROM webhook_secrets WHERE endpoint_id = $1', [endpointId]);
      },
    },
    webhookAttempts: {
      async record(rows) {
        if (rows.length === 0) return;
        const chunks = insertChunks(rows);
        const insert = (chunk: typeof chunks[number], client: pg.ClientBase | pg.Pool) =>
          client.query(`INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES ${valuesList(chunk.length)}`, chunk.flatMap(attemptParams));
        if (chunks.length === 1) await insert(chunks[0]!, pool);
        else await inTransaction(pool, async (client) => {
          for (const chunk of chunks) await insert(chunk, client);
        });
      },
      async list(endpointId, { failedOnly, before, limit }) {
        const { rows } = await pool.query<AttemptRaw>(
          `SELECT * FROM webhook_attempts WHERE endpoint_id = $1 ${failedOnly ? "AND outcome = 'failed'" : ''} AND id < $2 ORDER BY id DESC LIMIT $3`,
          [endpointId, before ?? Number.MAX_SAFE_INTEGER, limit],
        );
        return rows.map(toStoredAttempt);
      },
      async purge(olderThan) {
        let deleted = 0;
        for (;;) {
          const { rowCount } = await pool.query(
            'DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE attempted_at < $1 ORDER BY attempted_at LIMIT $2)',
            [olderThan.toISOString(), ATTEMPT_PURGE_CHUNK],
          );
          deleted += rowCount ?? 0;
          if ((rowCount ?? 0) < ATTEMPT_PURGE_CHUNK) return deleted;
        }
      },
    },
  };
}
