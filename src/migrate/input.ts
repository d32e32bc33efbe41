import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { countNonBlankLines, ndjsonLines } from './ndjson.js';

/**
 * The migration folder (docs/migrate.md "The folder"): products.json, businesses/ (and its
 * payment-instructions.ndjson), accounts/ or accounts.ndjson, records/<EXT>/ and records/<kind>.ndjson.
 * Accounts and records are read one at a time, never the whole cohort at once.
 */

/** One input item: its id (for the report and the journal), its body, and where it came from. */
export interface InputItem {
  readonly id: string;
  readonly body: unknown;
  /** The body's JSON text as read (an account file, an NDJSON line): sent and hashed as is, never re-serialised. */
  readonly json?: string;
  readonly source: string;
  /**
   * What the journal knows the item by, when its id is not enough: an NDJSON record line names an account
   * that may have other lines (or a records/<EXT>/ file) of the same kind, so it is the account and a hash
   * of the line's own bytes (the same line is the same item, wherever it moves in the file).
   */
  readonly journalId?: string;
}

/** A file that cannot be read as JSON, or lacks the id a step needs: reported as a failed item. */
export interface UnreadableItem {
  readonly id: string;
  readonly problem: string;
  readonly source: string;
}

export type ReadItem = InputItem | UnreadableItem;

export const isUnreadable = (item: ReadItem): item is UnreadableItem => 'problem' in item;

