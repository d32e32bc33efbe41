import { and, asc, eq } from 'drizzle-orm';
import { paymentInstructions, type PaymentInstructionRow } from '../../projections/payment-instructions.js';
import type { LedgerDb } from '../store/database.js';

/** Queries over the payment instructions projection. */
export interface PaymentInstructionReadModels {
  /** The account's vendor-verified payment instructions, oldest first. */
  listPaymentInstructions(importSupplier: string, externalAccountNumber: string): Promise<PaymentInstructionRow[]>;
}

export function createSqlitePaymentInstructionReadModels(db: LedgerDb): PaymentInstructionReadModels {
  const p = paymentInstructions;
  return {
    async listPaymentInstructions(importSupplier, externalAccountNumber) {
      return db
        .select()
        .from(p)
        .where(and(eq(p.importSupplier, importSupplier), eq(p.externalAccountNumber, externalAccountNumber)))
        .orderBy(asc(p.createdAt), asc(p.reference))
        .all();
    },
  };
}
