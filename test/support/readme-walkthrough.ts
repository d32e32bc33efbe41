import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The README's walk-through as a program: its shell blocks, in order, and what its comments promise. The
 * README is what a new user runs, so the test runs exactly its text, never a copy of it.
 */

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The text of one `## ` section of a Markdown document, up to the next one. */
export function markdownSection(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The ```bash blocks of the README's "Walk-through" section, in order. */
export function walkthroughBlocks(readme: string = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')): string[] {
  const section = markdownSection(readme, 'Walk-through');
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** A line that calls the walk-through's `api` helper (at its start, or after a pipe or a separator). */
const API_CALL = /(?:^|[|;&]\s*)api\s/;
/** The status a line's comment promises: `# 201 ...`. */
const PROMISED_STATUS = /\s#\s+(\d{3})\b/;

/**
 * The HTTP statuses the walk-through's comments promise, one per `api` call, in order. Every call must
 * carry one on its line: a call whose outcome the README does not state is a call the test cannot check.
 */
export function promisedStatuses(blocks: readonly string[]): number[] {
  const statuses: number[] = [];
  for (const line of blocks.join('\n').split('\n')) {
    if (!API_CALL.test(line)) continue;
    const promised = PROMISED_STATUS.exec(line);
    if (!promised) throw new Error(`the README's walk-through calls the API without saying what it answers: ${line}`);
    statuses.push(Number(promised[1]));
  }
  return statuses;
}

/** The statuses the `api` helper printed (`-> 201` on a line of its own), in order. */
export function printedStatuses(stdout: string): number[] {
  return [...stdout.matchAll(/^-> (\d{3})$/gm)].map((match) => Number(match[1]));
}

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` with bash in the project directory (where the README tells the user to be). */
export async function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ScriptRun> {
  const child = spawn('bash', ['-c', script], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/**
 * The blocks as one script for bash, stopping at the first failing command (`set -euo pipefail`), with a
 * marker before each block so that a failure names its step.
 */
export function walkthroughScript(blocks: readonly string[], options: { readonly errexit?: boolean } = {}): string {
  const steps = blocks.map((block, i) => `echo '::block ${i + 1}::'\n${block}`);
  return [`set ${options.errexit === false ? '' : '-e'}uo pipefail`, ...steps].join('\n');
}

/** The environment of the walk-through's shell: the test's own, without anything that points the CLI elsewhere. */
export function walkthroughEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('LEDGER_') || ['NODE_ENV', 'PORT', 'HOST', 'LOG_LEVEL', 'NODE_OPTIONS', 'WORK'].includes(name)) delete env[name];
  }
  return { ...env, ...overrides };
}

export interface Served {
  readonly child: ChildProcess;
  readonly base: string;
  output(): string;
}

/** `serve` from the bundle `npm start` runs, in `cwd`, with `env`; resolves once `/readyz` answers 200. */
export async function startService(env: NodeJS.ProcessEnv, cwd: string, port: number): Promise<Served> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'import-ledger.mjs'), 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const served = { child, base: `http://127.0.0.1:${port}`, output: () => output };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}) before it was ready:\n${output}`);
    const ready = await fetch(`${served.base}/readyz`).then((res) => res.status === 200, () => false);
    if (ready) return served;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`serve was not ready within 60 s:\n${output}`);
}

/** SIGTERM, and SIGKILL if it has not exited 8 s later. */
export async function stopService(served: { readonly child: ChildProcess } | undefined): Promise<void> {
  if (!served || served.child.exitCode !== null || served.child.signalCode !== null) return;
  const exited = once(served.child, 'exit');
  served.child.kill('SIGTERM');
  const timer = setTimeout(() => served.child.kill('SIGKILL'), 8_000);
  await exited;
  clearTimeout(timer);
}

/** Names another process may create or remove at the project's top level meanwhile (a parallel build). */
const TRANSIENT = /^dist\.(build|old)-\d+$|^test-output$/;

/** The database files of a service started in the project by hand (`npm start`), which may be writing meanwhile. */
const LIVE_DATABASE = /^data\/ledger\.db/;

/**
 * What the walk-through could leave in the project if it wrote outside its working folder: the top-level
 * entries, and every file (with its size and time) under the folders its defaults point at (`data/`,
 * `walkthrough/`).
 */
export function projectSnapshot(): string[] {
  const entries = readdirSync(PROJECT_ROOT).filter((name) => !TRANSIENT.test(name)).map((name) => `top: ${name}`);
  const files: string[] = [];
  for (const dir of ['data', 'walkthrough']) {
    const root = join(PROJECT_ROOT, dir);
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      const path = relative(PROJECT_ROOT, join(entry.parentPath, entry.name));
      if (LIVE_DATABASE.test(path)) continue;
      const stat = statSync(join(PROJECT_ROOT, path));
      files.push(`file: ${path} ${stat.isFile() ? `${stat.size} ${stat.mtimeMs}` : 'dir'}`);
    }
  }
  return [...entries, ...files.sort()];
}
