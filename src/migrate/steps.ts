import type { ApiClient, Body, WritePath } from './api-client.js';
import { allAlreadyExisted, failedLine, isDryRunSuccess, isSuccess, line, platformAccountNumber, productUnchanged } from './answers.js';
import { isUnreadable, type InputItem, type ReadItem, type RecordKind, type UnreadableItem } from './input.js';
import { idempotencyKey, type Journal } from './journal.js';
import type { MigrateScratch } from './migrate-scratch.js';
import type { ReportLine } from './report.js';
import type { Outcome, Sender } from './retry.js';

/**
 * How each kind of item is sent and what its answer means for the report and the journal: one function per
 * step, returning the item's report line, or null when Ctrl-C interrupted it (the next run does it).
 */
export interface StepContext {
  readonly client: ApiClient;
  readonly sender: Sender;
  readonly journal: Journal;
  readonly supplier: string;
  readonly team: string;
  readonly dryRun: boolean;
  readonly stageOnly: boolean;
  /** What the service knew at the start (account number -> platform account number, null: staged, not imported) and the accounts failed in this run. */
  readonly scratch: Pick<MigrateScratch, 'known' | 'fail' | 'hasFailed'>;
}

const PATHS = {
  validateProducts: '/v1/data-import/validate-products/',
  products: '/v1/data-import/products/',
  business: '/v1/data-import/business/',
  validateAccount: '/v1/data-import/validate-account/',
  stage: '/v1/data-import/account-import-process/create-or-update/',
  process: '/v1/data-import/account-import-process/process/',
  notes: '/v1/data-import/notes/create/',
  transactions: '/v1/data-import/transactions/create/',
  statements: '/v1/data-import/historical-statements/create/',
  paymentInstruction: '/v1/data-import/payment-instruction/create/',
  businessPaymentInstruction: '/v1/data-import/business-payment-instruction/create/',
} as const satisfies Record<string, WritePath>;

const RECORD_PATHS: Record<RecordKind, (typeof PATHS)['notes' | 'transactions' | 'statements']> = { notes: PATHS.notes, transactions: PATHS.transactions, statements: PATHS.statements };

/** Outcomes a later run need not redo. Failures are never journaled: a re-run tries them again. */
const SETTLED = new Set(['imported', 'already imported', 'staged']);

/** Journals a settled line of a real run (a dry run writes nothing anywhere), under `journalId` when the item's id is not unique. */
function settle(ctx: StepContext, result: ReportLine, journalId = result.id): ReportLine {
  if (!ctx.dryRun && SETTLED.has(result.outcome)) {
    ctx.journal.record({ step: result.step, id: journalId, outcome: result.outcome, platform_account_number: result.platform_account_number });
  }
  return result;
}

/** The line of an item an earlier run settled, when the journal says so (and it is enough for this run). */
function fromJournal(ctx: StepContext, step: string, id: string, journalId = id): ReportLine | null {
  if (ctx.dryRun) return null;
  const entry = ctx.journal.finished(step, journalId);
  if (!entry) return null;
  // An account only staged by an earlier --stage-only run still has to be processed by a full run.
  if (entry.outcome === 'staged' && !ctx.stageOnly) return null;
  return line(step, id, entry.outcome === 'staged' ? 'staged' : 'already imported', {
    platform_account_number: entry.platform_account_number ?? null,
    detail: `settled by an earlier run (journal: ${entry.outcome})`,
  });
}

/**
 * Sends a write, its body serialised once: the text sent is the text hashed into the Idempotency-Key. A
 * body the command builds has the document's type; an input item goes as read (`asRead`): the service judges it.
 */
const post = <P extends WritePath>(ctx: StepContext, step: string, id: string, path: P, body: Body<P>, computedKey?: string) => {
  const text = 'json' in body ? body.json : JSON.stringify(body.value);
  const key = ctx.dryRun ? undefined : (computedKey ?? idempotencyKey(ctx.supplier, step, id, text));
  return ctx.sender.send((token) => ctx.client.post(path, { json: text }, { token, ...(key ? { idempotencyKey: key } : {}) }));
};

