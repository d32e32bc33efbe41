import type Database from 'better-sqlite3';
import { requestsBegun } from '../../queries/request-scope.js';

/**
 * SQLite's read generation (src/queries/generation-cached-reads.ts), kept by the connection that reads: it
 * moves when another connection commits (`PRAGMA data_version`: the command line, the writer thread, another
 * process on the file) and when this connection changes a table behind it itself (`changed`: its own
 * commits do not move data_version). The check is a statement, so one serves every call after it until the
 * next request begins or the event loop turns: each request it serves began before it, and no caller
 * outside a request keeps it past the turn it was made in.
 */
export class SqliteReadGeneration {
  private readonly dataVersion: Database.Statement<[], number>;
  private seenDataVersion: number | null = null;
  private generation = 0;
  /** The count of requests begun at the check that still serves, or null once the turn it was made in ended. */
  private checkedAt: number | null = null;
  private readonly endTurn = () => {
    this.checkedAt = null;
  };

  constructor(sqlite: Database.Database) {
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** This connection wrote a table behind the generation (called inside the write's transaction). */
  changed(): void {
    this.generation++;
  }

  current(): number {
    const begun = requestsBegun();
    if (this.checkedAt !== begun) {
      if (this.checkedAt === null) setImmediate(this.endTurn);
      this.checkedAt = begun;
      const version = this.dataVersion.get()!;
      if (version !== this.seenDataVersion) {
        this.seenDataVersion = version;
        this.generation++;
      }
    }
    return this.generation;
  }
}
