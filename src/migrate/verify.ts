import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { accountRecordsLineSchema, type AccountRecordsLine } from '../export/account-records-export.js';
import type { FailuresQuery, VerifyClient } from './api-client.js';
import { MigrationAborted, answered, connect, pagedList, pool, type FolderRunOptions } from './folder-run.js';
import { MigrationInput, isUnreadable } from './input.js';
import { Progress } from './progress.js';
import type { Sender } from './retry.js';
import { compareRecords } from './verify-records.js';
import { VerifyReport, type VerifySummary } from './verify-report.js';
import { fingerprint, sourceAccount, sourceFingerprint } from './verify-source.js';
import { verifyBusinessPaymentInstructions } from './verify-business-instructions.js';
import { verifyCatalogue } from './verify-catalogue.js';
import { VerifyScratch } from './verify-scratch.js';
import { readRecordLines } from './verify-lines.js';

/**
 * `import-ledger verify`: compares the folder `migrate` reads with what the service holds for the
 * supplier, over HTTP only (docs/migrate.md "Verify"). The catalogue first (verify-catalogue.ts), then
 * the business payment instructions by business (verify-business-instructions.ts), then the accounts in
 * three passes, after the NDJSON record files are read into the scratch file by account (verify-lines.ts):
 *  1. the folder's accounts, each reduced to a fingerprint kept in a scratch file, so memory does not grow;
 *  2. the service's records export, streamed: each line matched with its fingerprint, or reported extra or
 *     not imported (with its latest refusal code); what no line matched is missing;
 *  3. the accounts whose fingerprints differ, read again on both sides and compared record by record.
 */
export interface VerifyResult {
  /** The service compared with (GET service/): the one the verification is recorded on. */
  readonly serviceId: string;
  readonly summary: VerifySummary;
  /** 0: the folder and the service agree; 1: they differ. */
  readonly exitCode: 0 | 1;
}

/** The latest refusal code of each account the service does not hold imported, from the import-failures list (newest first), paged. */
async function latestRefusals(client: VerifyClient, sender: Sender, supplier: string, baseUrl: string, scratch: VerifyScratch): Promise<void> {
  const wanted = scratch.unimportedCount;
  if (wanted === 0) return;
  let found = 0;
  const read = (query: FailuresQuery, token: string) => client.listFailures(supplier, query, token);
  type Failure = { external_account_number: string; code: string };
  for await (const page of pagedList<FailuresQuery, Failure>(sender, baseUrl, { limit: 1000 }, read, `listing the failures of ${supplier}`)) {
    for (const failure of page) if (scratch.refuse(failure.external_account_number, failure.code)) found++;
    if (found >= wanted) return;
  }
}

/** Records the result on the supplier's stream (POST verifications/); a refusal is said, not fatal: the comparison stands. */
async function recordResult(client: VerifyClient, sender: Sender, supplier: string, serviceId: string, report: VerifyReport, log: (line: string) => void): Promise<void> {
  const body = { value: { import_supplier: supplier, agree: report.differences === 0, summary: report.summary(), service_id: serviceId } };
  const key = `verify-${randomUUID()}`;
  const outcome = await sender.send((token) => client.post('/v1/data-import/verifications/', body, { token, idempotencyKey: key }));
  if (outcome.kind !== 'answer' || outcome.answer.status !== 201) {
    log(`the verification was not recorded on the service: ${outcome.kind === 'answer' ? `HTTP ${outcome.answer.status}` : outcome.kind}`);
  }
}

