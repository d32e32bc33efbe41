import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv, readDatabase } from '../cli/run-cli.js';
import { loadExample, tempDatabaseFile } from '../support/ledger.js';
import { freePort } from '../support/net.js';
import { checkedFetch } from '../support/openapi-check.js';

/**
 * A v2 creation scheduled on a real server survives the server's
 * death (SIGKILL before its window opens) and runs, once, on the restarted
 * one: the schedule was only ever in the log.
 */

interface Server {
  readonly child: ChildProcess;
  readonly base: string;
  output(): string;
}

function startServer(file: string, port: number): Server {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ LEDGER_DATABASE: file, HOST: '127.0.0.1', PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return { child, base: `http://127.0.0.1:${port}`, output: () => out };
}

async function until<T>(what: string, server: Server, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`serve exited before ${what}:\n${server.output()}`);
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}:\n${server.output()}`);
}

async function kill(server: Server, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill(signal);
  await exited;
}

describe('import-ledger serve runs scheduled account creations', () => {
  let db: { file: string; cleanup: () => void };
  const servers: Server[] = [];
  beforeEach(() => {
    db = tempDatabaseFile();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await kill(server, 'SIGKILL');
    db.cleanup();
  });

  it(
    'a creation scheduled before a SIGKILL runs after the restart, as soon as its window opens, once',
    async () => {
      const port = await freePort();
      const first = startServer(db.file, port);
      servers.push(first);
      const key = await until('the demo key', first, async () => /^\s*(ilk_\S+)\s*$/m.exec(first.output())?.[1]);
      const token = async (server: Server) =>
        until('a token', server, async () => {
          const res = await checkedFetch(`${server.base}/v1/graphql/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }', variables: { k: key } }),
          });
          return ((await res.json()) as { data: { obtainToken: { token: string } | null } }).data.obtainToken?.token;
        });
      const headers = { authorization: `Token ${await token(first)}`, 'content-type': 'application/json' };
      expect((await checkedFetch(`${first.base}/v1/data-import/products/`, { method: 'POST', headers, body: JSON.stringify(loadExample('products.json')) })).status).toBe(201);
      const payload: Record<string, unknown> = { ...loadExample('account-domestic.json'), import_supplier: 'DEMO', operations_team_name: 'Migrations' };
      const windowStart = new Date(Date.now() + 6_000).toISOString();
      const scheduled = await checkedFetch(`${first.base}/v2/data-import/accounts/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ payload, task_params: { schedule_window_start: windowStart } }),
      });
      expect(scheduled.status, await scheduled.clone().text()).toBe(201);
      await kill(first, 'SIGKILL');

      const second = startServer(db.file, port);
      servers.push(second);
      const again = { authorization: `Token ${await token(second)}` };
      const statusUrl = `${second.base}/v2/data-import/accounts/DEMO/${String(payload['external_account_number'])}/`;
      const pending = (await (await checkedFetch(statusUrl, { headers: again })).json()) as { status: string };
      expect(pending.status).toBe('PENDING');
      const done = await until('the creation to run', second, async () => {
        const body = (await (await checkedFetch(statusUrl, { headers: again })).json()) as { status: string; platform_identifier: string | null; latest_event: { occurred_at: string } };
        return body.status === 'PROCESSED' ? body : undefined;
      });
      expect(done.platform_identifier).toMatch(/^A-[0-9A-F]{8}$/);
      expect(Date.parse(done.latest_event.occurred_at)).toBeGreaterThanOrEqual(Date.parse(windowStart));
      await kill(second, 'SIGTERM');
      const processed = readDatabase(db.file, (sqlite) =>
        sqlite.prepare("SELECT json_extract(metadata, '$.actor') AS actor FROM events WHERE type = 'AccountProcessed'").all(),
      );
      expect(processed).toEqual([{ actor: 'system:scheduler' }]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
