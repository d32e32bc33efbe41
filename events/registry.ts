import { z } from 'zod';
import type { EventsOf } from './envelope.js';
import { accountImportProcessEventSchemas } from './account-import-process.js';
import { accountCreationEventSchemas } from './account-creation.js';
import { accountProcessDryRunEventSchemas } from './account-process-dry-run.js';
import { importAttemptEventSchemas } from './import-attempt.js';
import { accountRecordEventSchemas } from './account-records.js';
import { apiKeyEventSchemas } from './api-key.js';
import { businessEventSchemas } from './business.js';
import { customerEmailEventSchemas } from './customer-email.js';
import { paymentInstructionEventSchemas } from './payment-instruction.js';
import { stagedAccountRecordEventSchemas } from './staged-account-records.js';
import { importSupplierEventSchemas } from './import-supplier.js';
import { operationsTeamEventSchemas } from './operations-team.js';
import { productEventSchemas } from './product.js';
import { serviceConfigEventSchemas } from './service-config.js';
import { supplyPointPopulateEventSchemas } from './supply-point-populate.js';
import { webhookEndpointEventSchemas } from './webhook-endpoint.js';

const currentSchemas = [
  ...importSupplierEventSchemas,
  ...operationsTeamEventSchemas,
  ...apiKeyEventSchemas,
  ...accountImportProcessEventSchemas,
  ...accountProcessDryRunEventSchemas,
  ...accountCreationEventSchemas,
  ...importAttemptEventSchemas,
  ...accountRecordEventSchemas,
  ...paymentInstructionEventSchemas,
  ...customerEmailEventSchemas,
  ...stagedAccountRecordEventSchemas,
  ...productEventSchemas,
  ...serviceConfigEventSchemas,
  ...supplyPointPopulateEventSchemas,
  ...businessEventSchemas,
  ...webhookEndpointEventSchemas,
] as const;

const ledgerEventSchema = z.discriminatedUnion('type', currentSchemas);

/** Every event the log may hold, at its current schema version. */
export type LedgerEvent = EventsOf<typeof currentSchemas>;
export type LedgerEventType = LedgerEvent['type'];

/**
 * Upcasters lift a stored event of an older schema version to the current one, keyed by `type@version`: a
 * stored event is never rewritten, it is read through these.
 */
type Upcaster = (data: unknown) => { version: number; data: unknown };
const upcasters: Readonly<Record<string, Upcaster>> = {
  // A verification recorded before the service had an identity names none.
  'ImportSupplierVerified@1': (data) => ({ version: 2, data: { ...(data as object), serviceId: null } }),
};

export class UnknownEventError extends Error {
  constructor(type: string, version: number, cause: unknown) {
    super(`stored event ${type}@${version} does not match its schema`, { cause });
    this.name = 'UnknownEventError';
  }
}

/** Parses a stored `{type, version, data}` into a current-version LedgerEvent (a trust boundary: stored JSON). */
export function parseLedgerEvent(type: string, version: number, data: unknown): LedgerEvent {
  let current = { version, data };
  for (let guard = 0; guard < 100; guard++) {
    const upcast = upcasters[`${type}@${current.version}`];
    if (!upcast) break;
    current = upcast(current.data);
  }
  const parsed = ledgerEventSchema.safeParse({ type, version: current.version, data: current.data });
  if (!parsed.success) throw new UnknownEventError(type, version, parsed.error);
  return parsed.data as LedgerEvent;
}
