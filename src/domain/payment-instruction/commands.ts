import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import type { DomainError } from '../errors.js';

/** What the payment vendor said about an instruction reference: the call is I/O, so its answer arrives as a fact. */
export type VendorAnswer =
  /** The vendor knows the instruction; `details` is its JSON answer as given. */
  | { readonly kind: 'found'; readonly details: Readonly<Record<string, unknown>> }
  /** No base URL is configured for this vendor name: the vendor was not called. */
  | { readonly kind: 'not-configured' }
  /** The vendor answered 4xx: the instruction does not exist or is invalid. Persistent: do not retry. */
  | { readonly kind: 'rejected'; readonly status: number; readonly message: string }
  /** Unreachable, timed out, 5xx (or 408/429), or an answer that is not an instruction: retry as is. */
  | { readonly kind: 'unavailable'; readonly reason: string };

/** The vendor's details of a found instruction; any other answer is refused alike for an account and a business. */
export function foundDetails(
  answer: VendorAnswer,
  vendor: string,
  refuse: (code: DomainError['code'], detail: string, attr?: string) => DomainError,
): Record<string, unknown> {
  switch (answer.kind) {
    case 'found':
      return { ...answer.details };
    case 'not-configured':
      throw refuse('invalid_vendor', `Payment vendor ${vendor} is not configured.`, 'vendor');
    case 'rejected':
      throw refuse('payment_instruction_rejected', answer.message);
    case 'unavailable':
      throw refuse('payment_vendor_unavailable', answer.reason);
  }
}

/** The caller's request (spec 4.12), already parsed. */
export interface PaymentInstructionRequest {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  readonly vendor: string;
  readonly reference: string;
  /** The instruction type (CARD, DIRECT_DEBIT, ...). */
  readonly instructionType: string;
}

/** The facts an account's or a business's payment instruction is decided on. */
export interface VendorFacts {
  /** The supplier's status (guarded by the supplier stream version); null when the supplier is unknown. */
  readonly supplierStatus: ImportSupplierStatus | null;
  /** The vendor's answer for `reference`. */
  readonly vendorAnswer: VendorAnswer;
  readonly now: string;
}

/** Record a vendor-verified payment instruction on an imported account. */
export interface CreatePaymentInstruction extends PaymentInstructionRequest, VendorFacts {
  readonly type: 'CreatePaymentInstruction';
}
