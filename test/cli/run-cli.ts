import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { LedgerLocation } from '../../src/ledger.js';
import { databaseEnv } from '../support/ledger.js';

/** The project directory: the bin is run from there, as `npx import-ledger` would be. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(PROJECT_ROOT, 'bin', 'import-ledger.js');

/** Each spawn pays for tsx start-up (about a second): tests keep their number low and their timeouts generous. */
export const CLI_TEST_TIMEOUT_MS = 90_000;

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of a CLI run: the test's own, minus what would change the CLI's behaviour, plus the overrides. */
export function cliEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NODE_ENV', 'LEDGER_TOKEN_SECRET', 'PORT', 'HOST', 'LOG_LEVEL', 'NODE_OPTIONS']) delete env[name];
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * Runs `node bin/import-ledger.js ...args` against the database `database` (a SQLite file, or any ledger
 * location: LEDGER_DATABASE or LEDGER_DATABASE_URL), with `env` besides; resolves with the exit code, never rejects on a non-zero one.
 */
export function runCli(database: string | LedgerLocation, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: PROJECT_ROOT, env: cliEnv({ ...databaseEnv(typeof database === 'string' ? { sqliteFile: database } : database), ...env }), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? error.code : 0;
        if (typeof code !== 'number') {
          reject(new Error(`import-ledger ${args.join(' ')} did not exit normally: ${error?.message}\n${stderr}`));
          return;
        }
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The actor the CLI records, worked out the way an operator would expect: `operator:<os user>`. */
export function expectedOperatorActor(): string {
  let user = process.env['USER'] ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for the uid: $USER it is.
  }
  return `operator:${user}`;
}

export interface StoredEvent {
  readonly streamId: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/** Reads the database file directly, as an auditor would (no application code in between). */
export function readDatabase<T>(file: string, query: (sqlite: Database.Database) => T): T {
  const sqlite = new Database(file, { fileMustExist: true });
  try {
    return query(sqlite);
  } finally {
    sqlite.close();
  }
}

export function storedEvents(file: string): StoredEvent[] {
  const rows = readDatabase(file, (sqlite) =>
    sqlite.prepare('SELECT stream_id, type, data, metadata FROM events ORDER BY global_position').all(),
  ) as { stream_id: string; type: string; data: string; metadata: string }[];
  return rows.map((row) => ({
    streamId: row.stream_id,
    type: row.type,
    data: JSON.parse(row.data) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  }));
}
