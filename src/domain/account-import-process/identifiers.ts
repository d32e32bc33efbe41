export { isValidPhone } from './phone-numbers.js';

/** Supply types whose identifier formats we know (spec 2.2 lists ELECTRICITY and GAS). */
export const SUPPLY_TYPES = ['ELECTRICITY', 'GAS'] as const;
export type SupplyType = (typeof SUPPLY_TYPES)[number];

export const PRM = /^\d{14}$/;
export const PCE = /^(?:\d{14}|GI\d{6})$/;

/**
 * Electricity PRM (point de référence mesure): exactly 14 digits.
 * Gas PCE (point de comptage et d'estimation): 14 digits, or `GI` followed by 6 digits.
 */
export function isValidSupplyPointIdentifier(supplyType: SupplyType, identifier: string): boolean {
  return supplyType === 'ELECTRICITY' ? PRM.test(identifier) : PCE.test(identifier);
}

/** Which consent names a supply type accepts in `consent_data`. */
export const CONSENT_NAMES: Readonly<Record<SupplyType, readonly string[]>> = {
  ELECTRICITY: ['ELEC_CURVES', 'ELEC_INDEXES'],
  GAS: ['GAS_INDEXES'],
};

/** What a SIRET looks like before its check digit is looked at. */
export const SIRET_FORM = /^\d{14}$/;

// La Poste establishments share one SIREN and are numbered outside the Luhn scheme (INSEE rule).
const LA_POSTE_SIREN = '356000000';

/**
 * SIRET: 14 digits passing the Luhn check; La Poste's establishments (SIREN 356000000)
 * instead need the sum of their digits to be a multiple of 5.
 */
export function isValidSiret(siret: string): boolean {
  if (!SIRET_FORM.test(siret)) return false;
  const digits = [...siret].map(Number);
  if (siret.startsWith(LA_POSTE_SIREN) && siret !== '35600000000048') {
    return digits.reduce((sum, d) => sum + d, 0) % 5 === 0;
  }
  return luhnSum(digits) % 10 === 0;
}

function luhnSum(digits: readonly number[]): number {
  return digits.reduceRight((sum, digit, index) => {
    const fromRight = digits.length - 1 - index;
    if (fromRight % 2 === 0) return sum + digit;
    const doubled = digit * 2;
    return sum + (doubled > 9 ? doubled - 9 : doubled);
  }, 0);
}

/** French postcode: exactly five digits. */
export const FRENCH_POSTCODE = /^\d{5}$/;

export function isFrenchPostcode(value: string): boolean {
  return FRENCH_POSTCODE.test(value);
}
