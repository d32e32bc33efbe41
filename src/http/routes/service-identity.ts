import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../env.js';

/**
 * GET service/ (beyond the spec): the service's identity, drawn once with its ledger and shared by every
 * instance on it. `import-ledger migrate` records it in its journal, so that a journal is never taken for
 * the journal of another service, or of the same one after its database was reset (docs/migrate.md).
 */
export const serviceIdentityResponseSchema = z.object({
  service_id: z.uuid().describe("The service's identity: the same on every instance of one ledger, new with a new database."),
});

export function serviceIdentityRoutes(serviceId: () => Promise<string>) {
  return new Hono<AppEnv>().get('/service/', async (c) => {
    const body: z.infer<typeof serviceIdentityResponseSchema> = { service_id: await serviceId() };
    return c.json(body, 200);
  });
}
