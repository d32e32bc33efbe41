import { importSupplierStreamId } from '../../events/import-supplier.js';
import { importSupplierDecider } from '../domain/import-supplier/import-supplier-decider.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';

export interface VerificationInput {
  readonly code: string;
  readonly agree: boolean;
  readonly summary: Readonly<Record<string, { identical: number; missing: number; extra: number; different: number }>>;
  /** This service's identity, and the one the verification says it compared with (when it says). */
  readonly serviceId: string;
  readonly comparedWith?: string;
}

/** Records a verification of the supplier on its stream: the dashboard shows the last, the history every one. */
export async function recordVerification(ctx: LedgerContext, input: VerificationInput, actor: Actor): Promise<string> {
  const result = await handle(ctx, actor, importSupplierDecider, importSupplierStreamId(input.code), { type: 'RecordVerification', ...input });
  const event = result.events[0]?.event;
  return event?.type === 'ImportSupplierVerified' ? event.data.verifiedAt : '';
}
