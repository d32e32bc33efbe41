import { runFolderCommand, type FolderCliOptions } from './folder-run.js';
import { VERIFY_KINDS } from './verify-report.js';
import { verify, type VerifyResult } from './verify.js';

/** Runs the verify command and prints its summary (human lines on stderr, one JSON line on stdout). Returns 0 agree, 1 differ. */
export async function runVerifyCommand(dir: string, opts: FolderCliOptions, usage: (message: string) => never): Promise<number> {
  const stopping = 'stopping: the verification ends unfinished (exit 130); Ctrl-C again to quit at once';
  return runFolderCommand(dir, opts, usage, stopping, async (options) => {
    const result = await verify(options, (line) => process.stderr.write(`${line}\n`));
    printSummary(result, options.reportFile);
    return result.exitCode;
  });
}

/** The width of the kind column: the longest kind's. */
const KIND_WIDTH = Math.max(...VERIFY_KINDS.map((kind) => kind.length));

function printSummary({ serviceId, summary, exitCode }: VerifyResult, reportFile: string | null): void {
  process.stderr.write(`verification done: ${exitCode === 0 ? 'the folder and the service agree' : 'the folder and the service differ'} (service ${serviceId})\n`);
  for (const kind of VERIFY_KINDS) {
    const c = summary[kind];
    if (c.identical + c.missing + c.extra + c.different === 0) continue;
    process.stderr.write(`  ${kind.padEnd(KIND_WIDTH)} identical ${c.identical}, missing ${c.missing}, extra ${c.extra}, different ${c.different}\n`);
  }
  if (reportFile) process.stderr.write(`report: ${reportFile}\n`);
  process.stdout.write(`${JSON.stringify({ service_id: serviceId, summary })}\n`);
}
