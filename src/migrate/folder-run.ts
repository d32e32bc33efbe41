import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createApiClient, type ApiAnswer, type VerifyClient } from './api-client.js';
import { makeReportFolder } from './report.js';
import { DEFAULT_RETRY_POLICY, createSender, type Outcome, type RetryPolicy, type Sender } from './retry.js';
import { TokenRefused, createTokenSource } from './token-source.js';

/** What `migrate` and `verify` both take: a folder, a service and a supplier, over HTTP. */
export interface FolderRunOptions {
  readonly dir: string;
  readonly baseUrl: string;
  readonly supplier: string;
  readonly apiKey: string;
  readonly concurrency: number;
  readonly reportFile: string | null;
  readonly retry?: RetryPolicy;
  readonly progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  readonly progressIntervalMs?: number;
  /** Set by Ctrl-C: no new item is started; those in flight finish (or give up waiting to retry). */
  readonly stopRequested?: () => boolean;
}

/**
 * The run stops before it is done: the service could not be used at all (no answer), or what the command was
 * given cannot work (`usage`, exit 2: a refused key, a supplier outside the key's scope, a team the service
 * does not have). Printed as its one line, and the `hint` on what to do where there is one.
 */
export class MigrationAborted extends Error {
  override name = 'MigrationAborted';
  constructor(
    message: string,
    readonly usage: boolean,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** What a folder command talks to: the client, its sender (retries, tokens) and the service's identity. */
export interface Connection {
  readonly client: VerifyClient;
  readonly sender: Sender;
  readonly serviceId: string;
}

/** The connection once the service gave a first token and its identity; `timeoutMs` for one request. */
export async function connect(options: FolderRunOptions, timeoutMs: number, onRetry?: () => void): Promise<Connection> {
  const client = createApiClient({ baseUrl: options.baseUrl, timeoutMs, maxSockets: options.concurrency + 2 });
  const tokens = createTokenSource(client, options.apiKey);
  const sender = createSender(tokens, options.retry ?? DEFAULT_RETRY_POLICY, { stopped: options.stopRequested ?? (() => false), ...(onRetry ? { onRetry } : {}) });
  try {
    await tokens.current();
  } catch (error) {
    client.close();
    if (error instanceof TokenRefused) throw new MigrationAborted(error.message, true);
    throw new MigrationAborted(`no token: ${error instanceof Error ? error.message : String(error)}`, false);
  }
  try {
    const identity = answered<{ service_id?: unknown }>(await sender.send((token) => client.serviceIdentity(token)), "reading the service's identity");
    const serviceId = typeof identity.body === 'object' && identity.body !== null ? identity.body.service_id : undefined;
    if (identity.status !== 200 || typeof serviceId !== 'string') throw new MigrationAborted(`reading the service's identity answered ${identity.status}: is ${options.baseUrl} an import-ledger service?`, false);
    return { client, sender, serviceId };
  } catch (error) {
    client.close();
    throw error;
  }
}

/** The service's answer, or the run stops: without it nothing can be judged. A 401 or 403 is bad usage. */
export function answered<B>(outcome: Outcome<unknown>, what: string): ApiAnswer<B> {
  if (outcome.kind === 'interrupted') throw new MigrationAborted('interrupted', false);
  if (outcome.kind === 'no-answer') throw new MigrationAborted(`${what}: the service did not answer: ${outcome.error}`, false);
  const answer = outcome.answer as ApiAnswer<B>;
  if (answer.status === 401 || answer.status === 403) throw new MigrationAborted(`${what} answered ${answer.status}: does the supplier exist, and is the key scoped to it?`, true);
  return answer;
}

/** The entries of a paged list, page by page: each page a 200 with an array, the next one its Link rel="next" (limit, after). */
export async function* pagedList<Q, E>(sender: Sender, baseUrl: string, first: Q, read: (query: Q, token: string) => Promise<ApiAnswer<unknown>>, what: string): AsyncGenerator<E[]> {
  let query: Q | null = first;
  while (query) {
    const page: Q = query;
    const answer = answered(await sender.send((token) => read(page, token)), what);
    if (answer.status !== 200 || !Array.isArray(answer.body)) throw new MigrationAborted(`${what} answered ${answer.status}`, false);
    yield answer.body as E[];
    const link = answer.next ? new URL(answer.next, baseUrl) : null;
    query = link ? (Object.fromEntries(link.searchParams) as Q) : null;
  }
}

/** Runs `work` on every item, `concurrency` at a time, until the items run out or a stop is asked for. */
export async function pool<T>(items: AsyncIterable<T> | Iterable<T>, concurrency: number, stopped: () => boolean, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  const worker = async () => {
    while (!stopped()) {
      const next = await iterator.next();
      if (next.done) return;
      await work(next.value);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

/** Ctrl-C: the first asks the run to stop (`message` says what happens), the second quits at once (exit 130). */
function onCtrlC(message: string): { stopRequested: () => boolean; dispose: () => void } {
  let stopping = false;
  const handler = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\n${message}\n`);
  };
  process.on('SIGINT', handler);
  return { stopRequested: () => stopping, dispose: () => process.off('SIGINT', handler) };
}

/** The options every folder command takes, as commander parses them. */
export interface FolderCliOptions {
  readonly url: string;
  readonly supplier: string;
  readonly apiKey?: string;
  readonly concurrency: number;
  readonly report?: string;
}

/**
 * Runs a folder command (migrate, verify): refuses bad usage before any request (`usage` reports it, exit
 * 2), stops on Ctrl-C as `stopMessage` says, and returns the exit code of `run`, or of a run that stopped
 * (MigrationAborted: 2 for what it was given, else 1; 130 when interrupted).
 */
export async function runFolderCommand(
  dir: string,
  opts: FolderCliOptions,
  usage: (message: string) => never,
  stopMessage: string,
  run: (options: FolderRunOptions) => Promise<number>,
): Promise<number> {
  if (!opts.apiKey) usage('no API key: give --api-key or set LEDGER_API_KEY');
  const ctrlC = onCtrlC(stopMessage);
  try {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MigrationAborted(`${dir} is not a folder`, true);
    const reportFile = opts.report ? resolve(opts.report) : null;
    const reportProblem = reportFile ? makeReportFolder(reportFile) : null;
    if (reportProblem) throw new MigrationAborted(reportProblem, true);
    // A test hook: progress lines every N ms instead of every 5 s.
    const progressMs = numberFromEnv('LEDGER_MIGRATE_PROGRESS_MS');
    const { url: baseUrl, supplier, concurrency } = opts;
    const options = { dir, baseUrl, supplier, apiKey: opts.apiKey as string, concurrency, reportFile, stopRequested: ctrlC.stopRequested };
    return await run(progressMs === undefined ? options : { ...options, progressIntervalMs: progressMs });
  } catch (error) {
    if (!(error instanceof MigrationAborted)) throw error;
    process.stderr.write(`error: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    return error.message === 'interrupted' ? 130 : error.usage ? 2 : 1;
  } finally {
    ctrlC.dispose();
  }
}

export const numberFromEnv = (name: string): number | undefined => {
  const value = process.env[name];
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
};
