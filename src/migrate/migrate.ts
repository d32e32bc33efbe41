import type { AccountsListQuery, ApiClient } from './api-client.js';
import { realpathSync } from 'node:fs';
import { MigrationAborted, connect, pagedList, pool, type FolderRunOptions } from './folder-run.js';
import { MigrationInput, RECORD_KINDS, type ReadItem } from './input.js';
import { ForeignJournal, Journal } from './journal.js';
import { checkBeforeWriting } from './preflight.js';
import { Progress, type StepProgress } from './progress.js';
import { Report, type ReportLine, type Summary } from './report.js';
import type { Sender } from './retry.js';
import { readAhead } from './read-ahead.js';
import { migrateAccount, migrateBusiness, migrateProduct, migrateRecords, prepareAccount, type StepContext } from './steps.js';

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

/** What the service knows of the supplier's accounts (the all-accounts list): number -> platform number or null. */
async function knownAccounts(client: ApiClient, sender: Sender, supplier: string, baseUrl: string): Promise<Map<string, string | null>> {
  const known = new Map<string, string | null>();
  const read = (query: AccountsListQuery, token: string) => client.listAccounts(supplier, query, token);
  type Entry = { external_account_number?: unknown; platform_account_number?: unknown };
  // The checks stay: a front (a proxy) may answer anything.
  for await (const page of pagedList<AccountsListQuery, Entry>(sender, baseUrl, { limit: 10000 }, read, `listing the accounts of ${supplier}`)) {
    for (const entry of page) {
      if (typeof entry.external_account_number === 'string') {
        known.set(entry.external_account_number, typeof entry.platform_account_number === 'string' && entry.platform_account_number ? entry.platform_account_number : null);
      }
    }
  }
  return known;
}

/**
 * `import-ledger migrate`: a whole migration from a folder, over HTTP only (any instance, any store), in
 * the spec's order (1.4): products, businesses, accounts (stage, process), then each account's records.
 * See docs/migrate.md for the layout, the journal, retries and the report.
 */
export async function migrate(options: MigrateOptions, log: (line: string) => void): Promise<MigrateResult> {
  const stopRequested = options.stopRequested ?? (() => false);
  const input = new MigrationInput(options.dir);
  let retriesOf: StepProgress | null = null;
  const { client, sender, serviceId } = await connect(options, 30_000, () => {
    if (retriesOf) retriesOf.retries++;
  });
  // A dry run neither reads nor writes the journal: it settles nothing, and must not skip anything either.
  // Another service's journal stops the run first: the checks below read the whole folder.
  const owner = { service_id: serviceId, supplier: options.supplier, folder: realpathSync(options.dir) };
  const journal = await Journal.open(options.dryRun ? null : options.journalFile, options.fresh, owner).catch((error: unknown) => {
    client.close();
    throw error instanceof ForeignJournal ? new MigrationAborted(error.message, true, error.hint) : error;
  });
  const preflight = { client, sender, input, team: options.team, concurrency: options.concurrency, stopped: stopRequested, log };
  await checkBeforeWriting(preflight).catch((error: unknown) => {
    journal.close();
    client.close();
    throw error;
  });
  const report = new Report(options.reportFile);
  const progress = new Progress({ stream: options.progressStream ?? process.stderr, intervalMs: options.progressIntervalMs ?? 5_000 });
  let interrupted = false;
  try {
    if (journal.size > 0 && !options.dryRun) log(`resuming: the journal ${options.journalFile} holds ${journal.size} settled items`);
    const known = await knownAccounts(client, sender, options.supplier, options.baseUrl);
    const ctx: StepContext = { client, sender, journal, supplier: options.supplier, team: options.team, dryRun: options.dryRun, stageOnly: options.stageOnly, known };
    const failedAccounts = new Set<string>();

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
        if (result?.outcome === 'failed') failedAccounts.add(result.id);
        return result;
      });
    } else log('accounts: no accounts/ folder or accounts.ndjson, step skipped');

    const recordAccounts = input.recordAccounts();
    if (!recordAccounts) log('records: no records/ folder, step skipped');
    else if (options.dryRun) log('records: not sent in a dry run (the service has no way to validate them without storing them)');
    else if (options.stageOnly) log('records: not sent with --stage-only (they need imported accounts)');
    else {
      const work = recordAccounts.flatMap((ext) => RECORD_KINDS.filter((kind) => input.hasRecords(ext, kind)).map((kind) => ({ ext, kind })));
      await runStep('records', work.length, work, options.concurrency, async ({ ext, kind }) => {
        const item: ReadItem | null = input.records(ext, kind, options.supplier);
        if (!item) return null;
        if (failedAccounts.has(ext)) return { step: kind, id: ext, outcome: 'skipped', platform_account_number: null, http_status: null, error_code: null, error_items: null, detail: 'the account was not imported in this run' };
        return migrateRecords(ctx, kind, item);
      });
    }
    interrupted = stopRequested();
  } finally {
    progress.stop();
    journal.close();
    report.close();
    client.close();
  }
  const summary = report.summary();
  return { summary, interrupted, exitCode: interrupted ? 130 : report.failures > 0 ? 1 : 0 };
}
