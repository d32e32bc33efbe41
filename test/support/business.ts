import { createBusiness } from '../../src/application/businesses.js';
import type { LedgerContext } from '../../src/application/context.js';
import { validateBusinessPayload } from '../../src/domain/business/business-payload.js';
import { SUPPLIER, operator } from './ledger.js';

/** The business contract test/fixtures/examples/account-business.json links to. */
export const ACCOUNT_EXAMPLE_CONTRACT = 'CTR-2025-000123';

/**
 * A minimal business holding one contract (a single CONTRACT_METADATA term, so it
 * names no product), created through the application as business/ would.
 */
export function minimalBusiness(options: { supplier?: string; externalBusinessIdentifier?: string; contractIdentifier?: string } = {}) {
  return {
    import_supplier_code: options.supplier ?? SUPPLIER,
    external_business_identifier: options.externalBusinessIdentifier ?? 'BIZ-000123',
    business: {
      business_type: 'EURL',
      company_name: 'Boulangerie Martin EURL',
      siret: '44306184100047',
      business_contracts: [
        {
          identifier: options.contractIdentifier ?? ACCOUNT_EXAMPLE_CONTRACT,
          valid_from_date: '2025-01-01',
          signed_at_date: '2024-11-15',
          versions: [{ applicable_at_date: '2025-01-01', terms: [{ term_type: 'CONTRACT_METADATA', metadata: { cee_formula_type: 'STANDARD' } }] }],
        },
      ],
    },
  };
}

/** Creates the minimal business (see `minimalBusiness`) and returns its platform_business_id. */
export async function createBusinessWithContract(
  ledger: LedgerContext,
  options: Parameters<typeof minimalBusiness>[0] = {},
): Promise<number> {
  const validation = validateBusinessPayload(minimalBusiness(options));
  if (!validation.ok) throw new Error(`minimal business must validate: ${JSON.stringify(validation.errors)}`);
  return (await createBusiness(ledger, validation.data, operator)).platformBusinessId;
}
