import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import type { PaymentInstructionCreated } from '../../../events/payment-instruction.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { ownedEvolution, type Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { foundDetails, type CreatePaymentInstruction, type PaymentInstructionRequest } from './commands.js';

/**
 * Payment instructions of one account (spec 4.12), decided over the account's
 * stream. It folds only what it needs: whether the account was processed
 * (and its platform number), and the references already recorded.
 */
export type PaymentInstructionState =
  | { readonly status: 'not-imported' }
  | { readonly status: 'imported'; readonly platformAccountNumber: string; readonly references: ReadonlySet<string> };

export const initialPaymentInstructionState: PaymentInstructionState = { status: 'not-imported' };

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

/** The four body fields the platform's payment-instruction errors carry besides spec 7's (platform reference 5.2). */
export function paymentInstructionErrorExtra(request: PaymentInstructionRequest, errorDetail: string) {
  return {
    error_detail: errorDetail,
    external_account_number: request.externalAccountNumber,
    import_supplier: request.importSupplier,
    reference: request.reference,
  };
}

function vendorError(code: DomainError['code'], request: PaymentInstructionRequest, detail: string, attr?: string): DomainError {
  return new DomainError(code, detail, { attr, extra: paymentInstructionErrorExtra(request, detail) });
}

export type PaymentInstructionCheck =
  | { readonly kind: 'new' }
  /** The reference is already recorded on the account: the request succeeds and nothing is appended. */
  | { readonly kind: 'already-recorded'; readonly platformAccountNumber: string };

/**
 * The rules that do not need the vendor's answer, in order: the account must
 * be imported (`account_not_found`, also for a staged-only account or a
 * wrong supplier code), its supplier Ongoing, and a reference already
 * recorded is success with nothing to add. The application runs it before
 * calling the vendor, so a request refused here never reaches the vendor; the
 * decider runs it again inside the transaction.
 */
export function checkPaymentInstruction(
  request: PaymentInstructionRequest,
  supplierStatus: ImportSupplierStatus | null,
  state: PaymentInstructionState,
): PaymentInstructionCheck {
  // Both carry the platform's CreatePaymentInstructionError fields too: its validators name these two codes.
  if (state.status !== 'imported' || supplierStatus === null) {
    throw vendorError(
      'account_not_found',
      request,
      `No imported account ${request.externalAccountNumber} for import supplier ${request.importSupplier}.`,
    );
  }
  if (supplierStatus !== 'Ongoing') {
    throw vendorError(
      'import_supplier_migration_not_ongoing',
      request,
      `The migration for import supplier ${request.importSupplier} is ${supplierStatus}, not Ongoing.`,
    );
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
  initialState: initialPaymentInstructionState,
};
