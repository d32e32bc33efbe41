import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import type { PaymentInstructionCreated } from '../../../events/payment-instruction.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { ownedEvolution, type Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { foundDetails, type CreatePaymentInstruction, type PaymentInstructionRequest } from './commands.js';

/** Payment instructions of one account (spec 4.12): whether it was processed (its number), and the references recorded. */
export type PaymentInstructionState =
  | { readonly status: 'not-imported' }
  | { readonly status: 'imported'; readonly platformAccountNumber: string; readonly references: ReadonlySet<string> };

/** The state a fold owns (see `ownedEvolution`): its references may be added to in place. */
type OwnedPaymentInstructionState =
  | { readonly status: 'not-imported' }
  | { readonly status: 'imported'; readonly platformAccountNumber: string; readonly references: Set<string> };

const own = (state: PaymentInstructionState): OwnedPaymentInstructionState =>
  state.status === 'imported' ? { ...state, references: new Set(state.references) } : state;

function step(state: OwnedPaymentInstructionState, event: LedgerEvent): OwnedPaymentInstructionState {
  switch (event.type) {
    case 'AccountProcessed':
      return { status: 'imported', platformAccountNumber: event.data.platformAccountNumber, references: new Set() };
    case 'PaymentInstructionCreated':
      if (state.status === 'imported') state.references.add(event.data.reference);
      return state;
    default:
      // Every other event of the account stream leaves the payment instructions as they are.
      return state;
  }
}

const paymentInstructionEvolution = ownedEvolution<PaymentInstructionState, LedgerEvent, OwnedPaymentInstructionState>({
  own,
  step,
  folds: (event) => event.type === 'AccountProcessed' || event.type === 'PaymentInstructionCreated',
});

/** An error carrying the four body fields of the platform's CreatePaymentInstructionError too (platform reference 5.2). */
function vendorError(code: DomainError['code'], request: PaymentInstructionRequest, detail: string, attr?: string): DomainError {
  const { externalAccountNumber, importSupplier, reference } = request;
  const extra = { error_detail: detail, external_account_number: externalAccountNumber, import_supplier: importSupplier, reference };
  return new DomainError(code, detail, { attr, extra });
}

export type PaymentInstructionCheck =
  | { readonly kind: 'new' }
  /** The reference is already recorded on the account: the request succeeds and nothing is appended. */
  | { readonly kind: 'already-recorded'; readonly platformAccountNumber: string };

/**
 * The rules that need no vendor, in order: the account is imported (else `account_not_found`, also for a
 * staged-only account or a wrong supplier), its supplier Ongoing, and a reference already recorded is success
 * with nothing to add. The application runs it before calling the vendor, so a refused request never reaches
 * it; the decider runs it again in the transaction.
 */
export function checkPaymentInstruction(
  request: PaymentInstructionRequest,
  supplierStatus: ImportSupplierStatus | null,
  state: PaymentInstructionState,
): PaymentInstructionCheck {
  const { externalAccountNumber: ext, importSupplier: supplier } = request;
  if (state.status !== 'imported' || supplierStatus === null) {
    throw vendorError('account_not_found', request, `No imported account ${ext} for import supplier ${supplier}.`);
  }
  if (supplierStatus !== 'Ongoing') {
    throw vendorError('import_supplier_migration_not_ongoing', request, `The migration for import supplier ${supplier} is ${supplierStatus}, not Ongoing.`);
  }
  if (state.references.has(request.reference)) {
    return { kind: 'already-recorded', platformAccountNumber: state.platformAccountNumber };
  }
  return { kind: 'new' };
}

function decide(command: CreatePaymentInstruction, state: PaymentInstructionState): PaymentInstructionCreated[] {
  const check = checkPaymentInstruction(command, command.supplierStatus, state);
  if (check.kind === 'already-recorded' || state.status !== 'imported') return [];
  const vendorDetails = foundDetails(command.vendorAnswer, command.vendor, (code, detail, attr) => vendorError(code, command, detail, attr));
  return [
    {
      type: 'PaymentInstructionCreated',
      version: 1,
      data: {
        importSupplier: command.importSupplier,
        externalAccountNumber: command.externalAccountNumber,
        platformAccountNumber: state.platformAccountNumber,
        vendor: command.vendor,
        reference: command.reference,
        type: command.instructionType,
        vendorDetails,
        createdAt: command.now,
      },
    },
  ];
}

export const paymentInstructionDecider: Decider<CreatePaymentInstruction, LedgerEvent, PaymentInstructionCreated, PaymentInstructionState> = {
  decide,
  ...paymentInstructionEvolution,
  initialState: { status: 'not-imported' },
};
