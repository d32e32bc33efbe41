import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { requireSupplierScope } from '../auth.js';

/**
 * Scope first: a key not scoped to the import supplier the body names gets 403
 * before anything else of the request is looked at (a missing or malformed
 * import_supplier is then a validation error).
 */
export async function scopedBody(c: Context<AppEnv>, supplierField = 'import_supplier'): Promise<unknown> {
  const body: unknown = await c.req.json();
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const supplier = (body as Record<string, unknown>)[supplierField];
    if (typeof supplier === 'string') requireSupplierScope(c, supplier);
  }
  return body;
}
