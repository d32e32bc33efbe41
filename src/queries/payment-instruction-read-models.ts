import { and, asc, eq } from 'drizzle-orm';
import { paymentInstructions, type PaymentInstructionRow } from '../../projections/payment-instructions.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** Queries over the payment instructions projection. */
export interface PaymentInstructionReadModels {
  /** The account's vendor-verified payment instructions, oldest first. */
  listPaymentInstructions(importSupplier: string, externalAccountNumber: string): Promise<PaymentInstructionRow[]>;
}

export function createPaymentInstructionReadModels(q: ProjectionQueries): PaymentInstructionReadModels {
  const p = paymentInstructions;
  return {
    listPaymentInstructions: (importSupplier, externalAccountNumber) =>
      q.list(p, {
        where: and(eq(p.importSupplier, importSupplier), eq(p.externalAccountNumber, externalAccountNumber)),
        orderBy: [asc(p.createdAt), asc(p.reference)],
      }),
  };
}
