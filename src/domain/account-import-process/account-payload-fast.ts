import { regexes } from 'zod';
import {
  FAIL,
  array,
  boolean,
  int,
  json,
  object,
  oneOf,
  optional,
  passes,
  record,
  requiredText,
  string,
  stringWhere,
  type Check,
} from '../validation/fast-checks.js';
import { checkAgreementContinuity, PAYMENT_INSTRUCTION_TYPES, PAYMENT_MEANS, PAYMENT_SCHEDULE_FREQUENCIES } from './account-payload-supply.js';
import { ENERGY_CHEQUE_SOURCES, ENERGY_CHEQUE_STATUSES, PAYMENT_PREFERENCE_TYPES } from './account-payload-parts.js';
import { checkBusinessFields, checkPaymentPreferences, checkSupplyPointIdentifiersUnique } from './account-payload-rules.js';
import { accountContractsFast } from './account-payload-contracts-fast.js';
import { CONSENT_NAMES, SUPPLY_TYPES, isValidSiret, isValidSupplyPointIdentifier, type SupplyType } from './identifiers.js';
import { MAX_LINE } from './payload-fields.js';
import { isoDate, isoDateTime, money, phoneNumber, postcode } from './payload-fields-fast.js';
import type { AccountPayload } from './account-payload.js';

/**
 * The account payload's schema (account-payload.ts and its parts) written again as plain checks
 * (validation/fast-checks.ts): the same rules, the same output, in a fifth of zod's time. It only
 * says "valid, and here is the data" or "ask zod"; every error still comes from the schema. Keep
 * the two in step: account-payload-fast.property.test.ts compares them on mutated payloads.
 */

const text = string;
const email = stringWhere((value) => value.length <= 254 && regexes.email.test(value));

const customer = object({
  title: optional(text(20)),
  given_name: requiredText(255),
  family_name: requiredText(255),
  email: optional(email),
  mobile: optional(phoneNumber),
  landline: optional(phoneNumber),
  deceased: optional(string()),
  date_of_birth: optional(isoDate),
  customer_preferences: optional(
    object({ opted_into_updates: boolean, opted_into_sms: boolean, opted_into_offers: boolean, opted_into_recommended: boolean }),
  ),
});

const business = object({
  business_type: requiredText(),
  company_name: optional(text(255)),
  siret: stringWhere(isValidSiret),
  business_contract_identifier: optional(requiredText(128)),
  details: optional(array(object({ key: requiredText(), value: string() }))),
});

type Row = Record<string, unknown>;
const inOrder = (from: string, to: string) => (row: Row) => !((row[from] as string) > (row[to] as string));

const statement = object(
  { bill_period_from_date: isoDate, bill_period_to_date: isoDate, statement_path: requiredText(), statement_id: requiredText() },
  inOrder('bill_period_from_date', 'bill_period_to_date'),
);

const energyCheque = object(
  {
    number: requiredText(),
    protection_from: isoDate,
    protection_to: isoDate,
    source: oneOf(ENERGY_CHEQUE_SOURCES),
    asp_remittance_ref: optional(string()),
    amount: int(0),
    valid_to: isoDate,
    status: oneOf(ENERGY_CHEQUE_STATUSES),
  },
  inOrder('protection_from', 'protection_to'),
);

const supplementaryLedger = object({ ledger_code: oneOf(['ENERGY_CHEQUE_LEDGER']), energy_cheques: array(energyCheque) });

const note = object(
  {
    created_at: optional(isoDateTime),
    body: optional(string()),
    document_paths: optional(array(object({ document_path: requiredText() }))),
  },
  (row) => (row['body'] !== undefined && (row['body'] as string).trim() !== '') || ((row['document_paths'] as unknown[] | undefined) ?? []).length > 0,
);

const uniqueBy = (key: string) => (rows: unknown[]) => new Set(rows.map((row) => (row as Row)[key])).size === rows.length;

const campaigns = array(object({ slug: requiredText(), campaign_note: optional(string()) }), 0, uniqueBy('slug'));
const metadata = array(object({ key: requiredText(1024), value: record(json) }), 0, uniqueBy('key'));

const instructionReferenceParams = object({ vendor_name: requiredText(), vendor_reference: requiredText(MAX_LINE) });
const activePreference = (type: string) =>
  object({ type: oneOf([type]), supply_point_identifier: requiredText(), instruction_reference_params: instructionReferenceParams });
