import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

export const apiKeyStreamId = (keyId: string): string => `api-key:${keyId}`;

/**
 * An operator issued an API key scoped to one or more import suppliers. Only
 * the SHA-256 hash of the key is recorded: the key itself was shown once.
 */
export const apiKeyCreatedSchema = eventSchema(
  'ApiKeyCreated',
  1,
  z.object({
    keyId: z.string(),
    keyHash: z.string(),
    suppliers: z.array(z.string()),
    label: z.string().nullable(),
    createdAt: z.string(),
  }),
);

/** An operator revoked the key: it can no longer obtain tokens, and tokens it obtained stop working. */
export const apiKeyRevokedSchema = eventSchema(
  'ApiKeyRevoked',
  1,
  z.object({ keyId: z.string(), revokedAt: z.string() }),
);

export const apiKeyEventSchemas = [apiKeyCreatedSchema, apiKeyRevokedSchema] as const;

export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
export type ApiKeyRevoked = z.infer<typeof apiKeyRevokedSchema>;
export type ApiKeyEvent = EventsOf<typeof apiKeyEventSchemas>;
