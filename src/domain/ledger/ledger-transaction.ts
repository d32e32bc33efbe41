import type { LedgerTransaction, LedgerTransactionType } from '../../../events/account-records.js';
import { formatCents } from '../account-records/money.js';
import { assertNever } from '../assert-never.js';
import type { TransactionInput } from './transaction-payload.js';

export function movedDescription(originalDate: string, periodStart: string): string {
  return (
    `Transaction dated ${originalDate} was outside the open statement period and was moved to ${periodStart}, ` +
    'the first day of that period (force_add_to_current_statement).'
  );
}

/** The transaction as the ledger records it; `move` when force_add_to_current_statement moves it into the open period. */
export function ledgerTransaction(input: TransactionInput, move: { readonly to: string } | null = null): LedgerTransaction {
  return {
    transactionId: input.transaction_id,
    type: input.type,
    transactionDate: move ? move.to : input.transaction_date,
    originalTransactionDate: move ? input.transaction_date : null,
    description: move ? movedDescription(input.transaction_date, move.to) : null,
    amountCents: input.amount,
    reason: 'reason' in input ? (input.reason ?? null) : null,
    displayNote: input.display_note ?? null,
    note: input.note ?? null,
    reference: 'reference' in input ? (input.reference ?? null) : null,
    paymentType: 'payment_type' in input ? (input.payment_type ?? null) : null,
    productCode: input.type === 'SUPPLY_CHARGE' ? input.product_code : null,
    supplyPointIdentifier: input.type === 'SUPPLY_CHARGE' ? (input.supply_point_identifier ?? null) : null,
    lineItems:
      input.type === 'SUPPLY_CHARGE'
        ? input.line_items.map((item) => ({
            rateBand: item.rate_band,
            startDate: item.start_date,
            endDate: item.end_date,
            numberOfUnits: item.number_of_units,
            netAmountCents: item.net_amount,
            pricePerUnit: item.price_per_unit ?? null,
            units: item.units ?? null,
          }))
        : null,
    taxItems:
      (input.type === 'SUPPLY_CHARGE' || input.type === 'CHARGE') && input.tax_items
        ? input.tax_items.map((tax) => ({
            amountCents: tax.amount,
            taxType: tax.tax_type,
            valueTaxed: tax.value_taxed,
            rate: tax.rate,
            unitType: tax.unit_type,
          }))
        : null,
  };
}

/** What a transaction does to the balance owed: charges and repayments (money paid back) raise it; credits and payments lower it. */
export function balanceEffectCents(type: LedgerTransactionType, amountCents: number): number {
  switch (type) {
    case 'CHARGE':
    case 'SUPPLY_CHARGE':
    case 'REPAYMENT':
      return amountCents;
    case 'CREDIT':
    case 'PAYMENT':
      return -amountCents;
    default:
      return assertNever(type);
  }
}

/** A JSON object without its null fields: responses show the fields the transaction has. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}

/** `transaction_data` as responses show it (spec 4.10): money as strings with two decimals; a moved one shows its original date. */
export function transactionData(tx: LedgerTransaction): Record<string, unknown> {
  return present({
    transaction_id: tx.transactionId,
    transaction_date: tx.transactionDate,
    amount: formatCents(tx.amountCents),
    type: tx.type,
    reason: tx.reason,
    display_note: tx.displayNote,
    note: tx.note,
    reference: tx.reference,
    payment_type: tx.paymentType,
    product_code: tx.productCode,
    supply_point_identifier: tx.supplyPointIdentifier,
    line_items:
      tx.lineItems?.map((item) =>
        present({
          rate_band: item.rateBand,
          start_date: item.startDate,
          end_date: item.endDate,
          number_of_units: item.numberOfUnits,
          net_amount: formatCents(item.netAmountCents),
          price_per_unit: item.pricePerUnit,
          units: item.units,
        }),
      ) ?? null,
    tax_items:
      tx.taxItems?.map((tax) => ({
        amount: formatCents(tax.amountCents),
        tax_type: tax.taxType,
        value_taxed: tax.valueTaxed,
        rate: tax.rate,
        unit_type: tax.unitType,
      })) ?? null,
    original_transaction_date: tx.originalTransactionDate,
    description: tx.description,
  });
}
