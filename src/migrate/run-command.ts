import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MigrationAborted, migrate, onCtrlC } from './migrate.js';
import { makeReportFolder, type Summary } from './report.js';

/** Test hook: progress lines every N ms instead of every 5 s (LEDGER_MIGRATE_PROGRESS_MS), and retries' base wait. */
const numberFromEnv = (name: string): number | undefined => {
  const value = process.env[name];
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
};

/** The migrate command's options, as commander parses them (src/cli/migrate-command.ts defines them). */
export interface MigrateCliOptions {
  readonly url: string;
  readonly supplier: string;
  readonly team: string;
  readonly apiKey?: string;
  readonly concurrency: number;
  readonly dryRun: boolean;
  readonly stageOnly: boolean;
  readonly report?: string;
  readonly fresh: boolean;
}

/**
 * Runs the migrate command: checks the usage (`usage` prints and exits 2), installs Ctrl-C handling (the
 * first stops cleanly after the requests in flight; a second one exits at once), runs the migration and
 * prints its summary. Returns the exit code.
 */
export async function runMigrateCommand(dir: string, opts: MigrateCliOptions, usage: (message: string) => never): Promise<number> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) usage(`${dir} is not a folder`);
  if (!opts.apiKey) usage('no API key: give --api-key or set LEDGER_API_KEY');
  if (opts.dryRun && opts.stageOnly) usage('--dry-run and --stage-only cannot be combined');
  const reportFile = opts.report ? resolve(opts.report) : null;
  const reportProblem = reportFile ? makeReportFolder(reportFile) : null;
  if (reportProblem) usage(reportProblem);
  const journalFile = reportFile ? `${reportFile}.journal.ndjson` : resolve(join('.', `migrate-${opts.supplier.replace(/[^A-Za-z0-9_-]/g, '_')}.journal.ndjson`));

  const ctrlC = onCtrlC('stopping after the requests in flight (Ctrl-C again to quit at once); the journal resumes the rest');
  try {
    const base = numberFromEnv('LEDGER_MIGRATE_RETRY_BASE_MS');
    const result = await migrate(
      {
        dir,
        baseUrl: opts.url,
        supplier: opts.supplier,
        team: opts.team,
        apiKey: opts.apiKey as string,
        concurrency: opts.concurrency,
        dryRun: opts.dryRun,
        stageOnly: opts.stageOnly,
        reportFile,
        journalFile,
        fresh: opts.fresh,
        ...(base !== undefined ? { retry: { attempts: 8, baseDelayMs: base, maxDelayMs: base * 20 } } : {}),
        ...(numberFromEnv('LEDGER_MIGRATE_PROGRESS_MS') !== undefined ? { progressIntervalMs: numberFromEnv('LEDGER_MIGRATE_PROGRESS_MS') } : {}),
        stopRequested: ctrlC.stopRequested,
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    printSummary(result.summary, reportFile, journalFile, opts.dryRun);
    if (result.interrupted) process.stderr.write('interrupted: run the same command again to resume\n');
    return result.exitCode;
  } catch (error) {
    if (error instanceof MigrationAborted) {
      if (error.usage) usage(error.message);
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    ctrlC.dispose();
  }
}

/** The summary: human lines on stderr, one JSON line on stdout (for scripts). */
function printSummary(summary: Summary, reportFile: string | null, journalFile: string, dryRun: boolean): void {
  const counts = Object.entries(summary.byOutcome)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(', ');
  process.stderr.write(`${dryRun ? 'dry run' : 'migration'} done: ${counts || 'nothing to do'}\n`);
  for (const [code, n] of Object.entries(summary.byErrorCode)) process.stderr.write(`  failed with ${code}: ${n}\n`);
  if (reportFile) process.stderr.write(`report: ${reportFile}\n`);
  if (!dryRun) process.stderr.write(`journal: ${journalFile}\n`);
  process.stdout.write(`${JSON.stringify({ summary })}\n`);
}
