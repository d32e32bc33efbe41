import { and, asc, gt } from 'drizzle-orm';
import { businessPaymentInstructions, type BusinessPaymentInstructionRow } from '../../projections/business-payment-instructions.js';
import { paymentInstructions, type PaymentInstructionRow } from '../../projections/payment-instructions.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { ofAccount } from './account-list-read-models.js';
import { ofBusiness } from './business-read-models.js';

export interface PaymentInstructionReadModels {
  /** The account's vendor-verified payment instructions, oldest first. */
  listPaymentInstructions(importSupplier: string, externalAccountNumber: string): Promise<PaymentInstructionRow[]>;
  /** The business's vendor-verified payment instructions (business-payment-instruction/create/), oldest first. */
  listBusinessPaymentInstructions(importSupplier: string, externalBusinessIdentifier: string): Promise<BusinessPaymentInstructionRow[]>;
  /**
   * At most `limit` of the business's payment instructions, by reference, after `after` (from the first when
   * null): the pages of the business read, so an answer never holds an unbounded list.
   */
  businessPaymentInstructionsPage(importSupplier: string, externalBusinessIdentifier: string, after: string | null, limit: number): Promise<BusinessPaymentInstructionRow[]>;
}

export function createPaymentInstructionReadModels(q: ProjectionQueries): PaymentInstructionReadModels {
  const p = paymentInstructions;
  const b = businessPaymentInstructions;
  return {
    listPaymentInstructions: (importSupplier, externalAccountNumber) =>
      q.list(p, { where: ofAccount(p, importSupplier, externalAccountNumber), orderBy: [asc(p.createdAt), asc(p.reference)] }),
    listBusinessPaymentInstructions: (importSupplier, externalBusinessIdentifier) =>
      q.list(b, { where: ofBusiness(b, importSupplier, externalBusinessIdentifier), orderBy: [asc(b.createdAt), asc(b.reference)] }),
    businessPaymentInstructionsPage: (importSupplier, externalBusinessIdentifier, after, limit) => {
      const ofIt = ofBusiness(b, importSupplier, externalBusinessIdentifier);
      return q.list(b, { where: after === null ? ofIt : and(ofIt, gt(b.reference, after))!, orderBy: [asc(b.reference)], limit });
    },
  };
}
