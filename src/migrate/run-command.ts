import { join, resolve } from 'node:path';
import { numberFromEnv, runFolderCommand, type FolderCliOptions } from './folder-run.js';
import { migrate } from './migrate.js';
import type { Summary } from './report.js';

/** The migrate command's options, as commander parses them (src/cli/migrate-command.ts defines them). */
export interface MigrateCliOptions extends FolderCliOptions {
  readonly team: string;
  readonly dryRun: boolean;
  readonly stageOnly: boolean;
  readonly fresh: boolean;
}

/** Runs the migrate command and prints its summary; the first Ctrl-C stops after the requests in flight. Returns the exit code. */
export async function runMigrateCommand(dir: string, opts: MigrateCliOptions, usage: (message: string) => never): Promise<number> {
  if (opts.dryRun && opts.stageOnly) usage('--dry-run and --stage-only cannot be combined');
  const stopping = 'stopping after the requests in flight (Ctrl-C again to quit at once); the journal resumes the rest';
  return runFolderCommand(dir, opts, usage, stopping, async (options) => {
    const journalFile = options.reportFile
      ? `${options.reportFile}.journal.ndjson`
      : resolve(join('.', `migrate-${opts.supplier.replace(/[^A-Za-z0-9_-]/g, '_')}.journal.ndjson`));
    // A test hook: the retries' base wait.
    const base = numberFromEnv('LEDGER_MIGRATE_RETRY_BASE_MS');
    const result = await migrate(
      {
        ...options,
        team: opts.team,
        dryRun: opts.dryRun,
        stageOnly: opts.stageOnly,
        journalFile,
        fresh: opts.fresh,
        ...(base !== undefined ? { retry: { attempts: 8, baseDelayMs: base, maxDelayMs: base * 20 } } : {}),
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    printSummary(result.summary, options.reportFile, journalFile, opts.dryRun);
    if (result.interrupted) process.stderr.write('interrupted: run the same command again to resume\n');
    return result.exitCode;
  });
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
