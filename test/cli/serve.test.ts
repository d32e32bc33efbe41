import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDatabaseFile } from '../support/ledger.js';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv, readDatabase } from './run-cli.js';
import { freePort } from '../support/net.js';
import { stopService } from '../support/readme-walkthrough.js';
import { checkedFetch } from '../support/openapi-check.js';

interface Served {
  readonly child: ChildProcess;
  readonly base: string;
  stdout(): string;
  stderr(): string;
}

/** What `npm start` runs: the bundle scripts/build.mjs writes. */
const BUNDLE = join(PROJECT_ROOT, 'dist', 'import-ledger.mjs');

function startServe(entry: string, file: string, port: number, nodeEnv: string | undefined): Served {
  const child = spawn(process.execPath, [entry, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ LEDGER_DATABASE: file, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: nodeEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { child, base: `http://127.0.0.1:${port}`, stdout: () => stdout, stderr: () => stderr };
}

/** Polls until `check` holds, the child exits, or the deadline passes. */
async function waitFor(served: Served, what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (served.child.exitCode !== null) {
      throw new Error(`serve exited (${served.child.exitCode}) before ${what}\nstdout: ${served.stdout()}\nstderr: ${served.stderr()}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}\nstdout: ${served.stdout()}\nstderr: ${served.stderr()}`);
}

const healthy = (served: Served) => async () => (await checkedFetch(`${served.base}/healthz`)).status === 200;

beforeAll(() => {
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.mjs')], { cwd: PROJECT_ROOT, stdio: 'inherit' });
});

describe.each([
  ['npx import-ledger serve (TypeScript through tsx)', BIN],
  ['npm start (the bundle, dist/import-ledger.mjs)', BUNDLE],
])('%s', (_name, entry) => {
  let db: { file: string; cleanup: () => void };
  let served: Served | undefined;
  beforeEach(() => {
    db = tempDatabaseFile();
    served = undefined;
  });
  afterEach(async () => {
    await stopService(served);
    db.cleanup();
  });

  it(
    'on a fresh database outside production prints a working demo key and a curl line, once',
    async () => {
      const port = await freePort();
      const s = (served = startServe(entry, db.file, port, undefined));
      await waitFor(s, '/healthz to answer 200', healthy(s));
      await waitFor(s, 'the curl line on stdout', async () => s.stdout().includes('curl'));

      const health = await checkedFetch(`${s.base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });

      const out = s.stdout();
      const key = /^\s*(ilk_\S+)\s*$/m.exec(out)?.[1];
      expect(key, out).toBeTruthy();
      const curl = out.split('\n').find((line) => line.trim().startsWith('curl'));
      expect(curl).toContain(`${s.base}/v1/graphql/`);
      expect(curl).toContain(key);

      // The printed key obtains a token from the running server, and the token reads the demo supplier's list.
      const tokenRes = await checkedFetch(`${s.base}/v1/graphql/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($key: String!) { obtainToken(input: {APIKey: $key}) { token } }',
          variables: { key },
        }),
      });
      expect(tokenRes.status).toBe(200);
      const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } | null } }).data.obtainToken?.token;
      expect(token).toBeTruthy();
      const list = await checkedFetch(`${s.base}/v1/data-import/pending-account-import-processes/DEMO/`, {
        headers: { authorization: `Token ${token}` },
      });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual([]);

      // Once: a restart on the same database prints no new key.
      await stopService(s);
      const again = (served = startServe(entry, db.file, await freePort(), undefined));
      await waitFor(again, '/healthz to answer 200 after a restart', healthy(again));
      expect(again.stdout()).not.toContain('ilk_');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'with NODE_ENV=production prints no demo key and creates no demo data',
    async () => {
      const port = await freePort();
      const s = (served = startServe(entry, db.file, port, 'production'));
      await waitFor(s, '/healthz to answer 200', healthy(s));
      expect(s.stdout()).not.toContain('ilk_');
      expect(s.stdout()).not.toContain('curl');
      await stopService(s);
      const suppliers = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT code FROM import_suppliers').all());
      const keys = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT key_id FROM api_keys').all());
      expect(suppliers).toEqual([]);
      expect(keys).toEqual([]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
