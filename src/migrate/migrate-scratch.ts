import { Scratch } from './scratch.js';

/**
 * What `migrate` keeps per item while it runs, in its scratch file (scratch.ts) rather than the heap: the
 * journal's settled items (the journal file is their durable record; this is its index), what the service
 * knew of the supplier's accounts at the start, and the accounts that failed in this run (their records are
 * skipped). A million accounts with their records are some millions of rows on disk and a 2 MiB page cache.
 */
export interface SettledEntry {
  readonly outcome: string;
  readonly platform_account_number: string | null;
}

const SCHEMA = `
  CREATE TABLE settled (step TEXT NOT NULL, id TEXT NOT NULL, outcome TEXT NOT NULL, platform_account_number TEXT, PRIMARY KEY (step, id)) WITHOUT ROWID;
  CREATE TABLE known (ext TEXT PRIMARY KEY, platform_account_number TEXT) WITHOUT ROWID;
  CREATE TABLE failed (ext TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE instruction_folders (seq INTEGER PRIMARY KEY, ext TEXT NOT NULL);
`;

/** Folders read back a query: in pages, so the scratch stays writable between them. */
const PAGE = 1_000;

export class MigrateScratch {
  private readonly statements;

  private constructor(private readonly scratch: Scratch) {
    const db = scratch.db;
    this.statements = {
      settle: db.prepare('INSERT INTO settled (step, id, outcome, platform_account_number) VALUES (?, ?, ?, ?) ON CONFLICT (step, id) DO UPDATE SET outcome = excluded.outcome, platform_account_number = excluded.platform_account_number'),
      settled: db.prepare('SELECT outcome, platform_account_number FROM settled WHERE step = ? AND id = ?'),
      know: db.prepare('INSERT INTO known (ext, platform_account_number) VALUES (?, ?) ON CONFLICT (ext) DO UPDATE SET platform_account_number = excluded.platform_account_number'),
      known: db.prepare('SELECT platform_account_number FROM known WHERE ext = ?'),
      fail: db.prepare('INSERT INTO failed (ext) VALUES (?) ON CONFLICT (ext) DO NOTHING'),
      failed: db.prepare('SELECT 1 FROM failed WHERE ext = ?').pluck(),
      noteInstructions: db.prepare('INSERT INTO instruction_folders (ext) VALUES (?)'),
      instructionFolders: db.prepare('SELECT seq, ext FROM instruction_folders WHERE seq > ? ORDER BY seq LIMIT ?'),
    };
  }

  /** A new scratch file in a folder of its own in `parent` (the temporary folder by default). */
  static async open(parent?: string): Promise<MigrateScratch> {
    return new MigrateScratch(await Scratch.open(SCHEMA, parent));
  }

  settle(step: string, id: string, entry: SettledEntry): void {
    this.scratch.write(() => this.statements.settle.run(step, id, entry.outcome, entry.platform_account_number));
  }

  settled(step: string, id: string): SettledEntry | undefined {
    return this.statements.settled.get(step, id) as SettledEntry | undefined;
  }

  get settledCount(): number {
    return this.scratch.count('settled');
  }

  /** An account the service held at the start: its platform account number, or null when staged, not imported. */
  know(ext: string, platformAccountNumber: string | null): void {
    this.scratch.write(() => this.statements.know.run(ext, platformAccountNumber));
  }

  /** What the service held of an account at the start (undefined: nothing). */
  known(ext: string): string | null | undefined {
    const row = this.statements.known.get(ext) as { platform_account_number: string | null } | undefined;
    return row?.platform_account_number;
  }

  /** The accounts/ folder's names in sort order (Scratch.sortedJsonNames). */
  sortedJsonNames(dir: string): AsyncGenerator<string> {
    return this.scratch.sortedJsonNames(dir);
  }

  fail(ext: string): void {
    this.scratch.write(() => this.statements.fail.run(ext));
  }

  hasFailed(ext: string): boolean {
    return this.statements.failed.get(ext) !== undefined;
  }

  /** A records/<EXT>/ folder holding payment instructions, seen on the records step's walk. */
  noteInstructions(ext: string): void {
    this.scratch.write(() => this.statements.noteInstructions.run(ext));
  }

  /** The folders noted, in the order they were, a page at a time. */
  async *instructionFolders(): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const page = this.statements.instructionFolders.all(after, PAGE) as { seq: number; ext: string }[];
      for (const row of page) yield row.ext;
      if (page.length < PAGE) return;
      after = page[page.length - 1]!.seq;
    }
  }

  close(): void {
    this.scratch.close();
  }
}
