import { businessPaymentInstructionReadSchema, type BusinessPaymentInstructionRead } from '../answers/payment-instructions.js';
import type { BusinessAnswer } from './api-client.js';
import { MigrationAborted, answered, pool } from './folder-run.js';
import { isUnreadable } from './input.js';
import type { CatalogueContext } from './verify-catalogue.js';
import { compareOwnedRecords, type RecordForm } from './verify-records.js';
import type { VerifyScratch } from './verify-scratch.js';
import { array, isObject, text, type Json } from './verify-source.js';

/**
 * The business payment instructions of businesses/payment-instructions.ndjson compared with the service's,
 * per business, as an account's payment instructions are (verify-records.ts): by reference, on the facts
 * the create body sends (vendor, type, valid_from, accounts). The compared businesses are those the file
 * names and those of businesses/: an instruction the service holds that the folder does not list is extra.
 *
 * The file is read once, a line at a time, each line to the scratch file under its business; the businesses
 * are then read back one at a time, each with the business read's pages of its instructions, so memory
 * holds one business's instructions per worker, whatever the file's size.
 */
type Compared = BusinessPaymentInstructionRead;

/** An instruction in the read's shape, its accounts in number order: the same accounts named in another order are the same fact. */
export function comparedBusinessInstruction(instruction: Compared): Compared {
  const accounts = [...instruction.accounts].sort((a, b) => (a.external_account_number < b.external_account_number ? -1 : a.external_account_number > b.external_account_number ? 1 : 0));
  return { reference: instruction.reference, vendor: instruction.vendor, type: instruction.type, valid_from: instruction.valid_from, accounts };
}

/** A line of the file, as sent, in the compared form (no `valid_from` or `accounts`: recorded as null and none). */
export function sourceBusinessInstruction(body: Json): Compared {
  return comparedBusinessInstruction({
    reference: text(body['reference']),
    vendor: text(body['vendor']),
    type: text(body['type']),
    valid_from: body['valid_from'] === undefined || body['valid_from'] === null ? null : text(body['valid_from']),
    accounts: array(body['accounts']).map((account) => ({ external_account_number: text(isObject(account) ? account['external_account_number'] : account) })),
  });
}

const form: RecordForm<Compared> = {
  group: (record) => record.reference,
  name: (record) => record.reference,
  line: (record) => JSON.stringify([record.reference, record.vendor, record.type, record.valid_from, record.accounts.map((a) => a.external_account_number)]),
};

/** The file's lines and the businesses of businesses/, into the scratch file by business. */
async function readLines(ctx: CatalogueContext, scratch: VerifyScratch): Promise<void> {
  for (const item of ctx.input.businesses() ?? []) {
    if (!isUnreadable(item) && isObject(item.body) && item.body['import_supplier_code'] === ctx.supplier) scratch.addBusinessLine(item.id, null);
  }
  if (!ctx.input.businessPaymentInstructionsFile()) return;
  const p = ctx.progress.begin('read business payment instructions', null);
  for await (const item of ctx.input.businessPaymentInstructionLines(ctx.supplier)) {
    if (ctx.stopped()) throw new MigrationAborted('interrupted', false);
    p.done++;
    if (isUnreadable(item)) {
      ctx.report.add({ kind: 'business_payment_instructions', item: item.id, difference: 'different', field: 'source', source: `${item.problem} (${item.source})`, service: null });
      p.failed++;
      continue;
    }
    const body = item.body as Json;
    if (body['import_supplier_code'] !== ctx.supplier) continue; // migrate's request would be refused: not this supplier's
    scratch.addBusinessLine(body['external_business_identifier'] as string, JSON.stringify(sourceBusinessInstruction(body)));
  }
  ctx.progress.end(p);
}

/** Every payment instruction the service holds for a business, page by page; null when it holds no such business. */
async function serviceInstructions(ctx: CatalogueContext, business: string): Promise<Compared[] | null> {
  const held: Compared[] = [];
  let after: string | undefined;
  for (;;) {
    const page = after;
    const answer = answered<BusinessAnswer>(await ctx.sender.send((token) => ctx.client.readBusiness(ctx.supplier, business, token, page)), `reading business ${business}`);
    if (answer.status === 404 && page === undefined) return null;
    if (answer.status !== 200) throw new MigrationAborted(`reading business ${business} answered ${answer.status}`, false);
    const body = answer.body as { payment_instructions: unknown[]; payment_instructions_next: string | null };
    held.push(...body.payment_instructions.map((instruction) => comparedBusinessInstruction(businessPaymentInstructionReadSchema.parse(instruction))));
    if (body.payment_instructions_next === null) return held;
    const next = new URL(body.payment_instructions_next, 'http://service').searchParams.get('payment_instructions_after');
    if (next === null || next === page) throw new MigrationAborted(`reading business ${business}: payment_instructions_next ${body.payment_instructions_next} names no further page`, false);
    after = next;
  }
}

export async function verifyBusinessPaymentInstructions(ctx: CatalogueContext, scratch: VerifyScratch): Promise<void> {
  try {
    await readLines(ctx, scratch);
  } finally {
    scratch.businessLinesRead();
  }
  const p = ctx.progress.begin('business payment instructions', null);
  await pool(scratch.businesses(), ctx.concurrency, ctx.stopped, async (business) => {
    const ours = scratch.businessLinesOf(business).map((line) => JSON.parse(line) as Compared);
    // A business the service does not hold: each of its instructions is missing (the business itself is reported by verifyBusinesses).
    const theirs = (await serviceInstructions(ctx, business)) ?? [];
    const before = ctx.report.differences;
    compareOwnedRecords(ctx.report, 'business_payment_instructions', business, form, ours, theirs);
    p.done++;
    if (ctx.report.differences > before) p.failed++;
  });
  ctx.progress.end(p);
}
