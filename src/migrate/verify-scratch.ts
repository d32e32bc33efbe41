import { Scratch } from './scratch.js';

type Statement = ReturnType<Scratch['db']['prepare']>;

export interface Unimported {
  readonly ext: string;
  /** The latest refusal code found for it (null: none). */
  readonly refusal: string | null;
}

const SCHEMA = `
  CREATE TABLE expected (seq INTEGER PRIMARY KEY, ext TEXT NOT NULL UNIQUE, fingerprint TEXT NOT NULL, refusal TEXT);
  CREATE TABLE not_imported (seq INTEGER PRIMARY KEY, ext TEXT NOT NULL UNIQUE, state TEXT NOT NULL, refusal TEXT);
  CREATE TABLE differing (ext TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE line_records (ext TEXT NOT NULL, kind TEXT NOT NULL, records TEXT NOT NULL);
  CREATE TABLE business_lines (business TEXT NOT NULL, record TEXT);
`;

/**
 * What `verify` keeps per account of the folder (fingerprints, accounts not imported or differing, refusal
 * codes, the accounts/ folder's names, the records of the NDJSON record files by account; the business
 * payment instructions of businesses/payment-instructions.ndjson by business) in its scratch file
 * (scratch.ts) rather than the heap.
 */
export class VerifyScratch {
  private readonly statements;
  private recordsOf: Statement | null = null;
  private businessReads: { after: Statement; recordsOf: Statement } | null = null;

  private constructor(private readonly scratch: Scratch) {
    const db = scratch.db;
    this.statements = {
      expect: db.prepare('INSERT INTO expected (ext, fingerprint) VALUES (?, ?) ON CONFLICT (ext) DO NOTHING'),
      take: db.prepare('DELETE FROM expected WHERE ext = ? RETURNING fingerprint').pluck(),
      notImported: db.prepare('INSERT INTO not_imported (ext, state) VALUES (?, ?)'),
      differ: db.prepare('INSERT INTO differing (ext) VALUES (?)'),
      isDiffering: db.prepare('SELECT 1 FROM differing WHERE ext = ?').pluck(),
      refuseExpected: db.prepare('UPDATE expected SET refusal = ? WHERE ext = ? AND refusal IS NULL'),
      refuseNotImported: db.prepare('UPDATE not_imported SET refusal = ? WHERE ext = ? AND refusal IS NULL'),
      lineRecords: db.prepare('INSERT INTO line_records (ext, kind, records) VALUES (?, ?, ?)'),
      businessLine: db.prepare('INSERT INTO business_lines (business, record) VALUES (?, ?)'),
    };
  }

  /** A new scratch file in a folder of its own in `parent` (the temporary folder by default). */
  static async open(parent?: string): Promise<VerifyScratch> {
    return new VerifyScratch(await Scratch.open(SCHEMA, parent));
  }

  private write<T>(run: () => T): T {
    return this.scratch.write(run);
  }

  private count(table: 'expected' | 'not_imported' | 'differing'): number {
    return this.scratch.count(table);
  }

  /** Before pass 1: the records one line of an NDJSON record file holds for an account (a JSON array, in the compared form). */
  addLineRecords(ext: string, kind: string, records: string): void {
    this.write(() => this.statements.lineRecords.run(ext, kind, records));
  }

  /**
   * Once every line is in: the lines copied in account order into a table clustered by account (one sort,
   * then appends), so an account's lines are one page read, not one a line, and accounts read in order read
   * the table in order. Inserting them clustered as they come (in any order) would write all over a B-tree
   * much larger than the page cache.
   */
  lineRecordsRead(): void {
    this.scratch.db.exec(`
      CREATE TABLE account_line_records (ext TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, records TEXT NOT NULL, PRIMARY KEY (ext, seq)) WITHOUT ROWID;
      INSERT INTO account_line_records SELECT ext, rowid, kind, records FROM line_records ORDER BY ext, rowid;
      DELETE FROM line_records;
    `);
    this.recordsOf = this.scratch.db.prepare('SELECT kind, records FROM account_line_records WHERE ext = ? ORDER BY seq');
  }

  /** The records the NDJSON record files hold for an account, a JSON array per line, in the files' order (none before `lineRecordsRead`). */
  lineRecordsOf(ext: string): { readonly kind: string; readonly records: string }[] {
    return (this.recordsOf?.all(ext) ?? []) as { kind: string; records: string }[];
  }

