import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportSupplier } from '../../src/application/operator.js';
import { openLedger } from '../../src/ledger.js';
import { databaseEnv, operator, tempDatabaseFile } from '../support/ledger.js';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv } from './run-cli.js';

/** Shell status of a writer whose reader is gone (128 + SIGPIPE), as `seq 1 100000 | head -1` leaves it. */
const CLOSED_READER_STATUS = 141;

/** More suppliers than a pipe holds as JSON (64 KiB on Linux): the CLI is still writing when the reader leaves. */
const SUPPLIERS = 2000;

interface ClosedRun {
  readonly firstLine: string;
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs the bin with stdout piped into `head -1`, which exits once it has the first line; with `closedAtOnce`,
 * into a reader that closes its end before the CLI writes anything.
 */
async function runIntoClosingReader(file: string, args: readonly string[], options: { closedAtOnce: boolean }): Promise<ClosedRun> {
  const head = options.closedAtOnce ? null : spawn('head', ['-1'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const cli = spawn(process.execPath, [BIN, ...args], {
    cwd: PROJECT_ROOT,
    env: cliEnv(databaseEnv({ sqliteFile: file })),
    stdio: ['ignore', head ? head.stdin : 'pipe', 'pipe'],
  });
  // The reader alone holds the reading end: once it is gone, the CLI's next write finds no reader.
  if (head) head.stdin.destroy();
  else cli.stdout?.destroy();
  let firstLine = '';
  head?.stdout.setEncoding('utf8').on('data', (chunk: string) => (firstLine += chunk));
  let stderr = '';
  cli.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [[code]] = await Promise.all([once(cli, 'close') as Promise<[number | null]>, head ? once(head, 'close') : null]);
  return { firstLine: firstLine.trimEnd(), code, stderr };
}

describe('a reader that closes stdout early', () => {
  let db: { file: string; cleanup: () => void };
  beforeAll(async () => {
    db = tempDatabaseFile();
    const ledger = await openLedger({ sqliteFile: db.file });
    try {
      for (let i = 0; i < SUPPLIERS; i++) {
        await createImportSupplier(ledger, { code: `SUPPLIER_${i}`, status: 'Ongoing', sendEmails: false, documentRoot: '/documents/of/this/supplier' }, operator);
      }
    } finally {
      await ledger.close();
    }
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(() => db.cleanup());

  it(
    'ends a listing quietly after the first line, with the status of a closed pipe',
    async () => {
      const run = await runIntoClosingReader(db.file, ['supplier', 'list', '--json'], { closedAtOnce: false });
      expect(run).toEqual({ firstLine: '[', code: CLOSED_READER_STATUS, stderr: '' });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'ends --help quietly when the reader is gone before it writes',
    async () => {
      const run = await runIntoClosingReader(db.file, ['--help'], { closedAtOnce: true });
      expect(run).toEqual({ firstLine: '', code: CLOSED_READER_STATUS, stderr: '' });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