const paymentPreferenceBranches: Readonly<Record<string, Check>> = {
  ACTIVE_EXISTING: activePreference('ACTIVE_EXISTING'),
  ACTIVE_NEW: activePreference('ACTIVE_NEW'),
  PASSIVE: object({ type: oneOf(['PASSIVE']), supply_point_identifier: requiredText() }),
};
const preferenceType = oneOf(PAYMENT_PREFERENCE_TYPES);
/** The guard (type; a PASSIVE one carries no instruction_reference_params), then its branch. */
const paymentPreference: Check = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return FAIL;
  const type = (value as Row)['type'];
  if (preferenceType(type) === FAIL) return FAIL;
  if (type === 'PASSIVE' && (value as Row)['instruction_reference_params'] !== undefined) return FAIL;
  return paymentPreferenceBranches[type as string]!(value);
};

const paymentSchedule = object({
  amount: money,
  day_of_month: int(1, 28),
  frequency: oneOf(PAYMENT_SCHEDULE_FREQUENCIES),
  means: oneOf(PAYMENT_MEANS),
  start_date: isoDate,
});

const paymentInstruction = object({
  vendor: requiredText(),
  reference: requiredText(MAX_LINE),
  type: oneOf(PAYMENT_INSTRUCTION_TYPES),
  valid_from: optional(isoDate),
});

const agreement = object({
  tariff_code: requiredText(),
  agreed_at: optional(isoDateTime),
  effective_from: isoDate,
  effective_to: optional(isoDate),
  addons: optional(array(object({ band: requiredText() }))),
});

const supplyPoint = object(
  {
    identifier: string(),
    supply_type: oneOf(SUPPLY_TYPES),
    supply_start_date: isoDate,
    billing_frequency: optional(int(1)),
    payment_schedules: optional(array(paymentSchedule)),
    payment_instructions: optional(array(paymentInstruction)),
    agreements: optional(array(agreement, 0, (rows) => passes(checkAgreementContinuity, rows as Parameters<typeof checkAgreementContinuity>[0]))),
    consent_data: optional(record(boolean)),
  },
  (row) => {
    const type = row['supply_type'] as SupplyType;
    if (!isValidSupplyPointIdentifier(type, row['identifier'] as string)) return false;
    const allowed = CONSENT_NAMES[type];
    return Object.keys((row['consent_data'] as Row | undefined) ?? {}).every((name) => allowed.includes(name));
  },
);

const supplyAddress = object({
  supply_address1: requiredText(MAX_LINE),
  supply_address2: optional(text(MAX_LINE)),
  supply_address3: optional(text(MAX_LINE)),
  supply_address4: optional(text(MAX_LINE)),
  supply_postcode: postcode(false),
  customer_at_supply_address_from_date: isoDate,
  supply_points: array(supplyPoint, 1),
});

type Refinement = (value: never, ctx: never) => void;
const accountRules: readonly Refinement[] = [checkSupplyPointIdentifiersUnique, checkPaymentPreferences, checkBusinessFields];

const account = object(
  {
    external_account_number: requiredText(128),
    import_supplier: requiredText(),
    account_type: optional(oneOf(['DOMESTIC', 'BUSINESS'])),
    business: optional(business),
    unknown_occupier: optional(boolean),
    billing_address1: optional(text(MAX_LINE)),
    billing_address2: optional(text(MAX_LINE)),
    billing_address3: optional(text(MAX_LINE)),
    billing_address4: optional(text(MAX_LINE)),
    billing_postcode: optional(postcode(true)),
    sales_channel: optional(string()),
    sales_subchannel: optional(string()),
    last_billed_to_date: optional(isoDate),
    customers: array(customer, 1),
    supply_addresses: array(supplyAddress, 1),
    statements: optional(array(statement)),
    supplementary_ledgers: optional(array(supplementaryLedger)),
    notes: optional(array(note)),
    account_campaigns: optional(campaigns),
    metadata: optional(metadata),
    account_contracts: optional(accountContractsFast),
    payment_preferences: optional(array(paymentPreference)),
  },
  (row) => accountRules.every((rule) => passes(rule as (value: Row, ctx: unknown) => void, row)),
);

/** The validated payload when it is certainly valid (zod would return the same), else null: ask accountPayloadSchema. */
export function fastAccountPayload(input: unknown): AccountPayload | null {
  const output = account(input);
  return output === FAIL ? null : (output as AccountPayload);
}
