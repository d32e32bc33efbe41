import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { PaymentVendors } from '../adapters/payment-vendors.js';
import type { PaymentInstructionRequest } from '../domain/payment-instruction/commands.js';
import { checkPaymentInstruction, paymentInstructionDecider } from '../domain/payment-instruction/decider.js';
import { fold } from '../domain/decider.js';
import { supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export interface CreatePaymentInstructionResult {
  readonly platformAccountNumber: string;
  readonly reference: string;
  /** False when the reference was already recorded on the account (nothing appended, the vendor not asked). */
  readonly created: boolean;
}

/**
 * Spec 4.12. The rules that need no vendor first, so an unknown account (or a repeat) never reaches the
 * vendor; then the vendor is asked outside any transaction; then its answer is decided as a fact with the
 * rules checked again, guarded by the supplier stream. A vendor unavailable or refusing leaves nothing written.
 */
export async function createPaymentInstruction(
  ctx: LedgerContext,
  vendors: PaymentVendors,
  request: PaymentInstructionRequest,
  actor: Actor,
): Promise<CreatePaymentInstructionResult> {
  const streamId = accountImportProcessStreamId(request.importSupplier, request.externalAccountNumber);
  return withRetry(async () => {
    const supplier = await supplierFacts(ctx, request.importSupplier);
    const history = await ctx.store.readStream(streamId);
    const state = fold(paymentInstructionDecider, history.map((stored) => stored.event));
    const check = checkPaymentInstruction(request, supplier.status, state);
    if (check.kind === 'already-recorded') {
      return { platformAccountNumber: check.platformAccountNumber, reference: request.reference, created: false };
    }
    const vendorAnswer = await vendors.fetchInstruction(request.vendor, request.reference);
    const result = await handle(
      ctx,
      actor,
      paymentInstructionDecider,
      streamId,
      { type: 'CreatePaymentInstruction', ...request, supplierStatus: supplier.status, vendorAnswer },
      { guards: supplier.guards },
    );
    const platformAccountNumber = result.state.status === 'imported' ? result.state.platformAccountNumber : '';
    return { platformAccountNumber, reference: request.reference, created: result.events.length > 0 };
  });
}
