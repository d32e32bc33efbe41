import { Hono } from 'hono';
import { z } from 'zod';
import { businessPaymentInstructionRead, businessPaymentInstructionReadSchema } from '../../answers/payment-instructions.js';
import type { LedgerContext } from '../../application/context.js';
import { MAX_LINE } from '../../domain/account-import-process/payload-fields.js';
import { DomainError } from '../../domain/errors.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';

/**
 * GET products/<code>/, business/<supplier>/<ext>/ and operations-teams/<name>/ (beyond the spec): a
 * product with its rates as stored (each rate's band key, its period with the valid_to the continuity rule
 * gave it, its price), and a business with its contracts: what `import-ledger verify` compares the folder's
 * products.json and businesses/ with; whether an operations team exists: what `import-ledger migrate`
 * checks before its first write. Products and teams are the platform's (any valid token reads them, as any
 * token creates products and processing against a team tells whether it exists); a business is read within
 * the token's suppliers.
 *
 * A business's payment instructions come a page at a time, by reference: nothing bounds how many a business
 * holds, and an answer stays bounded. `payment_instructions_next` is the read of the next page (null: this
 * page holds the last); the business's own fields come with every page.
 */
export const BUSINESS_PAYMENT_INSTRUCTIONS_PAGE = 100;

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
  payment_instructions: z.array(businessPaymentInstructionReadSchema),
  payment_instructions_next: z.string().nullable(),
});
export const businessReadQuerySchema = z.object({
  /** A reference (as long as a recorded one may be): the page starts after it (what `payment_instructions_next` names). */
  payment_instructions_after: z.string().min(1).max(MAX_LINE).optional(),
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
      const { payment_instructions_after: after } = parseQuery(c, businessReadQuerySchema);
      const business = await ctx.read.findBusiness(supplier, ext);
      if (!business) throw new DomainError('business_not_found', `No business ${ext} for ${supplier}.`);
      const [contracts, instructions] = await Promise.all([
        ctx.read.listBusinessContracts(supplier, ext),
        // One more than a page: whether a next page exists, without counting.
        ctx.read.businessPaymentInstructionsPage(supplier, ext, after ?? null, BUSINESS_PAYMENT_INSTRUCTIONS_PAGE + 1),
      ]);
      const page = instructions.slice(0, BUSINESS_PAYMENT_INSTRUCTIONS_PAGE);
      const last = instructions.length > BUSINESS_PAYMENT_INSTRUCTIONS_PAGE ? page[page.length - 1] : undefined;
      const body: z.infer<typeof businessReadResponseSchema> = {
        external_business_identifier: business.externalBusinessIdentifier,
        business_type: business.businessType,
        company_name: business.companyName,
        siret: business.siret,
        contracts: contracts.map((k) => ({ identifier: k.contractIdentifier, valid_from_date: k.validFromDate })),
        payment_instructions: page.map(businessPaymentInstructionRead),
        payment_instructions_next: last ? `${new URL(c.req.url).pathname}?payment_instructions_after=${encodeURIComponent(last.reference)}` : null,
      };
      return c.json(body, 200);
    });
}
