import type { AccountsListQuery, ApiClient } from './api-client.js';
import { realpathSync } from 'node:fs';
import { MigrationAborted, connect, pagedList, pool, type FolderRunOptions } from './folder-run.js';
import { MigrationInput, RECORD_KINDS, type ReadItem, type RecordKind } from './input.js';
import { countNonBlankLines } from './ndjson.js';
import { ForeignJournal, Journal } from './journal.js';
import { MigrateScratch } from './migrate-scratch.js';
import { checkBeforeWriting } from './preflight.js';
import { Progress, type StepProgress } from './progress.js';
import { Report, type ReportLine, type Summary } from './report.js';
import type { Sender } from './retry.js';
import { readAhead } from './read-ahead.js';
import {
  migrateAccount,
  migrateBusiness,
  migrateBusinessPaymentInstruction,
  migratePaymentInstruction,
  migrateProduct,
  migrateRecords,
  prepareAccount,
  type StepContext,
} from './steps.js';

export interface MigrateOptions extends FolderRunOptions {
  readonly team: string;
  readonly dryRun: boolean;
  readonly stageOnly: boolean;
  readonly journalFile: string;
  readonly fresh: boolean;
}

export interface MigrateResult {
  readonly summary: Summary;
  readonly interrupted: boolean;
  /** 0 nothing failed, 1 some items failed, 130 interrupted. */
  readonly exitCode: number;
}

/** What the service knows of the supplier's accounts (the all-accounts list), into the scratch file: number -> platform number or null. */
async function readKnownAccounts(client: ApiClient, sender: Sender, supplier: string, baseUrl: string, scratch: MigrateScratch): Promise<void> {
  const read = (query: AccountsListQuery, token: string) => client.listAccounts(supplier, query, token);
  type Entry = { external_account_number?: unknown; platform_account_number?: unknown };
  // The checks stay: a front (a proxy) may answer anything.
  for await (const page of pagedList<AccountsListQuery, Entry>(sender, baseUrl, { limit: 10000 }, read, `listing the accounts of ${supplier}`)) {
    for (const entry of page) {
      if (typeof entry.external_account_number === 'string') {
        scratch.know(entry.external_account_number, typeof entry.platform_account_number === 'string' && entry.platform_account_number ? entry.platform_account_number : null);
      }
    }
  }
}

/**
 * The records of the per-account folders, a (folder, kind) at a time, then each kind's NDJSON lines:
 * streamed, nothing listed ahead. The walk notes the folders holding payment instructions in the scratch
 * file (`walked` once it is done), so that step walks only them, not a million folders twice more.
 */
async function* recordItems(input: MigrationInput, supplier: string, scratch: MigrateScratch, walked: () => void): AsyncGenerator<{ kind: RecordKind; item: ReadItem }> {
  for await (const ext of input.recordAccounts()) {
    if (input.hasPaymentInstructions(ext)) scratch.noteInstructions(ext);
    for (const kind of RECORD_KINDS) {
      const item = input.records(ext, kind, supplier);
      if (item) yield { kind, item };
    }
  }
  walked();
  for (const kind of RECORD_KINDS) {
    if (input.recordsFile(kind)) for await (const item of input.recordLines(kind, supplier)) yield { kind, item };
  }
}

/** The payment instructions of the per-account folders (those the records step saw, else every folder), then of records/payment-instructions.ndjson. */
async function* paymentInstructionItems(input: MigrationInput, supplier: string, folders: AsyncIterable<string> | Iterable<string>): AsyncGenerator<ReadItem> {
  for await (const ext of folders) yield* input.paymentInstructions(ext, supplier) ?? [];
  if (input.paymentInstructionsFile()) yield* input.paymentInstructionLines(supplier);
}

/** The progress total of the records: the per-account folders' files, and the NDJSON files' lines (one more pass over the names, nothing kept). */
async function countRecords(input: MigrationInput): Promise<number> {
  let count = 0;
  for await (const ext of input.recordAccounts()) count += RECORD_KINDS.filter((kind) => input.hasRecords(ext, kind)).length;
  for (const kind of RECORD_KINDS) {
    const file = input.recordsFile(kind);
    if (file) count += await countNonBlankLines(file);
  }
  return count;
}

/** How many items a generator gives (a progress total, counted beside the run, nothing kept). */
async function countOf(items: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of items) count++;
  return count;
}

/**
 * `import-ledger migrate`: a whole migration from a folder, over HTTP only (any instance, any store), in
 * the spec's order (1.4): products, businesses, accounts (stage, process), then each account's records.
 * See docs/migrate.md for the layout, the journal, retries and the report.
 */
