// Our store's append beside Emmett's SQLite event store (the TypeScript peer), same machine, same run:
// 1 KB events, one event per append, WAL + synchronous=FULL for both. Prints JSON.
// Usage: tsx bench/peers/append.ts [--appends N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSQLiteEventStore } from '@event-driven-io/emmett-sqlite';
import { openLedger } from '../../src/ledger.js';

const APPENDS = Number(process.argv[process.argv.indexOf('--appends') + 1] || 2_000);
const CALLERS = 10;
const payload = 'x'.repeat(1_000);
const work = mkdtempSync(join(tmpdir(), 'import-ledger-peers-'));
const metadata = { actor: 'bench', requestId: null, correlationId: null, causationId: null };

interface Figure {
  store: string;
  mode: string;
  appends: number;
  failed: number;
  /** Appends not attempted because the run hit its deadline (a stalled store). */
  notAttempted: number;
  seconds: number;
  appendsPerSecond: number;
}

/** No scenario may run longer than this: a stalled peer is reported, not waited for. */
const DEADLINE_SECONDS = 20;

async function measure(store: string, mode: string, callers: number, append: (caller: number, i: number) => Promise<void>): Promise<Figure> {
  const perCaller = Math.floor(APPENDS / callers);
  let failed = 0;
  let notAttempted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let i = 0; i < perCaller; i++) {
        if ((performance.now() - started) / 1000 > DEADLINE_SECONDS) {
          notAttempted += perCaller - i;
          return;
        }
        try {
          await append(caller, i);
        } catch {
          failed++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const appends = perCaller * callers - failed - notAttempted;
  return { store, mode, appends, failed, notAttempted, seconds, appendsPerSecond: Math.round(appends / seconds) };
}

async function main() {
  const figures: Figure[] = [];

  const ours = await openLedger({ sqliteFile: join(work, 'ours.db') });
  const event = (i: number) => ({
    type: 'ImportSupplierConfigChanged' as const,
    version: 1 as const,
    data: { code: 'PEER', documentRoot: `${payload}${i}`, changedAt: '2026-01-01T00:00:00.000Z' },
  });
  figures.push(await measure('import-ledger', 'sequential', 1, (c, i) => ours.store.appendToStream(`peer:seq`, i, [event(i)], { metadata }).then(() => undefined)));
  figures.push(
    await measure('import-ledger', `${CALLERS} concurrent`, CALLERS, (c, i) =>
      ours.store.appendToStream(`peer:${c}`, i, [event(i)], { metadata }).then(() => undefined),
    ),
  );
  await ours.close();

  const emmett = getSQLiteEventStore({ fileName: join(work, 'emmett.db'), schema: { autoMigration: 'CreateOrUpdate' } });
  const emmettEvent = (i: number) => ({ type: 'PeerConfigChanged', data: { code: 'PEER', documentRoot: `${payload}${i}` } });
  figures.push(await measure('emmett-sqlite 0.38.5', 'sequential', 1, (c, i) => emmett.appendToStream('peer-seq', [emmettEvent(i)]).then(() => undefined)));
  figures.push(
    await measure('emmett-sqlite 0.38.5', `${CALLERS} concurrent`, CALLERS, (c, i) =>
      emmett.appendToStream(`peer-${c}`, [emmettEvent(i)]).then(() => undefined),
    ),
  );

  const ratio = (mode: string) => {
    const a = figures.find((f) => f.store === 'import-ledger' && f.mode === mode)!;
    const b = figures.find((f) => f.store !== 'import-ledger' && f.mode === mode)!;
    // A peer that stored nothing in the time allowed gets the ratio against one append.
    return Math.round((a.appendsPerSecond / Math.max(b.appendsPerSecond, 1 / b.seconds)) * 10) / 10;
  };
  process.stdout.write(`${JSON.stringify({ figures, ratioSequential: ratio('sequential'), ratioConcurrent: ratio(`${CALLERS} concurrent`) })}\n`);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
