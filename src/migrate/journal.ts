import { closeSync, createReadStream, existsSync, openSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

/**
 * The journal: one NDJSON line per settled item, appended with one write(2) as soon as it settles, so a
 * run killed at any instant (SIGKILL included) leaves every settled item on record for a re-run to skip.
 * A torn last line is ignored: that item is done again under the same Idempotency-Key. Failures are not
 * journaled, so a re-run tries them again.
 */
export interface JournalEntry {
  readonly step: string;
  readonly id: string;
  readonly outcome: string;
  readonly platform_account_number?: string | null;
  readonly at: string;
}

export class Journal {
  private readonly fd: number | null;
  private constructor(
    readonly file: string | null,
    private readonly done: Map<string, JournalEntry>,
  ) {
    this.fd = file === null ? null : openSync(file, 'a');
  }

  /** Opens (creating) the journal; `fresh` ignores what it holds (and starts it over); null: none (a dry run). */
  static async open(file: string | null, fresh: boolean): Promise<Journal> {
    const done = new Map<string, JournalEntry>();
    if (file === null) return new Journal(null, done);
    if (fresh && existsSync(file)) {
      closeSync(openSync(file, 'w'));
    } else if (existsSync(file)) {
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        try {
          const entry = JSON.parse(line) as JournalEntry;
          if (typeof entry.step === 'string' && typeof entry.id === 'string') done.set(Journal.key(entry.step, entry.id), entry);
        } catch {
          // a torn line: that item is done again
        }
      }
    }
    return new Journal(file, done);
  }

  private static key(step: string, id: string): string {
    return `${step}\u0000${id}`;
  }

  finished(step: string, id: string): JournalEntry | undefined {
    return this.done.get(Journal.key(step, id));
  }

  get size(): number {
    return this.done.size;
  }

  record(entry: Omit<JournalEntry, 'at'>): void {
    const full: JournalEntry = { ...entry, at: new Date().toISOString() };
    this.done.set(Journal.key(entry.step, entry.id), full);
    if (this.fd !== null) writeSync(this.fd, `${JSON.stringify(full)}\n`);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}

/**
 * The Idempotency-Key of one write: the supplier, the step, the item's id and a hash of the exact body
 * text sent (nothing re-serialised, so the key cannot drift between runs). A retry or a re-run sends the
 * same key with the same body and is answered the first response; a corrected input is a new key, so the
 * correction applies. At most 255 printable ASCII characters (the service's rule): the ids are hashed in.
 */
export function idempotencyKey(supplier: string, step: string, id: string, bodyJson: string): string {
  const digest = createHash('sha256').update(JSON.stringify([supplier, step, id])).update('\n').update(bodyJson).digest('base64url');
  const readable = `${supplier}:${step}:${id}`.replace(/[^\x21-\x7e]/g, '_').slice(0, 160);
  return `migrate:${readable}:${digest}`;
}
