import { z } from 'zod';
import { eventSchema } from './envelope.js';

export const operationsTeamStreamId = (name: string): string => `operations-team:${name}`;

/** An operator created an operations team; processed accounts are assigned to one by name. */
export const operationsTeamCreatedSchema = eventSchema(
  'OperationsTeamCreated',
  1,
  z.object({ name: z.string(), createdAt: z.string() }),
);

export const operationsTeamEventSchemas = [operationsTeamCreatedSchema] as const;

export type OperationsTeamCreated = z.infer<typeof operationsTeamCreatedSchema>;
export type OperationsTeamEvent = OperationsTeamCreated;
