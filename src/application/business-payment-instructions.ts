import { businessStreamId, type BusinessEvent } from '../../events/business.js';
import type { PaymentVendors } from '../adapters/payment-vendors.js';
import {
  businessPaymentInstructionDecider,
  checkBusinessPaymentInstruction,
  type BusinessPaymentInstructionRequest,
} from '../domain/business/payment-instruction.js';
import { fold } from '../domain/decider.js';
import { supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

/**
 * business-payment-instruction/create/, as payment-instruction/create/ for an account: the rules that need
 * no vendor first (an unknown business, an account not imported, or a repeat never reaches the vendor),
 * then the vendor is asked outside any transaction, then its answer is decided as a fact with the rules
 * checked again, guarded by the supplier stream. Nothing is written unless the answer is a new 201.
 */
export async function createBusinessPaymentInstruction(
  ctx: LedgerContext,
  vendors: PaymentVendors,
  request: BusinessPaymentInstructionRequest,
  actor: Actor,
): Promise<{ readonly created: boolean }> {
  const streamId = businessStreamId(request.importSupplier, request.externalBusinessIdentifier);
  return withRetry(async () => {
    const supplier = await supplierFacts(ctx, request.importSupplier);
    const history = (await ctx.store.readStream(streamId)).map((stored) => stored.event as BusinessEvent);
    const state = fold(businessPaymentInstructionDecider, history);
    const importedAccounts = await importedAccountNumbers(ctx, request.importSupplier, request.accounts);
    const check = checkBusinessPaymentInstruction(request, supplier.status, importedAccounts, state);
    if (check.kind === 'already-recorded') return { created: false };
    const vendorAnswer = await vendors.fetchInstruction(request.vendor, request.reference);
    const result = await handle(
      ctx,
      actor,
      businessPaymentInstructionDecider,
      streamId,
      { type: 'CreateBusinessPaymentInstruction', ...request, supplierStatus: supplier.status, importedAccounts, vendorAnswer },
      { guards: supplier.guards },
    );
    return { created: result.events.length > 0 };
  });
}

/** The platform account number of each named account that is imported in the supplier (at most 1,000 point reads). */
async function importedAccountNumbers(ctx: LedgerContext, importSupplier: string, accounts: readonly string[]): Promise<Map<string, string>> {
  const imported = new Map<string, string>();
  for (const ext of accounts) {
    const row = await ctx.read.findAccountImportProcess(importSupplier, ext);
    if (row?.state === 'IMPORTED' && row.platformAccountNumber) imported.set(ext, row.platformAccountNumber);
  }
  return imported;
}
