import { DIGEST_KINDS, recordId, recordLine, type ComparedRecords, type DigestKind } from '../export/account-records-digest.js';
import { shown, type VerifyReport } from './verify-report.js';

/**
 * One account's records compared in detail: per kind, grouped by id (notes have none: one group), the
 * records equal on both sides paired off, and the rest reported: on both sides field by field, only in the
 * folder as missing, only in the service (or held twice) as extra.
 */
type AnyRecord = Record<string, unknown>;

function groups(kind: DigestKind, records: readonly AnyRecord[]): Map<string, AnyRecord[]> {
  const grouped = new Map<string, AnyRecord[]>();
  for (const record of records) {
    const id = kind === 'notes' ? '' : recordId(kind, record as never);
    grouped.set(id, [...(grouped.get(id) ?? []), record]);
  }
  return grouped;
}

/** Takes the records equal on both sides out of both lists; returns how many. */
function pairOffEqual(kind: DigestKind, source: AnyRecord[], service: AnyRecord[]): number {
  let equal = 0;
  for (let i = source.length - 1; i >= 0; i--) {
    const line = recordLine(kind, source[i] as never);
    const j = service.findIndex((r) => recordLine(kind, r as never) === line);
    if (j >= 0) {
      service.splice(j, 1);
      source.splice(i, 1);
      equal++;
    }
  }
  return equal;
}

export function compareRecords(report: VerifyReport, ext: string, source: ComparedRecords, service: ComparedRecords): void {
  for (const kind of DIGEST_KINDS) {
    const serviceGroups = groups(kind, service[kind] as unknown as readonly AnyRecord[]);
    const sourceGroups = groups(kind, source[kind] as unknown as readonly AnyRecord[]);
    for (const id of new Set([...sourceGroups.keys(), ...serviceGroups.keys()])) {
      const ours = [...(sourceGroups.get(id) ?? [])];
      const theirs = [...(serviceGroups.get(id) ?? [])];
      report.identical(kind, pairOffEqual(kind, ours, theirs));
      const item = (record: AnyRecord) => `${ext}/${kind === 'notes' ? 'note' : recordId(kind, record as never)}`;
      const paired = Math.min(ours.length, theirs.length);
      for (let i = 0; i < paired; i++) {
        const fields = Object.keys(ours[i]!).filter((field) => JSON.stringify(ours[i]![field]) !== JSON.stringify(theirs[i]![field]));
        fields.forEach((field, n) => report.add({ kind, item: item(ours[i]!), difference: 'different', field, source: shown(ours[i]![field]), service: shown(theirs[i]![field]) }, n === 0));
      }
      for (const record of ours.slice(paired)) report.add({ kind, item: item(record), difference: 'missing', field: 'present', source: recordLine(kind, record as never), service: null });
      for (const record of theirs.slice(paired)) report.add({ kind, item: item(record), difference: 'extra', field: 'present', source: null, service: recordLine(kind, record as never) });
    }
  }
}
