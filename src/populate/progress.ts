import type { SupplyPointPopulateRequestEvent } from '../../events/supply-point-populate.js';
import type { PopulateRequestRef } from '../domain/supply-point/populate-request-decider.js';

/** What the worker did, for progress output (the CLI prints it). */
export type PopulateProgress =
  | { readonly kind: 'imported'; readonly request: PopulateRequestRef; readonly attempt: number }
  | { readonly kind: 'errored'; readonly request: PopulateRequestRef; readonly attempt: number; readonly reason: string }
  | {
      readonly kind: 'retrying';
      readonly request: PopulateRequestRef;
      readonly attempt: number;
      readonly reason: string;
      readonly retryAt: string;
    }
  | { readonly kind: 'released'; readonly request: PopulateRequestRef; readonly attempt: number };

/** The progress an event of a request stream stands for (none for a claim). */
export function progressOf(request: PopulateRequestRef, event: SupplyPointPopulateRequestEvent): PopulateProgress | null {
  switch (event.type) {
    case 'SupplyPointImported':
      return { kind: 'imported', request, attempt: event.data.attempt };
    case 'SupplyPointPopulateRequestErrored':
      return { kind: 'errored', request, attempt: event.data.attempt, reason: event.data.reason };
    case 'SupplyPointPopulateAttemptFailed':
      return { kind: 'retrying', request, attempt: event.data.attempt, reason: event.data.reason, retryAt: event.data.retryAt };
    case 'SupplyPointPopulateRequestReleased':
      return { kind: 'released', request, attempt: event.data.attempt };
    case 'SupplyPointPopulateRequestClaimed':
      return null;
  }
}
