import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/net.js';
import {
  PROJECT_ROOT,
  printedStatuses,
  projectSnapshot,
  promisedStatuses,
  runBash,
  startService,
  stopService,
  walkthroughBlocks,
  walkthroughEnv,
  walkthroughScript,
  type Served,
} from '../support/readme-walkthrough.js';

/**
 * The README's walk-through, run as written: its shell blocks in order, with bash, against a real service
 * (the bundle `npm start` runs) on a fresh database, the port and the folders from the variables the
 * README documents. It must succeed step by step, every API call must answer the status its comment
 * promises, what it writes must land in its working folder, and nothing in the project may change.
 */

const RUN_TIMEOUT_MS = 240_000;

const gitStatus = () =>
  existsSync(join(PROJECT_ROOT, '.git'))
    ? execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    : '';

/** The rows of a CSV file the walk-through wrote (no quoted commas in these). */
function csvRows(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split(/\r?\n/);
  const names = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i]!, value])));
}

/** A migrate report's line for one item. */
const reportLine = (rows: Record<string, string>[], step: string, id: string) => rows.find((row) => row['step'] === step && row['id'] === id);

describe('the README walk-through', () => {
  const blocks = walkthroughBlocks();
  let dir: string;
  let served: Served | undefined;
  let env: (work: string) => NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The walk-through is a user's shell session: bash, curl and the usual text tools, as on any workstation.
    for (const tool of ['bash', 'curl', 'sed', 'cut']) {
      try {
        execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      } catch {
        throw new Error(`the README's walk-through needs ${tool} on the PATH`);
      }
    }
    // The service runs from the bundle, as `npm start` runs it: built from the sources under test.
    execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.mjs')], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    dir = mkdtempSync(join(tmpdir(), 'import-ledger-walkthrough-'));
    const port = await freePort();
    const location = { LEDGER_DATABASE: join(dir, 'ledger.db'), LEDGER_DOCUMENT_STORE: join(dir, 'documents') };
    const serverCwd = join(dir, 'server');
    mkdirSync(serverCwd);
    served = await startService(walkthroughEnv({ ...location, HOST: '127.0.0.1', PORT: String(port) }), serverCwd, port);
    env = (work) => walkthroughEnv({ ...location, LEDGER_URL: served!.base, WORK: work });
  }, 120_000);

  afterAll(async () => {
    await stopService(served);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('promises a status for every API call it makes', () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(promisedStatuses(blocks).length).toBeGreaterThan(15);
  });

  it(
    'runs as written on a fresh service, each call answering what it promises, writing only into its working folder',
    async () => {
      const work = join(dir, 'work');
      const projectBefore = projectSnapshot();
      const gitBefore = gitStatus();

      const run = await runBash(walkthroughScript(blocks), env(work), RUN_TIMEOUT_MS);
      const transcript = `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n--- service\n${served!.output()}`;

      expect(run.code, transcript).toBe(0);
      expect(printedStatuses(run.stdout), transcript).toEqual(promisedStatuses(blocks));
      // The team of step 2 is the one the first start made; the list page of step 8 has a next page.
      expect(run.stdout, transcript).toMatch(/^Migrations$/m);
      expect(run.stdout, transcript).toMatch(/^link: <\/v1\/data-import\/all-account-import-processes\/LEGACY_ENERGIE\/\?limit=2&after=[^>]+>; rel="next"/im);
      expect(run.stdout.match(/NOTE_CREATION_SUCCESS/g)?.length, transcript).toBe(2);
      // The two migrate runs that leave an item failed say so, and go on.
      expect(run.stdout.match(/^exit code 1 \(/gm)?.length, transcript).toBe(2);

      // The dry run: the business skipped, so its account fails; the broken account fails; the first is known.
      const dryRun = csvRows(join(work, 'dry-run.csv'));
      expect(reportLine(dryRun, 'businesses', 'BIZ-000123')?.['outcome']).toBe('skipped');
      expect(reportLine(dryRun, 'accounts', 'LEG-B-0000042')).toMatchObject({ outcome: 'failed', error_items: 'business.business_contract_identifier:business_contract_not_found' });
      expect(reportLine(dryRun, 'accounts', 'LEG-0000003')).toMatchObject({ outcome: 'failed', error_items: 'customers.0.mobile:invalid_phone_number' });
      expect(reportLine(dryRun, 'accounts', 'LEG-0000001')?.['outcome']).toBe('already imported');
      // The re-run after the fix sent only the fixed account.
      const migration = csvRows(join(work, 'migration.csv'));
      expect(reportLine(migration, 'accounts', 'LEG-0000003')?.['outcome']).toBe('imported');
      expect(migration.filter((row) => row['outcome'] !== 'already imported').map((row) => row['id'])).toEqual(['LEG-0000003']);
      // The cut-over file: the three accounts imported, LEG-0000001 with its records and its transfer status.
      const reconciliation = csvRows(join(work, 'reconciliation.csv'));
      expect(reconciliation.map((row) => [row['external_account_number'], row['state']]).sort()).toEqual([
        ['LEG-0000001', 'imported'],
        ['LEG-0000003', 'imported'],
        ['LEG-B-0000042', 'imported'],
      ]);
      expect(reconciliation.find((row) => row['external_account_number'] === 'LEG-0000001')).toMatchObject({
        transfer_status: 'IN_PROGRESS',
        note_count: '3',
        transaction_count: '5',
        historical_statement_count: '2',
      });

      expect(projectSnapshot()).toEqual(projectBefore);
      expect(gitStatus()).toBe(gitBefore);
    },
    RUN_TIMEOUT_MS + 30_000,
  );

  it('stops at the token step with the service\'s reason when the key is wrong, and leaves TOKEN empty', async () => {
    const setup = blocks[0]!;
    const tokenStep = blocks.find((block) => block.includes('obtainToken'));
    expect(tokenStep).toBeDefined();
    const steps = [setup, "KEY='ilk_not-a-key'", tokenStep!, 'echo "TOKEN=[$TOKEN]"'];

    const stopped = await runBash(walkthroughScript(steps), env(join(dir, 'wrong-key')), 60_000);
    expect(stopped.code).not.toBe(0);
    expect(stopped.stderr).toContain('no token:');
    expect(stopped.stderr).toContain('authentication_failed');
    expect(stopped.stdout).not.toContain('TOKEN=');

    // Pasted into a terminal (no `set -e`), the step goes on with an empty token, never an error text.
    const pasted = await runBash(walkthroughScript(steps, { errexit: false }), env(join(dir, 'wrong-key')), 60_000);
    expect(pasted.stdout).toContain('TOKEN=[]');
    expect(pasted.stderr).toContain('authentication_failed');
  });
});
