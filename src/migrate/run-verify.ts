import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MigrationAborted, onCtrlC } from './migrate.js';
import { makeReportFolder } from './report.js';
import { VERIFY_KINDS, type VerifySummary } from './verify-report.js';
import { verify } from './verify.js';

/** The verify command's options, as commander parses them (src/cli/verify-command.ts defines them). */
export interface VerifyCliOptions {
  readonly url: string;
  readonly supplier: string;
  readonly apiKey?: string;
  readonly concurrency: number;
  readonly report?: string;
}

/** Test hook, as migrate's: progress lines every N ms instead of every 5 s. */
const progressMs = (): number | undefined => {
  const value = process.env['LEDGER_MIGRATE_PROGRESS_MS'];
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
};

/**
 * Runs the verify command: checks the usage (`usage` prints and exits 2), runs the verification, prints
 * its summary (human lines on stderr, one JSON line on stdout). Returns the exit code: 0 agree, 1 differ.
 */
export async function runVerifyCommand(dir: string, opts: VerifyCliOptions, usage: (message: string) => never): Promise<number> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) usage(`${dir} is not a folder`);
  if (!opts.apiKey) usage('no API key: give --api-key or set LEDGER_API_KEY');
  const reportFile = opts.report ? resolve(opts.report) : null;
  const reportProblem = reportFile ? makeReportFolder(reportFile) : null;
  if (reportProblem) usage(reportProblem);
  const ctrlC = onCtrlC('stopping: the verification ends unfinished (exit 130); Ctrl-C again to quit at once');
  try {
    const ms = progressMs();
    const result = await verify(
      {
        dir,
        baseUrl: opts.url,
        supplier: opts.supplier,
        apiKey: opts.apiKey as string,
        concurrency: opts.concurrency,
        reportFile,
        ...(ms !== undefined ? { progressIntervalMs: ms } : {}),
        stopRequested: ctrlC.stopRequested,
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    printSummary(result.summary, reportFile, result.exitCode);
    return result.exitCode;
  } catch (error) {
    if (error instanceof MigrationAborted) {
      if (error.usage) usage(error.message);
      process.stderr.write(`error: ${error.message}\n`);
      return error.message === 'interrupted' ? 130 : 1;
    }
    throw error;
  } finally {
    ctrlC.dispose();
  }
}

function printSummary(summary: VerifySummary, reportFile: string | null, exitCode: number): void {
  process.stderr.write(`verification done: ${exitCode === 0 ? 'the folder and the service agree' : 'the folder and the service differ'}\n`);
  for (const kind of VERIFY_KINDS) {
    const c = summary[kind];
    if (c.identical + c.missing + c.extra + c.different === 0) continue;
    process.stderr.write(`  ${kind.padEnd(21)} identical ${c.identical}, missing ${c.missing}, extra ${c.extra}, different ${c.different}\n`);
  }
  if (reportFile) process.stderr.write(`report: ${reportFile}\n`);
  process.stdout.write(`${JSON.stringify({ summary })}\n`);
}