/** An input item's body as read: the line's or file's own text when the input kept it, else its value serialised. */
const asRead = (body: unknown, json?: string): { readonly json: string } => ({ json: json ?? JSON.stringify(body) });

const unreadable = (step: string, item: UnreadableItem): ReportLine =>
  line(step, item.id, 'failed', { error_code: 'unreadable_input', detail: `${item.problem} (${item.source})` });

/** A product, a business or one kind of records: journaled, sent once, and imported unless the answer says it already was. */
async function sendItem<P extends WritePath>(
  ctx: StepContext,
  step: string,
  item: InputItem,
  path: P,
  body: Body<P>,
  unchanged: (body: unknown) => boolean = () => false,
): Promise<ReportLine | null> {
  const done = fromJournal(ctx, step, item.id, item.journalId);
  if (done) return done;
  const outcome = await post(ctx, step, item.id, path, body);
  if (outcome.kind === 'interrupted') return null;
  if (outcome.kind !== 'answer' || !isSuccess(outcome.answer)) return failedLine(step, item.id, outcome);
  const status = outcome.answer.status;
  if (ctx.dryRun) return line(step, item.id, 'validated', { http_status: status });
  return settle(ctx, line(step, item.id, byThisRun(outcome) && !unchanged(outcome.answer.body) ? 'imported' : 'already imported', { http_status: status }), item.journalId);
}

/**
 * Whether this run applied the write it was answered for: a fresh answer, or the replay of a try of this
 * send that may have been applied (its answer lost). A replay on the first try is an earlier run's (or
 * another client's) write under the same Idempotency-Key: already imported.
 */
const byThisRun = (outcome: Extract<Outcome, { kind: 'answer' }>): boolean => !outcome.answer.replayed || outcome.unsure;

export async function migrateProduct(ctx: StepContext, item: ReadItem): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable('products', item);
  return sendItem(ctx, 'products', item, ctx.dryRun ? PATHS.validateProducts : PATHS.products, asRead([item.body]), productUnchanged);
}

export async function migrateBusiness(ctx: StepContext, item: ReadItem): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable('businesses', item);
  if (ctx.dryRun) return line('businesses', item.id, 'skipped', { detail: 'dry run: the service has no way to validate a business without creating it' });
  return sendItem(ctx, 'businesses', item, PATHS.business, asRead(item.body));
}

/** An account as read ahead of the workers (`readAhead`): its staging's Idempotency-Key already computed. */
export interface PreparedAccount {
  readonly item: ReadItem;
  /** The key of its staging request (null: none is sent, or the item is unreadable). */
  readonly stageKey: string | null;
}

/** Hashes the account's body for its staging's Idempotency-Key: the text `migrateAccount` sends. */
export function prepareAccount(ctx: Pick<StepContext, 'supplier' | 'dryRun'>, item: ReadItem): PreparedAccount {
  if (ctx.dryRun || isUnreadable(item)) return { item, stageKey: null };
  return { item, stageKey: idempotencyKey(ctx.supplier, 'stage', item.id, asRead(item.body, item.json).json) };
}

/** Validate (dry run only: staging applies the same rules), stage, then process one account. */
export async function migrateAccount(ctx: StepContext, { item, stageKey }: PreparedAccount): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable('accounts', item);
  const supplierOf = (item.body as Record<string, unknown>)['import_supplier'];
  if (supplierOf !== ctx.supplier) {
    return line('accounts', item.id, 'failed', { error_code: 'import_supplier_mismatch', detail: `import_supplier is ${JSON.stringify(supplierOf)}, not --supplier ${ctx.supplier} (${item.source})` });
  }
  const done = fromJournal(ctx, 'accounts', item.id);
  if (done) return done;
  const known = ctx.scratch.known(item.id);
  if (known) return settle(ctx, line('accounts', item.id, 'already imported', { platform_account_number: known, detail: 'imported before this run (imported list)' }));
  if (ctx.dryRun) return dryRunAccount(ctx, item.id, item.body, item.json, known === null);

  const staged = await post(ctx, 'stage', item.id, PATHS.stage, asRead(item.body, item.json), stageKey ?? undefined);
  if (staged.kind === 'interrupted') return null;
  if (staged.kind === 'answer' && !isSuccess(staged.answer)) {
    const number = platformAccountNumber(staged.answer.body);
    if (number) return settle(ctx, line('accounts', item.id, 'already imported', { platform_account_number: number, http_status: staged.answer.status }));
  }
  if (staged.kind !== 'answer' || !isSuccess(staged.answer)) return withStep(failedLine('accounts', item.id, staged), 'stage');
  if (ctx.stageOnly) return settle(ctx, line('accounts', item.id, 'staged', { http_status: staged.answer.status }));

  const processed = await post(ctx, 'process', item.id, PATHS.process, { value: { external_account_number: item.id, import_supplier_code: ctx.supplier, operations_team_name: ctx.team } });
  if (processed.kind === 'interrupted') return null;
  if (processed.kind === 'answer') {
    const number = platformAccountNumber(processed.answer.body);
    const fresh = isSuccess(processed.answer) && byThisRun(processed);
    if (number) return settle(ctx, line('accounts', item.id, fresh ? 'imported' : 'already imported', { platform_account_number: number, http_status: processed.answer.status }));
  }
  return withStep(failedLine('accounts', item.id, processed), 'process');
}

