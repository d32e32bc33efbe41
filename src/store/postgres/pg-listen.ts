import type pg from 'pg';
import { EVENTS_CHANNEL, newClient, type PgOptions } from './pg-database.js';

/** How long before a lost LISTEN connection is opened again. */
const RECONNECT_MS = 1_000;

/**
 * A wake-up for this instance's live readers when any instance commits events: one LISTEN connection,
 * opened when the first reader subscribes, reopened after a loss. A notification is a hint only (readers
 * read the log themselves), so one lost costs a poll interval.
 */
export class PgListener {
  private readonly listeners = new Set<() => void>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly options: PgOptions = {},
  ) {}

  subscribe(wake: () => void): () => void {
    this.listeners.add(wake);
    void this.ensure();
    return () => this.listeners.delete(wake);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => undefined);
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private ensure(): Promise<void> {
    if (this.closed || this.client || this.connecting) return this.connecting ?? Promise.resolve();
    this.connecting = (async () => {
      try {
        const client = await newClient(this.url, { ...this.options, statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0, role: 'listen' });
        client.on('notification', () => {
          for (const wake of [...this.listeners]) wake();
        });
        const lost = () => {
          if (this.client !== client) return;
          this.client = null;
          if (!this.closed) setTimeout(() => void this.ensure(), RECONNECT_MS).unref();
        };
        client.on('error', lost);
        client.on('end', lost);
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
        if (this.closed) await client.end();
        else this.client = client;
      } catch {
        if (!this.closed) setTimeout(() => void this.ensure(), RECONNECT_MS).unref();
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }
}
