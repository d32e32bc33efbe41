import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, markdownSection } from '../support/readme-walkthrough.js';

/**
 * The documentation follows the code: the README stays a short guide, its command table names every
 * command the command line has, and every link in the documents leads to a file (and heading) of the
 * repository, so a clone alone reads them whole.
 */

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'bin', 'import-ledger.js');
const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

const DOCUMENTS = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The commands a `--help` output lists under "Commands:", without commander's own `help`. */
function commandsOf(help: string): string[] {
  const listed = help.slice(help.indexOf('\nCommands:\n'));
  return [...listed.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

const help = async (...args: string[]) => (await run(process.execPath, [BIN, ...args, '--help'], { cwd: PROJECT_ROOT })).stdout;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe('the documentation', () => {
  it('keeps the README a guide of at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('lists every command of the command line in the README table', { timeout: 60_000 }, async () => {
    const table = markdownSection(readme, 'The command line');
    const groups = commandsOf(await help());
    expect(groups).toContain('migrate');
    const missing: string[] = [];
    for (const group of groups) {
      const subcommands = commandsOf(await help(group));
      const names = subcommands.length > 0 ? subcommands.map((sub) => `${group} ${sub}`) : [group];
      for (const name of names) if (!new RegExp(`\`${name}[\\s\`]`).test(table)) missing.push(name);
    }
    expect(missing).toEqual([]);
  });

  it.each(DOCUMENTS)('%s links only to files and headings inside the repository', (document) => {
    const text = readFileSync(join(PROJECT_ROOT, document), 'utf8');
    expect(text).not.toContain('../shared');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? join(PROJECT_ROOT, document) : resolve(dirname(join(PROJECT_ROOT, document)), path);
      if (relative(PROJECT_ROOT, file).startsWith('..') || !existsSync(file)) {
        broken.push(`${target}: no such file in the repository`);
      } else if (anchor !== undefined && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});