  /** A business to compare: with one of its payment instructions (JSON, in the compared form), or with none (null: a business of businesses/). */
  addBusinessLine(business: string, record: string | null): void {
    this.write(() => this.statements.businessLine.run(business, record));
  }

  /** Once every business line is in: clustered by business, as `lineRecordsRead` does for the accounts' lines. */
  businessLinesRead(): void {
    this.scratch.db.exec(`
      CREATE TABLE business_line_records (business TEXT NOT NULL, seq INTEGER NOT NULL, record TEXT, PRIMARY KEY (business, seq)) WITHOUT ROWID;
      INSERT INTO business_line_records SELECT business, rowid, record FROM business_lines ORDER BY business, rowid;
      DELETE FROM business_lines;
    `);
    this.businessReads = {
      after: this.scratch.db.prepare('SELECT DISTINCT business FROM business_line_records WHERE business > @after ORDER BY business LIMIT @limit').pluck(),
      recordsOf: this.scratch.db.prepare('SELECT record FROM business_line_records WHERE business = ? AND record IS NOT NULL ORDER BY seq').pluck(),
    };
  }

  /** The businesses to compare, in name order, a page at a time (none before `businessLinesRead`). */
  async *businesses(page = 500): AsyncGenerator<string> {
    let after = '';
    for (;;) {
      const names = (this.businessReads?.after.all({ after, limit: page }) ?? []) as string[];
      yield* names;
      if (names.length < page) return;
      after = names[names.length - 1]!;
    }
  }

  /** A business's payment instructions of the folder, in the file's order (JSON each). */
  businessLinesOf(business: string): string[] {
    return (this.businessReads?.recordsOf.all(business) ?? []) as string[];
  }

  /** Pass 1: an account's fingerprint; false when the account is expected already (twice in the folder). */
  expect(ext: string, fingerprint: string): boolean {
    return this.write(() => this.statements.expect.run(ext, fingerprint)).changes === 1;
  }

  get expectedCount(): number {
    return this.count('expected');
  }

  /** Pass 2: the fingerprint expected of an account, taken (no longer expected); undefined when none is. */
  take(ext: string): string | undefined {
    return this.write(() => this.statements.take.get(ext)) as string | undefined;
  }

  /** Pass 2: an account taken whose state on the service is not `imported`. */
  notImported(ext: string, state: string): void {
    this.write(() => this.statements.notImported.run(ext, state));
  }

  /** Pass 2: an account taken whose fingerprint differs, compared record by record in pass 3. */
  differ(ext: string): void {
    this.write(() => this.statements.differ.run(ext));
  }

  get differingCount(): number {
    return this.count('differing');
  }

  isDiffering(ext: string): boolean {
    return this.statements.isDiffering.get(ext) !== undefined;
  }

  /** The accounts the service does not hold imported: those still expected and those not imported. */
  get unimportedCount(): number {
    return this.count('expected') + this.count('not_imported');
  }

  /** A refusal code of an account (newest first): kept when the account is unimported and has none yet; true when kept. */
  refuse(ext: string, code: string): boolean {
    return this.write(() => this.statements.refuseExpected.run(code, ext).changes + this.statements.refuseNotImported.run(code, ext).changes) > 0;
  }

  /** The accounts still expected after pass 2, in the folder's order. */
  missing(): IterableIterator<Unimported> {
    return this.scratch.db.prepare('SELECT ext, refusal FROM expected ORDER BY seq').iterate() as IterableIterator<Unimported>;
  }

  /** The accounts found not imported, in the export's order. */
  notImportedAccounts(): IterableIterator<Unimported & { readonly state: string }> {
    return this.scratch.db.prepare('SELECT ext, state, refusal FROM not_imported ORDER BY seq').iterate() as IterableIterator<Unimported & { readonly state: string }>;
  }

  /** The names in `dir` ending in `.json`, in migrate's (JavaScript's) sort order (Scratch.sortedJsonNames). */
  sortedJsonNames(dir: string): AsyncGenerator<string> {
    return this.scratch.sortedJsonNames(dir);
  }

  close(): void {
    this.scratch.close();
  }
}
