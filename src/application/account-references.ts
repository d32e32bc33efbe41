import type { ProductMarket } from '../../events/product.js';
import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import type { SupplyType } from '../domain/account-import-process/identifiers.js';
import type { FieldError } from '../domain/errors.js';
import type { BusinessContractLink } from '../queries/business-read-models.js';
import type { ReadModels } from '../queries/read-models.js';

/**
 * What an account payload refers to outside itself, checked against the read models (so not part of the
 * pure payload validation); its errors join the payload's under `account_failed_validation`, with attrs
 * into the payload. Products are never deleted nor their market changed, and contracts never removed, so
 * a check made before the write cannot go stale.
 */
export async function checkAccountReferences(read: ReadModels, payload: AccountPayload): Promise<FieldError[]> {
  return [...(await businessContractErrors(read, payload)), ...(await tariffCodeErrors(read, payload))];
}

/** The business contract a BUSINESS account names (spec 1.5), looked up among the businesses of its own import supplier. */
export async function findNamedBusinessContract(read: ReadModels, payload: AccountPayload): Promise<BusinessContractLink | null> {
  const identifier = namedBusinessContract(payload);
  return identifier === null ? null : read.findBusinessContract(payload.import_supplier, identifier);
}

function namedBusinessContract(payload: AccountPayload): string | null {
  if (payload.account_type !== 'BUSINESS') return null;
  return payload.business?.business_contract_identifier ?? null;
}

/** A named contract belongs to a business of the same import supplier (`business_contract_not_found`). */
async function businessContractErrors(read: ReadModels, payload: AccountPayload): Promise<FieldError[]> {
  const identifier = namedBusinessContract(payload);
  if (identifier === null || (await read.findBusinessContract(payload.import_supplier, identifier))) return [];
  return [
    {
      detail: `No business of import supplier ${payload.import_supplier} has a contract with identifier ${identifier}.`,
      code: 'business_contract_not_found',
      attr: 'business.business_contract_identifier',
    },
  ];
}

const MARKET_OF_SUPPLY_TYPE: Readonly<Record<SupplyType, ProductMarket>> = {
  ELECTRICITY: 'FRA_ELECTRICITY',
  GAS: 'FRA_GAS',
};

/**
 * Every agreement's `tariff_code` names an existing product (`product_code_does_not_exist`) of the market
 * of its supply point's supply_type (`product_market_mismatch`).
 */
async function tariffCodeErrors(read: ReadModels, payload: AccountPayload): Promise<FieldError[]> {
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
}
