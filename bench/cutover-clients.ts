// `import-ledger migrate` and `import-ledger verify` as the cut-over bench runs them: the built CLI in a
// child process of its own (its CPU written at exit by bench/cpu-at-exit.mjs), watched by the meters, its
// summary line read from stdout and its progress lines passed on, a few a minute.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Meters, Side } from './cutover-meters.js';
import { clientNodeFlags, root } from './lib.js';

const bin = join(root, 'bin/import-ledger.js');
/** A step's progress line is passed on at most this often (migrate writes one every 5 s per step). */
const PROGRESS_EVERY_MS = 30_000;

export interface ClientRun {
  readonly child: ChildProcess;
  readonly done: Promise<ClientResult>;
}

export interface ClientResult {
  readonly side: Side;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly seconds: number;
  /** The JSON line the command prints on stdout at its end (null when it was killed first). */
  readonly summary: Record<string, unknown> | null;
  readonly stderrTail: string;
}

export function runClient(side: Side, args: readonly string[], env: Record<string, string>, meters: Meters, cpuFile: string, progress: (line: string) => void): ClientRun {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...clientNodeFlags(), '--import', pathToFileURL(join(root, 'bench/cpu-at-exit.mjs')).href, bin, side, ...args], {
    cwd: root,
    env: { ...process.env, ...env, BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  meters.watch(side, child.pid!);
  let stdout = '';
  let stderr = '';
  let pending = '';
  const lastShown = new Map<string, number>();
  child.stdout!.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-100_000)));
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    stderr = (stderr + text).slice(-4_000);
    const lines = (pending + text).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{"progress"')) continue;
      const p = JSON.parse(line) as { progress: string; done: number; total: number | null; failed: number; retries: number; per_second: number; finished: boolean };
      const now = performance.now();
      if (!p.finished && now - (lastShown.get(p.progress) ?? -Infinity) < PROGRESS_EVERY_MS) continue;
      lastShown.set(p.progress, now);
      progress(`    ${side} ${p.progress}: ${p.done.toLocaleString()}/${p.total?.toLocaleString() ?? '?'} (${p.per_second}/s), failed ${p.failed}, retries ${p.retries}${p.finished ? ', finished' : ''}`);
    }
  });
  const done = new Promise<ClientResult>((resolve) =>
    child.once('exit', (code, signal) => {
      if (existsSync(cpuFile)) {
        const cpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
        meters.settleCpu(child.pid!, (cpu.user + cpu.system) / 1000);
      }
      const last = stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
      resolve({
        side,
        code,
        signal,
        seconds: (performance.now() - startedAt) / 1000,
        summary: last ? (JSON.parse(last) as Record<string, unknown>) : null,
        stderrTail: stderr,
      });
    }),
  );
  return { child, done };
}

/**
 * Resolves once the journal holds `count` settled accounts (polled every half second, only its new bytes
 * read), or when `stop` says the run it follows is over. Settled accounts are what a killed `migrate`
 * would skip on its re-run, so "half the accounts" means half of them on record.
 */
export async function journalReaches(file: string, count: number, stop: () => boolean): Promise<boolean> {
  let offset = 0;
  let settled = 0;
  let tail = '';
  const marker = '"step":"accounts"';
  while (!stop()) {
    if (existsSync(file)) {
      const size = statSync(file).size;
      if (size > offset) {
        const fd = openSync(file, 'r');
        const buffer = Buffer.alloc(size - offset);
        readSync(fd, buffer, 0, buffer.length, offset);
        closeSync(fd);
        offset = size;
        const lines = (tail + buffer.toString()).split('\n');
        tail = lines.pop()!;
        for (const line of lines) if (line.includes(marker)) settled++;
        if (settled >= count) return true;
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/** A report's lines that `keep` picks (at most `limit`), read a line at a time: what to look at when a run goes wrong. */
export async function reportLines(report: string, keep: (line: string) => boolean, limit = 1_000): Promise<string[]> {
  if (!existsSync(report)) return [];
  const found: string[] = [];
  const lines = createInterface({ input: createReadStream(report), crlfDelay: Infinity });
  for await (const line of lines) {
    if (keep(line)) found.push(line);
    if (found.length >= limit) break;
  }
  lines.close();
  return found;
}
