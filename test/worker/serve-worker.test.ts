import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv, readDatabase } from '../cli/run-cli.js';
import { startFakeOperator, type FakeOperator } from '../support/fake-operator.js';
import { tempDatabaseFile } from '../support/ledger.js';
import { freePort } from '../support/net.js';
import { checkedFetch } from '../support/openapi-check.js';


async function until<T>(what: string, child: ChildProcess, output: () => string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited before ${what}:\n${output()}`);
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}:\n${output()}`);
}

describe('import-ledger serve runs the populate worker', () => {
  let db: { file: string; cleanup: () => void };
  let fake: FakeOperator;
  let child: ChildProcess | undefined;
  beforeEach(async () => {
    db = tempDatabaseFile();
    fake = await startFakeOperator();
  });
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await fake.close();
    db.cleanup();
  });

  it(
    'a batch posted to the server is worked through in the background; SIGTERM stops it cleanly',
    async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      child = spawn(process.execPath, [BIN, 'serve'], {
        cwd: PROJECT_ROOT,
        env: cliEnv({
          LEDGER_DATABASE: db.file,
          HOST: '127.0.0.1',
          PORT: String(port),
          LEDGER_ELECTRICITY_OPERATOR_URL: fake.url,
          LEDGER_GAS_OPERATOR_URL: fake.url,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const s = child;
      const key = await until('the demo key', s, () => out, async () => /^\s*(ilk_\S+)\s*$/m.exec(out)?.[1]);
      const token = await until('a token', s, () => out, async () => {
        const res = await checkedFetch(`${base}/v1/graphql/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
        });
        return ((await res.json()) as { data: { obtainToken: { token: string } | null } }).data.obtainToken?.token;
      });
      const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };

      fake.script('09111642617347', [{ kind: 'found' }]);
      fake.script('GI123456', [{ kind: 'found' }]);
      const created = await checkedFetch(`${base}/v1/data-import/supply-point/populate/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prm_ids: ['09111642617347'], pce_ids: ['GI123456'], customer_category: 'Domestic' }),
      });
      expect(created.status).toBe(201);
      const { batch_id } = (await created.json()) as { batch_id: string };

      const done = await until('the batch to complete', s, () => out, async () => {
        const res = await checkedFetch(`${base}/v1/data-import/supply-point/populate/${batch_id}/`, { headers });
        const body = (await res.json()) as { status: string };
        return body.status === 'COMPLETED' ? body : undefined;
      });
      expect(done).toEqual({
        status: 'COMPLETED',
        imported_requests: { prm_ids: ['09111642617347'], pce_ids: ['GI123456'] },
        pending_requests: { prm_ids: [], pce_ids: [] },
        errored_requests: { prms: [], pces: [] },
      });

      const exited = once(s, 'exit');
      s.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      const actors = readDatabase(db.file, (sqlite) =>
        sqlite
          .prepare("SELECT DISTINCT json_extract(metadata, '$.actor') AS actor FROM events WHERE stream_id LIKE 'supply-point-populate-request:%'")
          .all(),
      );
      expect(actors).toEqual([{ actor: 'system:populate-worker' }]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
