import { mkdtempSync, rmSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';

/** Writes a transaction: the scratch is committed in batches, not a commit a write. */
const BATCH = 5_000;
/** Names read back a query: in pages, so the scratch stays writable between them. */
const PAGE = 1_000;

/** A file name as a key whose byte order (memcmp) is JavaScript's sort order: UTF-16 big-endian (UTF-8 orders above U+FFFF differently). */
const nameKey = (name: string): Buffer => Buffer.from(name, 'utf16le').swap16();
const nameOf = (key: Buffer): string => Buffer.from(key).swap16().toString('utf16le');

/** The table every scratch has: a folder's names, sorted on disk. */
const LISTING = 'CREATE TABLE listing (name BLOB PRIMARY KEY) WITHOUT ROWID';

/**
 * A scratch SQLite file in a folder of its own in the temporary folder: where `migrate` and `verify` keep
 * what they know per account (settled items, fingerprints, failed accounts), so their memory is a small
 * page cache whatever the supplier's size. Nothing in it outlives the command: no journal, no fsync, and
 * the folder is deleted on close. Reads on the one connection see the writes of the open batch.
 */
export class Scratch {
  private pending = 0;

  private constructor(
    readonly db: Database.Database,
    private readonly dir: string,
  ) {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -2048'); // 2 MiB of pages (better-sqlite3 builds SQLite with 16 MB)
  }

  /** A new scratch file with `schema`'s tables, in `parent`; better-sqlite3 is loaded here, not at the CLI's start-up. */
  static async open(schema: string, parent = tmpdir()): Promise<Scratch> {
    const { default: Sqlite } = await import('better-sqlite3');
    const dir = mkdtempSync(join(parent, 'import-ledger-scratch-'));
    try {
      const scratch = new Scratch(new Sqlite(join(dir, 'scratch.db')), dir);
      scratch.db.exec(`${LISTING}; ${schema}; BEGIN;`);
      return scratch;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Runs one write in the open batch, committing the batch when it is full. */
  write<T>(run: () => T): T {
    const result = run();
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
    return result;
  }

  count(table: string): number {
    return this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  }

  /**
   * The names in `dir` ending in `.json`, in JavaScript's sort order (the accounts/ folder's order, the
   * same for migrate and verify), streamed through the scratch file a page at a time: a million names are
   * never held.
   */
  async *sortedJsonNames(dir: string): AsyncGenerator<string> {
    this.write(() => this.db.prepare('DELETE FROM listing').run());
    const list = this.db.prepare('INSERT INTO listing (name) VALUES (?)');
    for await (const entry of await opendir(dir)) if (entry.name.endsWith('.json')) this.write(() => list.run(nameKey(entry.name)));
    const listed = this.db.prepare('SELECT name FROM listing WHERE name > ? ORDER BY name LIMIT ?').pluck();
    let after: Buffer = Buffer.alloc(0);
    for (;;) {
      const page = listed.all(after, PAGE) as Buffer[];
      for (const key of page) yield nameOf(key);
      if (page.length < PAGE) return;
      after = page[page.length - 1]!;
    }
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
