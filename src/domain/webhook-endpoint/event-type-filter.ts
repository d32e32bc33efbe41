/**
 * The shape of an external event type (`data_import.import_process.complete-v1`, `account.created-v1`) and
 * of a prefix filter (`data_import.*`): dot-separated lowercase segments, a type ending in `-v<version>`.
 *
 * A stand-in for the external-event catalogue's `isEventTypeFilter` (src/external-events/catalogue.ts),
 * which also knows which types exist: once the catalogue is there, its function replaces this one.
 */
const EVENT_TYPE = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*-v[1-9][0-9]*$/;
const PREFIX = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\.\*$/;

export function isEventTypeFilter(entry: string): boolean {
  return EVENT_TYPE.test(entry) || PREFIX.test(entry);
}
