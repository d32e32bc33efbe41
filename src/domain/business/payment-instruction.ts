import type { BusinessEvent, BusinessPaymentInstructionCreated } from '../../../events/business.js';
import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError, type DomainErrorOptions, type FieldError } from '../errors.js';
import { foundDetails, type PaymentInstructionRequest, type VendorFacts } from '../payment-instruction/commands.js';
import { businessNotFound } from './decider.js';

/**
 * A payment instruction of a business (business-payment-instruction/create/), decided over the business's
 * stream and checked with the payment vendor as an account's are (spec 4.12): the vendor's answer is a fact.
 */
export interface BusinessPaymentInstructionRequest extends Omit<PaymentInstructionRequest, 'externalAccountNumber'> {
  readonly externalBusinessIdentifier: string;
  readonly validFrom: string | null;
  /** The external account numbers the instruction is for (distinct; may be empty). */
  readonly accounts: readonly string[];
}

export interface CreateBusinessPaymentInstruction extends BusinessPaymentInstructionRequest, VendorFacts {
  readonly type: 'CreateBusinessPaymentInstruction';
  /** Fact: the platform account number of each named account imported in the supplier (it stays imported). */
  readonly importedAccounts: ReadonlyMap<string, string>;
}

export type BusinessPaymentInstructionState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly references: ReadonlySet<string> };

function evolve(state: BusinessPaymentInstructionState, event: BusinessEvent): BusinessPaymentInstructionState {
  switch (event.type) {
    case 'BusinessCreated':
      return { status: 'created', references: new Set() };
    case 'BusinessPaymentInstructionCreated':
      if (state.status !== 'created') return state;
      return { ...state, references: new Set([...state.references, event.data.reference]) };
    case 'BusinessContractAdded':
      return state;
    default:
      return assertNever(event);
  }
}

/** The four body fields of the platform's CreateBusinessPaymentInstructionError, beside spec 7's. */
function errorExtra(request: BusinessPaymentInstructionRequest, errorDetail: string) {
  return {
    error_detail: errorDetail,
    external_business_identifier: request.externalBusinessIdentifier,
    import_supplier_code: request.importSupplier,
    reference: request.reference,
  };
}

function refusal(code: DomainError['code'], request: BusinessPaymentInstructionRequest, detail: string, options: DomainErrorOptions = {}): DomainError {
  return new DomainError(code, detail, { ...options, extra: errorExtra(request, detail) });
}

/**
 * The rules that need no vendor, in order: the business exists (404 business_not_found), its supplier is
 * Ongoing, a reference already recorded is success with nothing to add (`already-recorded`), and every named
 * account is imported in the supplier (400 account_not_found, one item each). The application runs it before
 * asking the vendor, so a refused request never reaches it; the decider runs it again in the transaction.
 */
export function checkBusinessPaymentInstruction(
  request: BusinessPaymentInstructionRequest,
  supplierStatus: ImportSupplierStatus | null,
  importedAccounts: ReadonlyMap<string, string>,
  state: BusinessPaymentInstructionState,
): { readonly kind: 'new' | 'already-recorded' } {
  if (state.status !== 'created' || supplierStatus === null) {
    const detail = `No business ${request.externalBusinessIdentifier} for import supplier ${request.importSupplier}.`;
    throw businessNotFound(request.importSupplier, request.externalBusinessIdentifier, errorExtra(request, detail));
  }
  if (supplierStatus !== 'Ongoing') {
    throw refusal('import_supplier_migration_not_ongoing', request, `The migration for import supplier ${request.importSupplier} is ${supplierStatus}, not Ongoing.`);
  }
  if (state.references.has(request.reference)) return { kind: 'already-recorded' };
  const missing: FieldError[] = request.accounts.flatMap((ext, i) =>
    importedAccounts.has(ext)
      ? []
      : [{ detail: `No imported account ${ext} for import supplier ${request.importSupplier}.`, code: 'account_not_found', attr: `accounts.${i}.external_account_number` }],
  );
  if (missing.length > 0) {
    const detail = missing.length === 1 ? (missing[0]?.detail ?? '') : `${missing.length} of the accounts are not imported accounts of ${request.importSupplier}.`;
    throw refusal('account_not_found', request, detail, { errors: missing });
  }
  return { kind: 'new' };
}

function decide(command: CreateBusinessPaymentInstruction, state: BusinessPaymentInstructionState): BusinessPaymentInstructionCreated[] {
  const check = checkBusinessPaymentInstruction(command, command.supplierStatus, command.importedAccounts, state);
  if (check.kind === 'already-recorded') return [];
  const vendorDetails = foundDetails(command.vendorAnswer, command.vendor, (code, detail, attr) => refusal(code, command, detail, { attr }));
  return [
    {
      type: 'BusinessPaymentInstructionCreated',
      version: 1,
      data: {
        importSupplier: command.importSupplier,
        externalBusinessIdentifier: command.externalBusinessIdentifier,
        vendor: command.vendor,
        reference: command.reference,
        type: command.instructionType,
        validFrom: command.validFrom,
        accounts: command.accounts.map((ext) => ({ externalAccountNumber: ext, platformAccountNumber: command.importedAccounts.get(ext) ?? '' })),
        vendorDetails,
        createdAt: command.now,
      },
    },
  ];
}

export const businessPaymentInstructionDecider: Decider<
  CreateBusinessPaymentInstruction,
  BusinessEvent,
  BusinessPaymentInstructionCreated,
  BusinessPaymentInstructionState
> = {
  decide,
  evolve,
  initialState: { status: 'none' },
};
