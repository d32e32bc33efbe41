import { describe, expect, it } from 'vitest';
import { isValidSiret, isValidSupplyPointIdentifier } from '../../../src/domain/account-import-process/identifiers.js';

describe('isValidSiret', () => {
  it.each(['44306184100047', '73282932000074', '35600000000048', '35600000049837'])('accepts %s', (siret) => {
    expect(isValidSiret(siret)).toBe(true);
  });

  it.each(['44306184100048', '4430618410004', '443061841000470', '4430618410004A', '35600000049838', ''])('rejects %s', (siret) => {
    expect(isValidSiret(siret)).toBe(false);
  });
});

describe('isValidSupplyPointIdentifier', () => {
  it('ELECTRICITY: exactly 14 digits', () => {
    expect(isValidSupplyPointIdentifier('ELECTRICITY', '09111642617347')).toBe(true);
    expect(isValidSupplyPointIdentifier('ELECTRICITY', 'GI123456')).toBe(false);
    expect(isValidSupplyPointIdentifier('ELECTRICITY', '091116426173470')).toBe(false);
  });

  it('GAS: 14 digits or GI + 6 digits', () => {
    expect(isValidSupplyPointIdentifier('GAS', '21461231498752')).toBe(true);
    expect(isValidSupplyPointIdentifier('GAS', 'GI123456')).toBe(true);
    expect(isValidSupplyPointIdentifier('GAS', 'GI1234567')).toBe(false);
  });
});
