import { z } from 'zod';
import { specDateTime } from '../domain/account-import-process/iso-dates.js';
import { ofType, type Answer, type Events } from './answer.js';

/** POST verifications/ 201: the supplier and the instant the verification was recorded. */
export const recordVerificationResponseSchema = z.object({ import_supplier: z.string(), verified_at: z.string() });

export function verificationAnswer(code: string, verifiedAt: string): Answer<z.infer<typeof recordVerificationResponseSchema>> {
  return { status: 201, body: { import_supplier: code, verified_at: specDateTime(verifiedAt) } };
}

export function verificationAnswerFromEvents(events: Events): Answer | null {
  const verified = ofType(events, 'ImportSupplierVerified')[0];
  return verified ? verificationAnswer(verified.event.data.code, verified.event.data.verifiedAt) : null;
}
