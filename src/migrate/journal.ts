import { closeSync, createReadStream, existsSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { MigrateScratch, SettledEntry } from './migrate-scratch.js';

/**
 * The journal: its owner's line (the service, the supplier, the folder), then one NDJSON line per settled
 * item, appended with one write(2) as soon as it settles, so a run killed at any instant (SIGKILL included)
 * leaves every settled item on record for a re-run to skip.
 * A torn last line is ignored: that item is done again under the same Idempotency-Key. Failures are not
 * journaled, so a re-run tries them again. The settled items are looked up in the run's scratch file
 * (migrate-scratch.ts), loaded from the journal at the start: memory does not grow with them.
 */
export interface JournalEntry {
  readonly step: string;
  readonly id: string;
  readonly outcome: string;
  readonly platform_account_number?: string | null;
  readonly at: string;
}

/** Whose journal it is: the service it was sent to, the supplier and the folder. Its first line. */
export interface JournalOwner {
  readonly service_id: string;
  readonly supplier: string;
  /** The folder's real path. */
  readonly folder: string;
}

/** The journal was written for another service, supplier or folder: nothing it holds says anything of this run. */
export class ForeignJournal extends Error {
  override name = 'ForeignJournal';
  readonly hint =
    'run again with --fresh to start the journal over for this service (what the service already holds is answered as already imported), ' +
    'or give another --report to keep that journal';
}

const HEADER = 'import-ledger migrate journal';

export class Journal {
  private readonly fd: number | null;
  private constructor(
    readonly file: string | null,
    private readonly settled: MigrateScratch,
    /** How many settled items the journal held when opened. */
    readonly size: number,
  ) {
    this.fd = file === null ? null : openSync(file, 'a');
  }

  /**
   * Opens the journal of `owner` (null file: none, a dry run), its settled items loaded into `settled`. A new
   * journal, or one started over with `fresh`, begins with the owner's line; an existing one must be the
   * owner's, or `ForeignJournal` is thrown before anything is sent: the items another service settled are
   * not settled here (a reset database, a second service, another folder). A torn last line is ignored.
   */
  static async open(file: string | null, fresh: boolean, owner: JournalOwner, settled: MigrateScratch): Promise<Journal> {
    if (file === null) return new Journal(null, settled, 0);
    let size = 0;
    if (!fresh && existsSync(file) && statSync(file).size > 0) {
      let first = true;
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        if (first) {
          first = false;
          Journal.checkOwner(file, line, owner);
          continue;
        }
        try {
          const entry = JSON.parse(line) as JournalEntry;
          if (typeof entry.step === 'string' && typeof entry.id === 'string' && typeof entry.outcome === 'string') {
            settled.settle(entry.step, entry.id, { outcome: entry.outcome, platform_account_number: entry.platform_account_number ?? null });
            size++;
          }
        } catch {
          // a torn line: that item is done again
        }
      }
    } else {
      writeFileSync(file, `${JSON.stringify({ journal: HEADER, ...owner, started_at: new Date().toISOString() })}\n`);
    }
    return new Journal(file, settled, size);
  }

  private static checkOwner(file: string, line: string, owner: JournalOwner): void {
    let found: Partial<JournalOwner> & { journal?: unknown } = {};
    try {
      found = JSON.parse(line) as typeof found;
    } catch {
      // not a journal line: said below
    }
    const what = (o: Partial<JournalOwner>) => `service ${o.service_id ?? '(none)'}, supplier ${o.supplier ?? '(none)'}, folder ${o.folder ?? '(none)'}`;
    if (found.journal === HEADER && found.service_id === owner.service_id && found.supplier === owner.supplier && found.folder === owner.folder) return;
    const whose = found.journal === HEADER ? `belongs to ${what(found)}` : 'names no service (it is not a journal of this version)';
    throw new ForeignJournal(`the journal ${file} ${whose}; this run is ${what(owner)}. Nothing was sent.`);
  }

  finished(step: string, id: string): SettledEntry | undefined {
    return this.settled.settled(step, id);
  }

  record(entry: Omit<JournalEntry, 'at'>): void {
    this.settled.settle(entry.step, entry.id, { outcome: entry.outcome, platform_account_number: entry.platform_account_number ?? null });
    if (this.fd !== null) writeSync(this.fd, `${JSON.stringify({ ...entry, at: new Date().toISOString() })}\n`);
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