export async function migrate(options: MigrateOptions, log: (line: string) => void): Promise<MigrateResult> {
  const stopRequested = options.stopRequested ?? (() => false);
  let retriesOf: StepProgress | null = null;
  const { client, sender, serviceId } = await connect(options, 30_000, () => {
    if (retriesOf) retriesOf.retries++;
  });
  // A dry run neither reads nor writes the journal: it settles nothing, and must not skip anything either.
  // Another service's journal stops the run first: the checks below read the whole folder.
  const owner = { service_id: serviceId, supplier: options.supplier, folder: realpathSync(options.dir) };
  const scratch = await MigrateScratch.open().catch((error: unknown) => {
    client.close();
    throw error;
  });
  // An accounts/ folder is read in name order, its names sorted in the scratch file, not held.
  const input = new MigrationInput(options.dir, (dir) => scratch.sortedJsonNames(dir));
  const journal = await Journal.open(options.dryRun ? null : options.journalFile, options.fresh, owner, scratch).catch((error: unknown) => {
    scratch.close();
    client.close();
    throw error instanceof ForeignJournal ? new MigrationAborted(error.message, true, error.hint) : error;
  });
  const preflight = { client, sender, input, team: options.team, concurrency: options.concurrency, stopped: stopRequested, log };
  await checkBeforeWriting(preflight).catch((error: unknown) => {
    journal.close();
    scratch.close();
    client.close();
    throw error;
  });
  const report = new Report(options.reportFile);
  const progress = new Progress({ stream: options.progressStream ?? process.stderr, intervalMs: options.progressIntervalMs ?? 5_000 });
  let interrupted = false;
  try {
    if (journal.size > 0 && !options.dryRun) log(`resuming: the journal ${options.journalFile} holds ${journal.size} settled items`);
    await readKnownAccounts(client, sender, options.supplier, options.baseUrl, scratch);
    const ctx: StepContext = { client, sender, journal, supplier: options.supplier, team: options.team, dryRun: options.dryRun, stageOnly: options.stageOnly, scratch };

    /** `total` may still be counted (a promise): the step starts at once, and its progress shows no total until then. */
    const runStep = async <T>(step: string, total: number | Promise<number>, items: AsyncIterable<T> | Iterable<T>, concurrency: number, work: (item: T) => Promise<ReportLine | null>) => {
      if (stopRequested()) return;
      const p = progress.begin(step, typeof total === 'number' ? total : null);
      // A file the count cannot read fails the reading of the accounts too, and that is what is reported.
      if (typeof total !== 'number') total.then((n) => (p.total = n)).catch(() => undefined);
      retriesOf = p;
      await pool(items, concurrency, stopRequested, async (item) => {
        const result = await work(item);
        if (result === null) return;
        report.add(result);
        p.done++;
        if (result.outcome === 'failed') p.failed++;
      });
      progress.end(p);
    };

    const products = input.products();
    if (products) await runStep('products', products.length, products, 1, (item) => migrateProduct(ctx, item)); // in file order: a rate update follows its product
    else log('products: no products.json, step skipped');

    const businesses = input.businesses();
    if (businesses) await runStep('businesses', businesses.length, businesses, options.concurrency, (item) => migrateBusiness(ctx, item));
    else log('businesses: no businesses/ folder, step skipped');

    if (input.accountsSource()) {
      // Read and hashed ahead of the workers (read-ahead.ts); the progress total is counted while the first
      // accounts are sent, since a pass over a million accounts would hold back the first request for seconds.
      const accounts = readAhead(input.accounts(), 2 * options.concurrency, (item) => prepareAccount(ctx, item));
      await runStep('accounts', input.countAccounts(), accounts, options.concurrency, async (account) => {
        const result = await migrateAccount(ctx, account);
        if (result?.outcome === 'failed') scratch.fail(result.id);
        return result;
      });
    } else log('accounts: no accounts/ folder or accounts.ndjson, step skipped');

    // What follows needs imported accounts (and, for business payment instructions, imported accounts and businesses).
    const after = (what: string): boolean => {
      if (options.dryRun) log(`${what}: not sent in a dry run (the service has no way to validate them without storing them)`);
      else if (options.stageOnly) log(`${what}: not sent with --stage-only (they need imported accounts)`);
      return !options.dryRun && !options.stageOnly;
    };
    let walked = false;
    if (!input.hasRecordsFolder()) log('records: no records/ folder, step skipped');
    else if (after('records')) {
      const items = readAhead(recordItems(input, options.supplier, scratch, () => (walked = true)), 2 * options.concurrency, (entry) => entry);
      await runStep('records', countRecords(input), items, options.concurrency, ({ kind, item }) => migrateRecords(ctx, kind, item));
    }

    if (!input.hasRecordsFolder()) log('payment instructions: no records/ folder, step skipped');
    else if (after('payment instructions')) {
      // A records step stopped before its walk was done has not noted every folder: they are all walked.
      const folders = () => (walked ? scratch.instructionFolders() : input.recordAccounts());
      const items = readAhead(paymentInstructionItems(input, options.supplier, folders()), 2 * options.concurrency, (item) => item);
      await runStep('payment instructions', countOf(paymentInstructionItems(input, options.supplier, folders())), items, options.concurrency, (item) => migratePaymentInstruction(ctx, item));
    }

    if (!input.businessPaymentInstructionsFile()) log('business payment instructions: no businesses/payment-instructions.ndjson, step skipped');
    else if (after('business payment instructions')) {
      const items = readAhead(input.businessPaymentInstructionLines(options.supplier), 2 * options.concurrency, (item) => item);
      await runStep('business payment instructions', countOf(input.businessPaymentInstructionLines(options.supplier)), items, options.concurrency, (item) =>
        migrateBusinessPaymentInstruction(ctx, item),
      );
    }
    interrupted = stopRequested();
  } finally {
    progress.stop();
    journal.close();
    scratch.close();
    report.close();
    client.close();
  }
  const summary = report.summary();
  return { summary, interrupted, exitCode: interrupted ? 130 : report.failures > 0 ? 1 : 0 };
}
