/**
 * Progress per step: on a terminal a live bar per step, redrawn in place a few times a second; otherwise
 * one JSON line every `intervalMs` while a step runs and one when it ends, so a script can follow it.
 */
export interface StepProgress {
  readonly step: string;
  /** How many items the step has; null while they are still being counted (accounts.ndjson's lines). */
  total: number | null;
  done: number;
  failed: number;
  retries: number;
  readonly startedAt: number;
  endedAt: number | null;
}

export interface ProgressOptions {
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  readonly intervalMs: number;
  readonly now?: () => number;
  /** What the count of failed items is called on a terminal (verify: the items that differ). */
  readonly failedLabel?: string;
}

const formatDuration = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return '--';
  const s = Math.max(0, Math.round(seconds));
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

export class Progress {
  private readonly steps: StepProgress[] = [];
  private timer: NodeJS.Timeout | null = null;
  private drawnLines = 0;
  private readonly now: () => number;
  private readonly tty: boolean;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? (() => performance.now());
    this.tty = options.stream.isTTY === true;
  }

  begin(step: string, total: number | null): StepProgress {
    const progress: StepProgress = { step, total, done: 0, failed: 0, retries: 0, startedAt: this.now(), endedAt: null };
    this.steps.push(progress);
    this.timer ??= setInterval(() => this.draw(), this.tty ? 250 : this.options.intervalMs);
    this.timer.unref();
    return progress;
  }

  end(progress: StepProgress): void {
    progress.endedAt = this.now();
    if (this.tty) this.draw();
    else this.line(progress);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.tty) this.draw();
  }

  private rate(p: StepProgress): number {
    const seconds = ((p.endedAt ?? this.now()) - p.startedAt) / 1000;
    return seconds > 0 ? p.done / seconds : 0;
  }

  private line(p: StepProgress): void {
    const rate = this.rate(p);
    this.options.stream.write(
      `${JSON.stringify({
        progress: p.step,
        done: p.done,
        total: p.total,
        failed: p.failed,
        retries: p.retries,
        per_second: Math.round(rate * 10) / 10,
        eta_seconds: p.endedAt !== null ? 0 : rate > 0 && p.total !== null ? Math.round((p.total - p.done) / rate) : null,
        finished: p.endedAt !== null,
      })}\n`,
    );
  }

  private draw(): void {
    if (!this.tty) {
      for (const p of this.steps) if (p.endedAt === null) this.line(p);
      return;
    }
    const width = 28;
    const lines = this.steps.map((p) => {
      const fraction = p.total === null ? 0 : p.total > 0 ? Math.min(1, p.done / p.total) : 1;
      const filled = Math.round(fraction * width);
      const rate = this.rate(p);
      const eta = p.endedAt !== null ? 'done' : `ETA ${formatDuration(rate > 0 && p.total !== null ? (p.total - p.done) / rate : Infinity)}`;
      return `${p.step.padEnd(13)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total ?? '?'} ${rate.toFixed(1)}/s ${eta}  ${this.options.failedLabel ?? 'failed'} ${p.failed}${p.retries ? `  retries ${p.retries}` : ''}`;
    });
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}A` : '';
    this.options.stream.write(`${up}${lines.map((l) => `\r\x1b[2K${l}`).join('\n')}\n`);
    this.drawnLines = lines.length;
  }
}
