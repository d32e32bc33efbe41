import { ReportFile } from './report.js';

/** The verification's report: one line per difference, written as it is found, and the counts per kind (all that is held). */
export const DIFFERENCES = ['missing', 'extra', 'different'] as const;
export type Difference = (typeof DIFFERENCES)[number];
export const VERIFY_KINDS = ['products', 'rates', 'businesses', 'contracts', 'business_payment_instructions', 'accounts', 'notes', 'transactions', 'statements', 'payment_instructions', 'ledger_balance'] as const;
export type VerifyKind = (typeof VERIFY_KINDS)[number];

export interface DifferenceLine {
  readonly kind: VerifyKind;
  /** The item: a code, an account number, `<account>/<record id>` or `<business>/<reference>`. */
  readonly item: string;
  readonly difference: Difference;
  /** The field that differs (`present` for a missing or extra item). */
  readonly field: string;
  readonly source: string | null;
  readonly service: string | null;
}

const COLUMNS = ['kind', 'item', 'difference', 'field', 'source', 'service'] as const;

export type KindCounts = { identical: number; missing: number; extra: number; different: number };
export type VerifySummary = Record<VerifyKind, KindCounts>;

/** A value as the report shows it: strings as they are, anything else as JSON, absence as null. */
export const shown = (value: unknown): string | null => (value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value));

export class VerifyReport {
  private readonly file: ReportFile<(typeof COLUMNS)[number]>;
  private readonly counts = Object.fromEntries(VERIFY_KINDS.map((k) => [k, { identical: 0, missing: 0, extra: 0, different: 0 }])) as VerifySummary;

  constructor(file: string | null) {
    this.file = new ReportFile(file, COLUMNS);
  }

  identical(kind: VerifyKind, n = 1): void {
    this.counts[kind].identical += n;
  }

  /** One difference: a report line, counted once per item (`count: false` for a further field of an item already counted). */
  add(line: DifferenceLine, count = true): void {
    if (count) this.counts[line.kind][line.difference]++;
    this.file.write(line);
  }

  summary(): VerifySummary {
    return structuredClone(this.counts);
  }

  get differences(): number {
    return VERIFY_KINDS.reduce((n, k) => n + this.counts[k].missing + this.counts[k].extra + this.counts[k].different, 0);
  }

  close(): void {
    this.file.close();
  }
}
