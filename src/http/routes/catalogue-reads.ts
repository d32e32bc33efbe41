import { Hono } from 'hono';
import { z } from 'zod';
import type { LedgerContext } from '../../application/context.js';
import { DomainError } from '../../domain/errors.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';

/**
 * GET products/<code>/, business/<supplier>/<ext>/ and operations-teams/<name>/ (beyond the spec): a
 * product with its rates as stored (each rate's band key, its period with the valid_to the continuity rule
 * gave it, its price), and a business with its contracts: what `import-ledger verify` compares the folder's
 * products.json and businesses/ with; whether an operations team exists: what `import-ledger migrate`
 * checks before its first write. Products and teams are the platform's (any valid token reads them, as any
 * token creates products and processing against a team tells whether it exists); a business is read within
 * the token's suppliers.
 */
export const productReadResponseSchema = z.object({
  code: z.string(),
  market_name: z.string(),
  rates: z.array(
    z.object({ band_key: z.string(), unit_type: z.string(), valid_from: z.string(), valid_to: z.string().nullable(), price_per_unit: z.string() }),
  ),
});
export const businessReadResponseSchema = z.object({
  external_business_identifier: z.string(),
  business_type: z.string(),
  company_name: z.string(),
  siret: z.string(),
  contracts: z.array(z.object({ identifier: z.string(), valid_from_date: z.string().nullable() })),
});

export const operationsTeamReadResponseSchema = z.object({ name: z.string() });

export function catalogueReadRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .get('/products/:code/', async (c) => {
      const product = await ctx.read.findProduct(c.req.param('code'));
      if (!product) throw new DomainError('not_found', `No product ${c.req.param('code')}.`);
      const body: z.infer<typeof productReadResponseSchema> = {
        code: product.code,
        market_name: product.marketName,
        rates: product.rates.map((r) => ({ band_key: r.bandKey, unit_type: r.unitType, valid_from: r.validFrom, valid_to: r.validTo, price_per_unit: r.pricePerUnit })),
      };
      return c.json(body, 200);
    })
    .get('/operations-teams/:name/', async (c) => {
      const name = c.req.param('name');
      if (!(await ctx.read.operationsTeamExists(name))) throw new DomainError('not_found', `No operations team ${name}.`);
      const body: z.infer<typeof operationsTeamReadResponseSchema> = { name };
      return c.json(body, 200);
    })
    .get('/business/:supplier/:ext/', async (c) => {
      const supplier = c.req.param('supplier');
      const ext = c.req.param('ext');
      requireSupplierScope(c, supplier);
      const business = await ctx.read.findBusiness(supplier, ext);
      if (!business) throw new DomainError('business_not_found', `No business ${ext} for ${supplier}.`);
      const contracts = await ctx.read.listBusinessContracts(supplier, ext);
      const body: z.infer<typeof businessReadResponseSchema> = {
        external_business_identifier: business.externalBusinessIdentifier,
        business_type: business.businessType,
        company_name: business.companyName,
        siret: business.siret,
        contracts: contracts.map((k) => ({ identifier: k.contractIdentifier, valid_from_date: k.validFromDate })),
      };
      return c.json(body, 200);
    });
}
