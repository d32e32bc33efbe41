import { createApiClient, type AccountsListAnswer, type AccountsListQuery, type ApiAnswer, type ApiClient } from './api-client.js';
import { MigrationInput, RECORD_KINDS, type ReadItem } from './input.js';
import { Journal } from './journal.js';
import { Progress, type StepProgress } from './progress.js';
import { Report, type ReportLine, type Summary } from './report.js';
import { DEFAULT_RETRY_POLICY, createSender, type RetryPolicy } from './retry.js';
import { readAhead } from './read-ahead.js';
import { migrateAccount, migrateBusiness, migrateProduct, migrateRecords, prepareAccount, type StepContext } from './steps.js';
import { TokenRefused, createTokenSource } from './token-source.js';

/**
 * `import-ledger migrate`: a whole migration from a folder, over HTTP only (any instance, any store), in
 * the spec's order (1.4): products, businesses, accounts (stage, process), then each account's records.
 * See docs/migrate.md for the layout, the journal, retries and the report.
 */
/**
 * Ctrl-C for `migrate` and `verify`: the first asks the run to stop (`stopRequested` turns true, `message`
 * says what happens), the second quits at once (exit 130). `dispose` removes the handler.
 */
export function onCtrlC(message: string): { stopRequested: () => boolean; dispose: () => void } {
  let stopping = false;
  const handler = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\n${message}\n`);
  };
  process.on('SIGINT', handler);
  return { stopRequested: () => stopping, dispose: () => process.off('SIGINT', handler) };
}

/** What `migrate` and `verify` both take: a folder, a service and a supplier, over HTTP. */
export interface FolderRunOptions {
  readonly dir: string;
  readonly baseUrl: string;
  readonly supplier: string;
  readonly apiKey: string;
  readonly concurrency: number;
  readonly reportFile: string | null;
  readonly retry?: RetryPolicy;
  readonly requestTimeoutMs?: number;
  readonly progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  readonly progressIntervalMs?: number;
  /** Set by Ctrl-C: no new item is started; those in flight finish (or give up waiting to retry). */
  readonly stopRequested?: () => boolean;
}

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

/** The service could not be used at all (a refused key, a supplier outside the key's scope, no answer). */
export class MigrationAborted extends Error {
  override name = 'MigrationAborted';
  constructor(
    message: string,
    readonly usage: boolean,
  ) {
    super(message);
  }
}

/** Runs `work` on every item, `concurrency` at a time, until the items run out or a stop is asked for. */
export async function pool<T>(items: AsyncIterable<T> | Iterable<T>, concurrency: number, stopped: () => boolean, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  const worker = async () => {
    while (!stopped()) {
      const next = await iterator.next();
      if (next.done) return;
      await work(next.value);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

/** What the service knows of the supplier's accounts (the all-accounts list, paged): number -> platform number or null. */
async function knownAccounts(client: ApiClient, ctx: Pick<StepContext, 'sender' | 'supplier'>, baseUrl: string): Promise<Map<string, string | null>> {
  const known = new Map<string, string | null>();
  let query: AccountsListQuery | null = { limit: '10000' };
  while (query) {
    const page: AccountsListQuery = query;
    const outcome = await ctx.sender.send((token) => client.listAccounts(ctx.supplier, page, token));
    if (outcome.kind === 'interrupted') throw new MigrationAborted('interrupted', false);
    if (outcome.kind === 'no-answer') throw new MigrationAborted(`the service did not answer: ${outcome.error}`, false);
    const answer = outcome.answer as ApiAnswer<AccountsListAnswer>;
    if (answer.status !== 200 || !Array.isArray(answer.body)) {
      const usage = answer.status === 401 || answer.status === 403;
      throw new MigrationAborted(`listing the accounts of ${ctx.supplier} answered ${answer.status}${usage ? ': does the supplier exist, and is the key scoped to it?' : ''}`, usage);
    }
    // The 200 body is the document's list; the checks stay, since a front (a proxy) may answer anything.
    for (const entry of answer.body as { external_account_number?: unknown; platform_account_number?: unknown }[]) {
      if (typeof entry.external_account_number === 'string') {
        known.set(entry.external_account_number, typeof entry.platform_account_number === 'string' && entry.platform_account_number ? entry.platform_account_number : null);
      }
    }
    // The next page is the Link rel="next" target: the same list, with its query (limit, after).
    const link = answer.next ? new URL(answer.next, baseUrl) : null;
    query = link ? (Object.fromEntries(link.searchParams) as AccountsListQuery) : null;
  }
  return known;
}

export async function migrate(options: MigrateOptions, log: (line: string) => void): Promise<MigrateResult> {
  const stopRequested = options.stopRequested ?? (() => false);
  const input = new MigrationInput(options.dir);
  const client = createApiClient({ baseUrl: options.baseUrl, timeoutMs: options.requestTimeoutMs ?? 30_000, maxSockets: options.concurrency + 2 });
  const tokens = createTokenSource(client, options.apiKey);
  let retriesOf: StepProgress | null = null;
  const sender = createSender(tokens, options.retry ?? DEFAULT_RETRY_POLICY, {
    stopped: stopRequested,
    onRetry: () => {
      if (retriesOf) retriesOf.retries++;
    },
  });
  try {
    await tokens.current();
  } catch (error) {
    if (error instanceof TokenRefused) throw new MigrationAborted(error.message, true);
    throw new MigrationAborted(`no token: ${error instanceof Error ? error.message : String(error)}`, false);
  }
  // A dry run neither reads nor writes the journal: it settles nothing, and must not skip anything either.
  const journal = await Journal.open(options.dryRun ? null : options.journalFile, options.fresh);
  const report = new Report(options.reportFile);
  const progress = new Progress({ stream: options.progressStream ?? process.stderr, intervalMs: options.progressIntervalMs ?? 5_000 });
  let interrupted = false;
  try {
    if (journal.size > 0 && !options.dryRun) log(`resuming: the journal ${options.journalFile} holds ${journal.size} settled items`);
    const known = await knownAccounts(client, { sender, supplier: options.supplier }, options.baseUrl);
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
      // Read (and hashed) ahead of the workers: see read-ahead.ts. The lines of accounts.ndjson are counted
      // (for the progress total) while the first accounts are sent, not before: a pass over the file grows
      // with it, and for a million accounts would hold back the first request for seconds.
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
