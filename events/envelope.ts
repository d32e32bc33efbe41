import { z } from 'zod';

/** Metadata of every event; `actor` is the API key id, `operator:<os user>` (the command line) or `system` (seeding). */
export const eventMetadataSchema = z.object({
  eventId: z.string(),
  actor: z.string(),
  requestId: z.string().nullable(),
  correlationId: z.string().nullable(),
  causationId: z.string().nullable(),
  /** The W3C `traceparent` of the HTTP request that wrote the event, when the caller sent a valid one. */
  traceparent: z.string().optional(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** What a caller supplies: the event id is assigned by the store. */
export type CommandMetadata = Omit<EventMetadata, 'eventId'>;

/** The shape of every event, before and after it is stored: past tense type, schema version, data. */
export interface DomainEvent<TType extends string = string, TData = unknown> {
  readonly type: TType;
  readonly version: number;
  readonly data: TData;
}

/** An event as read back from the log. */
export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly event: E;
  readonly metadata: EventMetadata;
  readonly recordedAt: string;
}

/** The union of the events a list of event schemas describes. */
export type EventsOf<TSchemas extends readonly z.ZodType[]> = z.infer<TSchemas[number]>;

/** Builds the zod schema of one stored event shape: `{ type, version, data }`. */
export function eventSchema<TType extends string, TVersion extends number, TData extends z.ZodType>(
  type: TType,
  version: TVersion,
  data: TData,
) {
  return z.object({ type: z.literal(type), version: z.literal(version), data });
}
