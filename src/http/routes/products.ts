import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { productsAnswer } from '../../answers/products.js';
import type { LedgerContext } from '../../application/context.js';
import { importProducts } from '../../application/products.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import { electricityProductSchema, gasProductSchema, validateProducts } from '../../domain/product/product-payload.js';
import { answer } from '../answer.js';
import { httpActor } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/**
 * POST validate-products/ and products/ (spec 4.2, 4.3): a non-empty array of
 * products, each checked against its market's rules (validateProducts: the
 * one parser; these schemas document the shape).
 */
export const productsRequestSchema = z.array(z.union([electricityProductSchema, gasProductSchema])).min(1);
/** validate-products/ 200: the validated products (unknown fields dropped). */
export const validateProductsResponseSchema = productsRequestSchema;

export const productFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('product_failed_validation', 'Product data could not be validated.', { errors });

/**
 * Products are the platform's shared catalogue: the payload names no import
 * supplier, so any valid token may validate and create them.
 */
async function importRequest(ctx: LedgerContext, c: Context<AppEnv>, dryRun: boolean) {
  const products = validated(await c.req.json(), validateProducts, productFailedValidation);
  const outcomes = await importProducts(ctx, products, httpActor(c), { dryRun });
  return { products, outcomes };
}

export function productRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .post('/validate-products/', async (c) => answer(c, { status: 200, body: (await importRequest(ctx, c, true)).products }))
    .post('/products/', async (c) => answer(c, productsAnswer((await importRequest(ctx, c, false)).outcomes)));
}
