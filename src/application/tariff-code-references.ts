import type { ProductMarket } from '../../events/product.js';
import type { SupplyType } from '../domain/account-import-process/identifiers.js';
import type { FieldError } from '../domain/errors.js';
import type { AccountReferenceCheck } from './account-reference-check.js';

/** The product market that serves each supply type. */
export const MARKET_OF_SUPPLY_TYPE: Readonly<Record<SupplyType, ProductMarket>> = {
  ELECTRICITY: 'FRA_ELECTRICITY',
  GAS: 'FRA_GAS',
};

/**
 * Every agreement's `tariff_code` names an existing product
 * (`product_code_does_not_exist`) of the market of its supply point's
 * supply_type (`product_market_mismatch`). Products are never deleted and
 * their market never changes, so a check made before the write cannot go stale.
 */
export const tariffCodeReferenceCheck: AccountReferenceCheck = async (read, payload): Promise<FieldError[]> => {
  const agreements = payload.supply_addresses.flatMap((address, a) =>
    address.supply_points.flatMap((point, p) =>
      (point.agreements ?? []).map((agreement, g) => ({
        code: agreement.tariff_code,
        supplyType: point.supply_type,
        attr: `supply_addresses.${a}.supply_points.${p}.agreements.${g}.tariff_code`,
      })),
    ),
  );
  if (agreements.length === 0) return [];
  const markets = await read.productMarkets(agreements.map((agreement) => agreement.code));
  const errors: FieldError[] = [];
  for (const { code, supplyType, attr } of agreements) {
    const market = markets.get(code);
    const expected = MARKET_OF_SUPPLY_TYPE[supplyType];
    if (!market) {
      errors.push({ detail: `Product ${code} does not exist.`, code: 'product_code_does_not_exist', attr });
    } else if (market !== expected) {
      errors.push({
        detail: `Product ${code} is a ${market} product; a ${supplyType} supply point needs a ${expected} product.`,
        code: 'product_market_mismatch',
        attr,
      });
    }
  }
  return errors;
};
