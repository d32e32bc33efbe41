import { closeSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { csvRecords } from '../export/csv.js';

/**
 * The migration report: one line per item, written as it settles, and the summary printed at the end.
 * Nothing is held but the counts, so a cohort of any size costs the same memory.
 */
export const OUTCOMES = ['imported', 'staged', 'already imported', 'validated', 'skipped', 'failed'] as const;
export type ItemOutcome = (typeof OUTCOMES)[number];

export interface ReportLine {
  readonly step: string;
  readonly id: string;
  readonly outcome: ItemOutcome;
  readonly platform_account_number: string | null;
  readonly http_status: number | null;
  readonly error_code: string | null;
  /** The error items as `attr:code`, `;`-separated (`customers.0.landline:invalid_phone_number`). */
  readonly error_items: string | null;
  readonly detail: string | null;
}

/**
 * Makes the report's folder (its journal goes beside it) before any request, so `--report out/report.ndjson`
 * works in a folder not made yet. Returns why the path cannot hold the report (bad usage), or null.
 */
export function makeReportFolder(file: string): string | null {
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) return `--report ${file} is a folder: name a file`;
    mkdirSync(dirname(file), { recursive: true });
    return null;
  } catch (error) {
    return `--report ${file}: cannot make its folder (${error instanceof Error ? error.message : String(error)})`;
  }
}

const COLUMNS = ['step', 'id', 'outcome', 'platform_account_number', 'http_status', 'error_code', 'error_items', 'detail'] as const;

export interface Summary {
  readonly byOutcome: Record<ItemOutcome, number>;
  readonly byErrorCode: Record<string, number>;
  readonly byStep: Record<string, Partial<Record<ItemOutcome, number>>>;
}

/** A report file written line by line: CSV when its name ends in `.csv`, else NDJSON. Migrate's and verify's. */
export class ReportFile<C extends string> {
  private readonly fd: number | null;
  private readonly csv: boolean;

  constructor(
    file: string | null,
    private readonly columns: readonly C[],
  ) {
    this.csv = file !== null && file.toLowerCase().endsWith('.csv');
    this.fd = file === null ? null : openSync(file, 'w');
    if (this.fd !== null && this.csv) writeSync(this.fd, csvRecords([columns]));
  }

  write(line: { readonly [K in C]: string | number | null }): void {
    if (this.fd === null) return;
    writeSync(this.fd, this.csv ? csvRecords([this.columns.map((c) => line[c])]) : `${JSON.stringify(line)}\n`);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}

export class Report {
  private readonly file: ReportFile<(typeof COLUMNS)[number]>;
  private readonly counts: Record<ItemOutcome, number> = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<ItemOutcome, number>;
  private readonly codes = new Map<string, number>();
  private readonly steps = new Map<string, Partial<Record<ItemOutcome, number>>>();

  constructor(file: string | null) {
    this.file = new ReportFile(file, COLUMNS);
  }

  add(line: ReportLine): void {
    this.counts[line.outcome]++;
    const step = this.steps.get(line.step) ?? {};
    step[line.outcome] = (step[line.outcome] ?? 0) + 1;
    this.steps.set(line.step, step);
    if (line.outcome === 'failed' && line.error_code) this.codes.set(line.error_code, (this.codes.get(line.error_code) ?? 0) + 1);
    this.file.write(line);
  }

  summary(): Summary {
    return {
      byOutcome: { ...this.counts },
      byErrorCode: Object.fromEntries([...this.codes].sort((a, b) => b[1] - a[1])),
      byStep: Object.fromEntries(this.steps),
    };
  }

  get failures(): number {
    return this.counts.failed;
  }

  close(): void {
    this.file.close();
  }
}
