import type { AccountRecordsImported, ImportedSupplyPointRecords } from '../../../events/staged-account-records.js';
import type { AccountPayload } from '../account-import-process/account-payload.js';
import type { SupplyPoint } from '../account-import-process/account-payload-supply.js';
import type { ProcessedAccountRef } from '../customer-email/welcome-emails.js';
import { decimalString } from '../product/decimal.js';

/** A validated amount in major units (at most two decimals) as cents, read from its decimal text, not multiplied. */
export function majorToCents(amount: number): number {
  const [whole = '0', fraction = ''] = decimalString(amount).split('.');
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return amount < 0 ? -cents : cents;
}

function supplyPointRecords(point: SupplyPoint): ImportedSupplyPointRecords | null {
  const records: ImportedSupplyPointRecords = {
    identifier: point.identifier,
    supplyType: point.supply_type,
    paymentSchedules: (point.payment_schedules ?? []).map((schedule) => ({
      amountCents: majorToCents(schedule.amount),
      dayOfMonth: schedule.day_of_month,
      frequency: schedule.frequency,
      means: schedule.means,
      startDate: schedule.start_date,
    })),
    paymentInstructions: (point.payment_instructions ?? []).map((instruction) => ({
      vendor: instruction.vendor,
      reference: instruction.reference,
      type: instruction.type,
      validFrom: instruction.valid_from ?? null,
    })),
    agreements: (point.agreements ?? []).map((agreement) => ({
      tariffCode: agreement.tariff_code,
      agreedAt: agreement.agreed_at ?? null,
      effectiveFrom: agreement.effective_from,
      effectiveTo: agreement.effective_to ?? null,
      addonBands: (agreement.addons ?? []).map((addon) => addon.band),
    })),
    consents: { ...(point.consent_data ?? {}) },
  };
  const count = records.paymentSchedules.length + records.paymentInstructions.length + records.agreements.length + Object.keys(records.consents).length;
  return count === 0 ? null : records;
}

/** The staged payload's records that the account keeps when processed: one AccountRecordsImported, or none. */
export function accountRecordsImported(account: ProcessedAccountRef, payload: AccountPayload): AccountRecordsImported[] {
  const supplyPoints = payload.supply_addresses
    .flatMap((address) => address.supply_points)
    .map(supplyPointRecords)
    .filter((records): records is ImportedSupplyPointRecords => records !== null);
  const campaigns = (payload.account_campaigns ?? []).map((campaign) => ({
    slug: campaign.slug,
    campaignNote: campaign.campaign_note ?? null,
  }));
  const metadata = (payload.metadata ?? []).map((entry) => ({ key: entry.key, value: entry.value }));
  const supplementaryLedgers = (payload.supplementary_ledgers ?? []).map((ledger) => ({
    ledgerCode: ledger.ledger_code,
    energyCheques: ledger.energy_cheques.map((cheque) => ({
      number: cheque.number,
      protectionFrom: cheque.protection_from,
      protectionTo: cheque.protection_to,
      source: cheque.source,
      aspRemittanceRef: cheque.asp_remittance_ref ?? null,
      amountCents: cheque.amount * 100,
      validTo: cheque.valid_to,
      status: cheque.status,
    })),
  }));
  if (supplyPoints.length + campaigns.length + metadata.length + supplementaryLedgers.length === 0) return [];
  return [
    {
      type: 'AccountRecordsImported',
      version: 1,
      data: {
        importSupplier: account.importSupplier,
        externalAccountNumber: account.externalAccountNumber,
        platformAccountNumber: account.platformAccountNumber,
        supplyPoints,
        campaigns,
        metadata,
        supplementaryLedgers,
        importedAt: account.now,
      },
    },
  ];
}