async function dryRunAccount(ctx: StepContext, id: string, body: unknown, json: string | undefined, staged: boolean): Promise<ReportLine | null> {
  const validated = await post(ctx, 'validate', id, PATHS.validateAccount, asRead(body, json));
  if (validated.kind === 'interrupted') return null;
  if (validated.kind !== 'answer' || !isSuccess(validated.answer)) return withStep(failedLine('accounts', id, validated), 'validate');
  // Processing needs staged data, and staging writes: an account never staged is validated only.
  if (!staged) return line('accounts', id, 'validated', { http_status: validated.answer.status, detail: 'valid; not staged yet, so the process dry run was not made' });
  const processed = await post(ctx, 'process', id, PATHS.process, { value: { external_account_number: id, import_supplier_code: ctx.supplier, operations_team_name: ctx.team, dry_run: true } });
  if (processed.kind === 'interrupted') return null;
  if (processed.kind === 'answer' && isDryRunSuccess(processed.answer)) {
    return line('accounts', id, 'validated', { http_status: processed.answer.status, detail: 'valid; the process dry run would import it (staged data)' });
  }
  return withStep(failedLine('accounts', id, processed), 'process dry run');
}

const withStep = (result: ReportLine, step: string): ReportLine => ({ ...result, detail: `${step}: ${result.detail ?? ''}` });

/** Records and payment instructions of an account that failed in this run are not sent: they would be refused. */
const ofFailedAccount = (ctx: StepContext, step: string, item: InputItem, ext: string): ReportLine | null =>
  ctx.scratch.hasFailed(ext) ? line(step, item.id, 'skipped', { detail: `the account was not imported in this run (${item.source})` }) : null;

/** One kind of records of one account: a records/<EXT>/ file, or a line of records/<kind>.ndjson. */
export async function migrateRecords(ctx: StepContext, kind: RecordKind, item: ReadItem): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable(kind, item);
  return ofFailedAccount(ctx, kind, item, item.id) ?? sendItem(ctx, kind, item, RECORD_PATHS[kind], asRead(item.body, item.json), allAlreadyExisted);
}

/** One payment instruction of an account (spec 4.12): a 500 (the vendor could not answer) is retried as is, a 400 is its answer. */
export async function migratePaymentInstruction(ctx: StepContext, item: ReadItem): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable('payment_instructions', item);
  const ext = (item.body as Record<string, unknown>)['external_account_number'];
  const skipped = typeof ext === 'string' ? ofFailedAccount(ctx, 'payment_instructions', item, ext) : null;
  return skipped ?? sendItem(ctx, 'payment_instructions', item, PATHS.paymentInstruction, asRead(item.body, item.json));
}

export async function migrateBusinessPaymentInstruction(ctx: StepContext, item: ReadItem): Promise<ReportLine | null> {
  if (isUnreadable(item)) return unreadable('business_payment_instructions', item);
  return sendItem(ctx, 'business_payment_instructions', item, PATHS.businessPaymentInstruction, asRead(item.body, item.json));
}
