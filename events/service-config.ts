import { z } from 'zod';
import { eventSchema } from './envelope.js';

export const serviceConfigStreamId = 'service-config';

/** Keys an operator may set with `import-ledger config set`. */
export const serviceConfigKeys = ['process-concurrency-limit', 'populate-rate-per-second', 'request-rate-per-second', 'token-requests-per-minute'] as const;
export const serviceConfigKeySchema = z.enum(serviceConfigKeys);
export type ServiceConfigKey = z.infer<typeof serviceConfigKeySchema>;

/** An operator changed a service-wide setting; `value` null means the setting is off (default). */
export const serviceConfigChangedSchema = eventSchema(
  'ServiceConfigChanged',
  1,
  z.object({ key: serviceConfigKeySchema, value: z.number().int().nullable(), changedAt: z.string() }),
);

export const serviceConfigEventSchemas = [serviceConfigChangedSchema] as const;

export type ServiceConfigChanged = z.infer<typeof serviceConfigChangedSchema>;
export type ServiceConfigEvent = ServiceConfigChanged;
