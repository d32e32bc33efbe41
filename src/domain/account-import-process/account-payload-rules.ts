import type { core } from 'zod';
import { addDomainIssue } from './payload-fields.js';

/**
 * Account-level rules that relate fields in different parts of the payload. Each one is
 * attached to the top-level schema with a `whenClean` guard over the fields it reads, so it
 * still runs (and its errors join the others) when unrelated parts of the payload failed.
 */

type Ctx = core.$RefinementCtx<unknown>;

interface SupplyPointRef {
  readonly identifier: string;
  readonly payment_instructions?: readonly { readonly vendor: string; readonly reference: string }[] | undefined;
}

interface SupplyAddressesPart {
  readonly supply_addresses: readonly { readonly supply_points: readonly SupplyPointRef[] }[];
}

/**
 * A supply point identifier appears once in the whole payload. The later occurrence is
 * reported, with the platform's code for a repeat within one address or across addresses.
 */
export function checkSupplyPointIdentifiersUnique(account: SupplyAddressesPart, ctx: Ctx): void {
  const addressesByIdentifier = new Map<string, Set<number>>();
  account.supply_addresses.forEach((address, a) => {
    address.supply_points.forEach((point, p) => {
      const seenIn = addressesByIdentifier.get(point.identifier) ?? new Set<number>();
      const path = ['supply_addresses', a, 'supply_points', p, 'identifier'];
      if (seenIn.has(a)) {
        addDomainIssue(ctx, 'duplicate_meter_points_provided', `Supply point ${point.identifier} is repeated in this supply address.`, path);
      } else if (seenIn.size > 0) {
        addDomainIssue(
          ctx,
          'duplicate_meter_points_on_different_supply_addresses_provided',
          `Supply point ${point.identifier} already appears under another supply address.`,
          path,
        );
      }
      addressesByIdentifier.set(point.identifier, seenIn.add(a));
    });
  });
}

interface PaymentPreferencesPart extends SupplyAddressesPart {
  readonly payment_preferences?:
    | readonly {
        readonly type: 'ACTIVE_EXISTING' | 'ACTIVE_NEW' | 'PASSIVE';
        readonly supply_point_identifier: string;
        readonly instruction_reference_params?: { readonly vendor_name: string; readonly vendor_reference: string } | undefined;
      }[]
    | undefined;
}

/**
 * Each payment preference names a supply point of this payload, at most one preference per
 * supply point, and an ACTIVE_NEW preference names one of that supply point's payment
 * instructions (vendor and reference).
 */
export function checkPaymentPreferences(account: PaymentPreferencesPart, ctx: Ctx): void {
  const points = new Map<string, SupplyPointRef>();
  for (const address of account.supply_addresses) {
    for (const point of address.supply_points) if (!points.has(point.identifier)) points.set(point.identifier, point);
  }
  const preferred = new Set<string>();
  (account.payment_preferences ?? []).forEach((preference, i) => {
    const base = ['payment_preferences', i];
    const point = points.get(preference.supply_point_identifier);
    if (point === undefined) {
      addDomainIssue(
        ctx,
        'payment_preference_supply_point_not_found',
        `No supply point ${preference.supply_point_identifier} in this payload.`,
        [...base, 'supply_point_identifier'],
      );
      return;
    }
    if (preferred.has(point.identifier)) {
      addDomainIssue(
        ctx,
        'duplicate_supply_point_in_payment_preferences',
        `Supply point ${point.identifier} already has a payment preference.`,
        [...base, 'supply_point_identifier'],
      );
    }
    preferred.add(point.identifier);
    const params = preference.instruction_reference_params;
    if (preference.type !== 'ACTIVE_NEW' || params === undefined) return;
    const matches = (point.payment_instructions ?? []).some(
      (instruction) => instruction.vendor === params.vendor_name && instruction.reference === params.vendor_reference,
    );
    if (!matches) {
      addDomainIssue(
        ctx,
        'active_new_payment_preference_invalid_instruction_identifier',
        `No payment instruction of supply point ${point.identifier} has vendor ${params.vendor_name} and reference ${params.vendor_reference}.`,
        [...base, 'instruction_reference_params'],
      );
    }
  });
}

interface BusinessPart {
  readonly account_type?: 'DOMESTIC' | 'BUSINESS' | undefined;
  readonly business?: unknown;
  readonly account_contracts?: unknown;
}

const BUSINESS_ONLY_FIELDS = ['business', 'account_contracts'] as const;

/** A BUSINESS account needs `business`; a domestic one (absent or DOMESTIC) has no business-only field. */
export function checkBusinessFields(account: BusinessPart, ctx: Ctx): void {
  if (account.account_type === 'BUSINESS') {
    if (account.business === undefined) {
      addDomainIssue(ctx, 'business_field_required', 'A BUSINESS account needs the business object.', ['business']);
    }
    return;
  }
  for (const field of BUSINESS_ONLY_FIELDS) {
    if (account[field] !== undefined) {
      addDomainIssue(ctx, 'business_fields_provided_for_domestic_accounts', `${field} is only for BUSINESS accounts.`, [field]);
    }
  }
}
