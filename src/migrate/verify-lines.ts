import { RECORD_KINDS, isUnreadable, type MigrationInput, type ReadItem, type RecordKind } from './input.js';
import type { Progress, StepProgress } from './progress.js';
import { compared } from './verify-source.js';
import type { VerifyReport } from './verify-report.js';
import type { VerifyScratch } from './verify-scratch.js';

/**
 * Before the accounts are compared: the NDJSON record files (records/<kind>.ndjson,
 * records/payment-instructions.ndjson), read once, a line at a time, each line's records put in the
 * scratch file by account in the form they are compared in, so each account's fingerprint can gather them
 * whatever order the lines are in. A line that does not parse or names no account is a difference of its
 * own (`source`), as an unreadable account is; a line for another supplier is not this one's (migrate's
 * request would be refused), as an account of another supplier is not.
 */
export async function readRecordLines(input: MigrationInput, supplier: string, scratch: VerifyScratch, report: VerifyReport, progress: Progress, stopped: () => boolean): Promise<void> {
  const files = [
    ...RECORD_KINDS.filter((kind) => input.recordsFile(kind) !== null).map((kind) => ({ kind, lines: input.recordLines(kind, supplier) })),
    ...(input.paymentInstructionsFile() ? [{ kind: 'payment_instructions' as const, lines: input.paymentInstructionLines(supplier) }] : []),
  ];
  if (files.length === 0) return;
  const p = progress.begin('read records', null);
  try {
    await readLines(files, supplier, scratch, report, p, stopped);
  } finally {
    scratch.lineRecordsRead();
  }
  progress.end(p);
}

async function readLines(
  files: readonly { kind: RecordKind | 'payment_instructions'; lines: AsyncIterable<ReadItem> }[],
  supplier: string,
  scratch: VerifyScratch,
  report: VerifyReport,
  p: StepProgress,
  stopped: () => boolean,
): Promise<void> {
  for (const { kind, lines } of files) {
    for await (const item of lines) {
      if (stopped()) return;
      p.done++;
      if (isUnreadable(item)) {
        report.add({ kind, item: item.id, difference: 'different', field: 'source', source: `${item.problem} (${item.source})`, service: null });
        p.failed++;
        continue;
      }
      const body = item.body as Record<string, unknown>;
      if (body['import_supplier'] !== supplier) continue;
      const ext = body['external_account_number'] as string;
      const records = kind === 'payment_instructions' ? compared.payment_instructions([body]) : compared[kind](Array.isArray(body[kind]) ? (body[kind] as unknown[]) : []);
      scratch.addLineRecords(ext, kind, JSON.stringify(records));
    }
  }
}
