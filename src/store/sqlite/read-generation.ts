import type Database from 'better-sqlite3';

/**
 * SQLite's read generation (src/queries/generation-cached-reads.ts), kept by the connection that reads: it
 * moves when another connection commits (`PRAGMA data_version`: the command line, the writer thread, another
 * process on the file) and when this connection changes a table behind it itself (`changed`: its own
 * commits do not move data_version). Each `current` is a statement: the service decides how long one serves
 * (`untilNextRequest`, told of `own`).
 */
export class SqliteReadGeneration {
  private readonly dataVersion: Database.Statement<[], number>;
  private seenDataVersion: number | null = null;
  private others = 0;
  /** The changes this connection made to the tables behind the generation. */
  own = 0;

  constructor(sqlite: Database.Database) {
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** This connection wrote a table behind the generation (called inside the write's transaction). */
  changed(): void {
    this.own++;
  }

  current(): number {
    const version = this.dataVersion.get()!;
    if (version !== this.seenDataVersion) {
      this.seenDataVersion = version;
      this.others++;
    }
    return this.others + this.own;
  }
}
