// PROVISIONAL: replaced by the catalogue branch at merge.
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../../events/registry.js';
import { feedEventTypes, toIntegrationEvent, type Scope } from '../feed/integration-events.js';

export type { Scope };
export type ExternalEventType = string;
export interface ExternalEvent {
  readonly id: string;
  readonly type: ExternalEventType;
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
}
export interface RoutedEvent {
  readonly position: number;
  readonly event: ExternalEvent;
  readonly scope: Scope;
  readonly orderingKey: string;
}
export const externalEventTypes: readonly ExternalEventType[] = [];
export const sourceEventTypes: readonly LedgerEventType[] = feedEventTypes;
export function toExternalEvent(stored: StoredEvent<LedgerEvent>): RoutedEvent | null {
  const mapped = toIntegrationEvent(stored);
  if (!mapped) return null;
  const { event, scope } = mapped;
  const supplier = event.import_supplier;
  const orderingKey = event.external_account_number ? `account:${supplier}/${event.external_account_number}` : supplier ? `supplier:${supplier}` : 'catalogue';
  return {
    position: stored.globalPosition,
    event: { id: stored.metadata.eventId, type: `data_import.${event.type}-v1`, timestamp: event.occurred_at, data: { import_supplier: supplier, external_account_number: event.external_account_number, ...event.data } },
    scope,
    orderingKey,
  };
}
export function matchesEventTypes(filter: readonly string[], type: string): boolean {
  return filter.length === 0 || filter.some((f) => (f.endsWith('.*') ? type.startsWith(f.slice(0, -1)) : f === type));
}
export function isEventTypeFilter(entry: string): boolean {
  return entry.length > 0;
}
