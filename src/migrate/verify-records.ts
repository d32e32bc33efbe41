import { DIGEST_KINDS, recordId, recordLine, type ComparedRecords, type DigestKind } from '../export/account-records-digest.js';
import { shown, type VerifyKind, type VerifyReport } from './verify-report.js';

/**
 * One owner's records (an account's, a business's payment instructions) compared in detail: per kind,
 * grouped by id (notes have none: one group), the records equal on both sides paired off, and the rest
 * reported: on both sides field by field, only in the folder as missing, only in the service (or held
 * twice) as extra.
 */
type AnyRecord = Record<string, unknown>;

/** How records of a kind are compared: the group a record is paired within, its name in the report, its whole line. */
export interface RecordForm<R> {
  group(record: R): string;
  name(record: R): string;
  line(record: R): string;
}

function groups<R>(form: RecordForm<R>, records: readonly R[]): Map<string, R[]> {
  const grouped = new Map<string, R[]>();
  for (const record of records) {
    const id = form.group(record);
    grouped.set(id, [...(grouped.get(id) ?? []), record]);
  }
  return grouped;
}

/** Takes the records equal on both sides out of both lists; returns how many. */
function pairOffEqual<R>(form: RecordForm<R>, source: R[], service: R[]): number {
  let equal = 0;
  for (let i = source.length - 1; i >= 0; i--) {
    const line = form.line(source[i]!);
    const j = service.findIndex((r) => form.line(r) === line);
    if (j >= 0) {
      service.splice(j, 1);
      source.splice(i, 1);
      equal++;
    }
  }
  return equal;
}

/** The records of one kind of one owner (`owner` starts each item: `<owner>/<name>`). */
export function compareOwnedRecords<R extends AnyRecord>(report: VerifyReport, kind: VerifyKind, owner: string, form: RecordForm<R>, source: readonly R[], service: readonly R[]): void {
  const serviceGroups = groups(form, service);
  const sourceGroups = groups(form, source);
  for (const id of new Set([...sourceGroups.keys(), ...serviceGroups.keys()])) {
    const ours = [...(sourceGroups.get(id) ?? [])];
    const theirs = [...(serviceGroups.get(id) ?? [])];
    report.identical(kind, pairOffEqual(form, ours, theirs));
    const item = (record: R) => `${owner}/${form.name(record)}`;
    const paired = Math.min(ours.length, theirs.length);
    for (let i = 0; i < paired; i++) {
      const fields = Object.keys(ours[i]!).filter((field) => JSON.stringify(ours[i]![field]) !== JSON.stringify(theirs[i]![field]));
      fields.forEach((field, n) => report.add({ kind, item: item(ours[i]!), difference: 'different', field, source: shown(ours[i]![field]), service: shown(theirs[i]![field]) }, n === 0));
    }
    for (const record of ours.slice(paired)) report.add({ kind, item: item(record), difference: 'missing', field: 'present', source: form.line(record), service: null });
    for (const record of theirs.slice(paired)) report.add({ kind, item: item(record), difference: 'extra', field: 'present', source: null, service: form.line(record) });
  }
}

/** An account's records of a kind: by id, a note (no id) by its account alone, each as its digest line. */
const digestForm = <K extends DigestKind>(kind: K): RecordForm<AnyRecord> => ({
  group: (record) => (kind === 'notes' ? '' : recordId(kind, record as never)),
  name: (record) => (kind === 'notes' ? 'note' : recordId(kind, record as never)),
  line: (record) => recordLine(kind, record as never),
});

export function compareRecords(report: VerifyReport, ext: string, source: ComparedRecords, service: ComparedRecords): void {
  for (const kind of DIGEST_KINDS) {
    compareOwnedRecords(report, kind, ext, digestForm(kind), source[kind] as unknown as readonly AnyRecord[], service[kind] as unknown as readonly AnyRecord[]);
  }
}