export const RECORD_KINDS = ['notes', 'transactions', 'statements'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The field naming the supplier in a body, filled in with --supplier when a line or file leaves it out. */
type SupplierField = 'import_supplier' | 'import_supplier_code';

/** How the accounts/ folder is listed: its `.json` names in JavaScript's sort order (migrate's at once, verify's sorted on disk). */
export type JsonNames = (dir: string) => AsyncIterable<string>;

const jsonFiles = (dir: string): string[] =>
  existsSync(dir) && statSync(dir).isDirectory()
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .sort()
    : [];

function readJson(file: string): { ok: true; value: unknown; text: string } | { ok: false; problem: string } {
  try {
    const text = readFileSync(file, 'utf8');
    return { ok: true, value: JSON.parse(text) as unknown, text };
  } catch (error) {
    return { ok: false, problem: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const stringField = (value: unknown, field: string): string | null => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[field] : undefined;
  return typeof found === 'string' && found.length > 0 ? found : null;
};

const listedAtOnce: JsonNames = async function* (dir) {
  yield* jsonFiles(dir);
};

async function countJsonNames(dir: string): Promise<number> {
  let count = 0;
  for await (const entry of await opendir(dir)) if (entry.name.endsWith('.json')) count++;
  return count;
}

export class MigrationInput {
  constructor(
    readonly dir: string,
    private readonly accountFileNames: JsonNames = listedAtOnce,
  ) {}

  /** Products in file order (null: no products.json, the step is skipped). Few enough to hold. */
  products(): ReadItem[] | null {
    const file = join(this.dir, 'products.json');
    if (!existsSync(file)) return null;
    const read = readJson(file);
    if (!read.ok) return [{ id: 'products.json', problem: read.problem, source: file }];
    if (!Array.isArray(read.value)) return [{ id: 'products.json', problem: 'products.json must hold an array of products', source: file }];
    return read.value.map((body, index) => {
      const code = stringField(body, 'code');
      return code ? { id: code, body, source: `${file}#${index}` } : { id: `#${index}`, problem: 'a product without a code', source: `${file}#${index}` };
    });
  }

  /** Businesses, one file (or an array in a file) each (null: no businesses/ folder). */
  businesses(): ReadItem[] | null {
    const dir = join(this.dir, 'businesses');
    if (!existsSync(dir)) return null;
    return jsonFiles(dir).flatMap((name): ReadItem[] => {
      const file = join(dir, name);
      const read = readJson(file);
      if (!read.ok) return [{ id: name, problem: read.problem, source: file }];
      const bodies = Array.isArray(read.value) ? read.value : [read.value];
      return bodies.map((body, index) => {
        const id = stringField(body, 'external_business_identifier');
        const source = Array.isArray(read.value) ? `${file}#${index}` : file;
        return id ? { id, body, source } : { id: name, problem: 'a business without external_business_identifier', source };
      });
    });
  }

  /** Where the accounts are: a folder of files, an NDJSON file, or none (the step is skipped). */
  accountsSource(): { kind: 'files'; dir: string } | { kind: 'ndjson'; file: string } | null {
    const dir = join(this.dir, 'accounts');
    if (existsSync(dir) && statSync(dir).isDirectory()) return { kind: 'files', dir };
    const file = join(this.dir, 'accounts.ndjson');
    return existsSync(file) ? { kind: 'ndjson', file } : null;
  }

  /** How many accounts there are (one pass over the folder's names or the NDJSON file's lines, nothing kept): the progress total. */
  async countAccounts(): Promise<number> {
    const source = this.accountsSource();
    if (!source) return 0;
    if (source.kind === 'files') return countJsonNames(source.dir);
    return countNonBlankLines(source.file);
  }

  async *accounts(): AsyncGenerator<ReadItem> {
    const source = this.accountsSource();
    if (!source) return;
    const item = (value: unknown, json: string, where: string, fallbackId: string): ReadItem => {
      const id = stringField(value, 'external_account_number');
      return id ? { id, body: value, json, source: where } : { id: fallbackId, problem: 'an account without external_account_number', source: where };
    };
    if (source.kind === 'files') {
      for await (const name of this.accountFileNames(source.dir)) {
        const file = join(source.dir, name);
        const read = readJson(file);
        yield read.ok ? item(read.value, read.text, file, file) : { id: file, problem: read.problem, source: file };
      }
      return;
    }
    yield* ndjsonItems(source.file, (value, line, where, lineId) => item(value, line, where, lineId));
  }

  /** The NDJSON file of one kind of records (null: none). */
  recordsFile(kind: RecordKind): string | null {
    const file = join(this.dir, 'records', `${kind}.ndjson`);
    return existsSync(file) ? file : null;
  }

  /** The lines of records/<kind>.ndjson, one account's body each, the supplier filled in where absent; in file order. */
  recordLines(kind: RecordKind, supplier: string): AsyncGenerator<ReadItem> {
    const file = join(this.dir, 'records', `${kind}.ndjson`);
    return ndjsonItems(file, (value, line, where, lineId) => {
      const id = stringField(value, 'external_account_number');
      if (!id) return { id: lineId, problem: 'a line without external_account_number', source: where };
      return { id, ...withSupplier(value, line, 'import_supplier', supplier), source: where, journalId: `${id}#${lineHash(line)}` };
    });
  }

  /** records/payment-instructions.ndjson (null: none). */
  paymentInstructionsFile(): string | null {
    const file = join(this.dir, 'records', 'payment-instructions.ndjson');
    return existsSync(file) ? file : null;
  }

  /** The lines of records/payment-instructions.ndjson, one instruction's body each, known by `<account>/<reference>`. */
  paymentInstructionLines(supplier: string): AsyncGenerator<ReadItem> {
    return ndjsonItems(join(this.dir, 'records', 'payment-instructions.ndjson'), (value, line, where, lineId) => {
      const ext = stringField(value, 'external_account_number');
      const reference = stringField(value, 'reference') ?? stringField(value, 'instruction_reference');
      if (!ext || !reference) return { id: lineId, problem: 'a line without external_account_number or reference', source: where };
      return { id: `${ext}/${reference}`, ...withSupplier(value, line, 'import_supplier', supplier), source: where };
    });
  }

  hasPaymentInstructions(ext: string): boolean {
    return existsSync(join(this.dir, 'records', ext, 'payment-instructions.json'));
  }

  /** An account's records/<EXT>/payment-instructions.json: one item per instruction, the supplier and account filled in (null: no such file). */
  paymentInstructions(ext: string, supplier: string): ReadItem[] | null {
    const file = join(this.dir, 'records', ext, 'payment-instructions.json');
    if (!existsSync(file)) return null;
    const read = readJson(file);
    if (!read.ok) return [{ id: ext, problem: read.problem, source: file }];
    if (!Array.isArray(read.value)) return [{ id: ext, problem: 'payment-instructions.json must hold an array of instructions', source: file }];
    return read.value.map((instruction, index): ReadItem => {
      const where = `${file}#${index}`;
      const reference = stringField(instruction, 'reference') ?? stringField(instruction, 'instruction_reference');
      if (!reference || typeof instruction !== 'object') return { id: `${ext}/#${index}`, problem: 'an instruction without reference', source: where };
      return { id: `${ext}/${reference}`, body: { import_supplier: supplier, external_account_number: ext, ...(instruction as Record<string, unknown>) }, source: where };
    });
  }

  /** businesses/payment-instructions.ndjson (null: none). */
  businessPaymentInstructionsFile(): string | null {
    const file = join(this.dir, 'businesses', 'payment-instructions.ndjson');
    return existsSync(file) ? file : null;
  }

  /** Its lines, one business payment instruction's body each, known by `<business>/<reference>`. */
  businessPaymentInstructionLines(supplier: string): AsyncGenerator<ReadItem> {
    return ndjsonItems(join(this.dir, 'businesses', 'payment-instructions.ndjson'), (value, line, where, lineId) => {
      const business = stringField(value, 'external_business_identifier');
      const reference = stringField(value, 'reference');
      if (!business || !reference) return { id: lineId, problem: 'a line without external_business_identifier or reference', source: where };
      return { id: `${business}/${reference}`, ...withSupplier(value, line, 'import_supplier_code', supplier), source: where };
    });
  }

  /** Whether there is a records/ folder. */
  hasRecordsFolder(): boolean {
    const dir = join(this.dir, 'records');
    return existsSync(dir) && statSync(dir).isDirectory();
  }

  /** The account numbers that have a records folder, as the folder lists them (streamed, never held). */
  async *recordAccounts(): AsyncGenerator<string> {
    if (!this.hasRecordsFolder()) return;
    for await (const entry of await opendir(join(this.dir, 'records'))) if (entry.isDirectory()) yield entry.name;
  }

  hasRecords(ext: string, kind: RecordKind): boolean {
    return existsSync(join(this.dir, 'records', ext, `${kind}.json`));
  }

  /** One kind of records of one account, as the request body (null: no such file). */
  records(ext: string, kind: RecordKind, supplier: string): ReadItem | null {
    const file = join(this.dir, 'records', ext, `${kind}.json`);
    if (!existsSync(file)) return null;
    const read = readJson(file);
    if (!read.ok) return { id: ext, problem: read.problem, source: file };
    const body = Array.isArray(read.value)
      ? { import_supplier: supplier, external_account_number: ext, [kind]: read.value }
      : { import_supplier: supplier, external_account_number: ext, ...(read.value as Record<string, unknown>) };
    return { id: ext, body, source: file };
  }
}

/** The body of a line or file with its supplier field filled in when absent: the line's own text when it has it, else the filled body serialised. */
function withSupplier(value: unknown, line: string, field: SupplierField, supplier: string): { body: unknown; json: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || field in value) return { body: value, json: line };
  const body = { [field]: supplier, ...value };
  return { body, json: JSON.stringify(body) };
}

const lineHash = (line: string): string => createHash('sha256').update(line).digest('base64url').slice(0, 16);

/**
 * The items of an NDJSON file (accounts.ndjson and every other NDJSON file of the folder, through the one
 * reader, ndjson.ts): `item` makes a line's item from its parsed value, its text, where it is (`file:N`) and
 * the id of a line that names nothing (`line N`). A line that does not parse is that line's unreadable item.
 */
async function* ndjsonItems(file: string, item: (value: unknown, line: string, where: string, lineId: string) => ReadItem): AsyncGenerator<ReadItem> {
  for await (const read of ndjsonLines(file)) {
    const where = `${file}:${read.lineNumber}`;
    if ('problem' in read) yield { id: `line ${read.lineNumber}`, problem: read.problem, source: where };
    else yield item(read.value, read.line, where, `line ${read.lineNumber}`);
  }
}