/** `concurrency`: the accounts compared in detail at once (pass 3). */
export async function verify(options: FolderRunOptions, log: (line: string) => void): Promise<VerifyResult> {
  const stopRequested = options.stopRequested ?? (() => false);
  const { client, sender, serviceId } = await connect(options, 60_000);
  const scratch = await VerifyScratch.open().catch((error: unknown) => {
    client.close();
    throw error;
  });
  const input = new MigrationInput(options.dir, (dir) => scratch.sortedJsonNames(dir));
  const report = new VerifyReport(options.reportFile);
  const progress = new Progress({ stream: options.progressStream ?? process.stderr, intervalMs: options.progressIntervalMs ?? 5_000, failedLabel: 'differ' });
  try {
    const catalogue = { client, sender, supplier: options.supplier, input, report, progress, concurrency: options.concurrency, stopped: stopRequested, log };
    await verifyCatalogue(catalogue);
    await verifyBusinessPaymentInstructions(catalogue, scratch);
    if (stopRequested()) throw new MigrationAborted('interrupted', false);
    await readRecordLines(input, options.supplier, scratch, report, progress, stopRequested);
    if (stopRequested()) throw new MigrationAborted('interrupted', false);

    // Pass 1: the folder's accounts, each to a fingerprint.
    if (input.accountsSource()) {
      const p = progress.begin('read folder', null);
      input.countAccounts().then((n) => (p.total = n)).catch(() => undefined);
      for await (const item of input.accounts()) {
        if (stopRequested()) throw new MigrationAborted('interrupted', false);
        p.done++;
        if (isUnreadable(item)) {
          report.add({ kind: 'accounts', item: item.id, difference: 'different', field: 'source', source: `${item.problem} (${item.source})`, service: null });
          p.failed++;
          continue;
        }
        if ((item.body as Record<string, unknown>)['import_supplier'] !== options.supplier) continue; // migrate sends it nowhere
        if (!scratch.expect(item.id, sourceFingerprint(sourceAccount(input, options.supplier, item.id, item.body, scratch.lineRecordsOf(item.id))))) {
          report.add({ kind: 'accounts', item: item.id, difference: 'different', field: 'source', source: `twice in the folder (again at ${item.source})`, service: null });
          p.failed++;
        }
      }
      progress.end(p);
    } else log('accounts: no accounts/ folder or accounts.ndjson in the folder');

    // Pass 2: the service's export, streamed, matched against the fingerprints.
    const p = progress.begin('compare', scratch.expectedCount);
    const opened = answered<AsyncIterable<Buffer>>(await sender.send((token) => client.openRecordsExport(options.supplier, token)), `reading the records export of ${options.supplier}`);
    if (opened.status !== 200 || typeof opened.body !== 'object' || opened.body === null) throw new MigrationAborted(`the records export of ${options.supplier} answered ${opened.status}`, false);
    const lines = createInterface({ input: Readable.from(opened.body), crlfDelay: Infinity });
    // A transfer the service or the network cut is not an end: the verification stops, it cannot be judged.
    const broken = (error: unknown) => new MigrationAborted(`the records export of ${options.supplier} broke off: ${error instanceof Error ? error.message : String(error)}`, false);
    for await (const text of (async function* () {
      try {
        yield* lines;
      } catch (error) {
        throw broken(error);
      }
    })()) {
      if (text.trim() === '') continue;
      if (stopRequested()) throw new MigrationAborted('interrupted', false);
      const line: AccountRecordsLine = accountRecordsLineSchema.parse(JSON.parse(text));
      const ext = line.external_account_number;
      const mine = scratch.take(ext);
      if (mine === undefined) {
        report.add({ kind: 'accounts', item: ext, difference: 'extra', field: 'present', source: null, service: line.state });
        continue;
      }
      p.done++;
      if (line.state !== 'imported') {
        scratch.notImported(ext, line.state);
        p.failed++;
        continue;
      }
      report.identical('accounts');
      if (fingerprint(line.state, line.digests, line.ledger_balance_cents) === mine) {
        for (const kind of ['notes', 'transactions', 'statements', 'payment_instructions'] as const) report.identical(kind, line.counts[kind]);
        report.identical('ledger_balance');
      } else {
        scratch.differ(ext);
        p.failed++;
      }
    }
    progress.end(p);

    // Accounts the folder has that the service does not hold imported: their state and latest refusal.
    await latestRefusals(client, sender, options.supplier, options.baseUrl, scratch);
    for (const { ext, refusal } of scratch.missing()) {
      report.add({ kind: 'accounts', item: ext, difference: 'missing', field: 'present', source: 'imported', service: refusal !== null ? `refused: ${refusal}` : null });
    }
    for (const { ext, state, refusal } of scratch.notImportedAccounts()) {
      report.add({ kind: 'accounts', item: ext, difference: 'different', field: 'state', source: 'imported', service: refusal !== null ? `${state} (refused: ${refusal})` : state });
    }

    // Pass 3: the accounts whose fingerprints differ, record by record.
    const differing = scratch.differingCount;
    if (differing > 0) {
      const d = progress.begin('details', differing);
      const accounts = (async function* () {
        for await (const item of input.accounts()) if (!isUnreadable(item) && scratch.isDiffering(item.id)) yield item;
      })();
      await pool(accounts, options.concurrency, stopRequested, async (item) => {
        const answer = answered<AccountRecordsLine>(
          await sender.send((token) => client.accountRecords(options.supplier, item.id, token)),
          `reading the records of ${item.id}`,
        );
        if (answer.status !== 200) throw new MigrationAborted(`the records of ${item.id} answered ${answer.status}`, false);
        const theirs = accountRecordsLineSchema.parse(answer.body);
        const ours = sourceAccount(input, options.supplier, item.id, item.body, scratch.lineRecordsOf(item.id));
        const before = report.differences;
        compareRecords(report, item.id, ours.records, theirs.records ?? { notes: [], transactions: [], statements: [], payment_instructions: [] });
        if (ours.balanceCents === theirs.ledger_balance_cents) report.identical('ledger_balance');
        else report.add({ kind: 'ledger_balance', item: item.id, difference: 'different', field: 'balance_cents', source: String(ours.balanceCents), service: String(theirs.ledger_balance_cents) });
        d.done++;
        if (report.differences > before) d.failed++;
      });
      progress.end(d);
    }
    if (!stopRequested()) await recordResult(client, sender, options.supplier, serviceId, report, log);
  } finally {
    progress.stop();
    report.close();
    client.close();
    scratch.close();
  }
  return { serviceId, summary: report.summary(), exitCode: report.differences > 0 ? 1 : 0 };
}
