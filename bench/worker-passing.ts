// tsx bench/worker-passing.ts [--messages=N]: what handing a write to the SQLite writer thread costs the event
// loop, for the stage command (the ~5 KB account payload) and an answer of its size (the stored event, which
// holds the payload, and the state): posted as objects (structured clone, what src/store/sqlite/writer-thread.ts
// does: it keeps the deciders' Sets and Maps) and, for comparison, as JSON text (stringified on one side,
// parsed on the other). Prints the main thread's busy time per write (post and answer handling, timed around
// the synchronous parts), the worker's, and the round trip one at a time and 10 in flight.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { root } from './lib.js';

const MESSAGES = Number(process.argv.find((a) => a.startsWith('--messages='))?.split('=')[1] ?? 20_000);
const payload = JSON.parse(
  readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8').replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`),
) as Record<string, unknown>;
const command = (id: number) => ({
  op: 'handleMany',
  commands: [{ streamId: `account-import-process:BENCH:${id}`, decider: 'accountImportProcess', command: { type: 'StageAccount', importSupplier: 'BENCH', externalAccountNumber: `${id}`, payload, supplierStatus: 'Ongoing', now: new Date().toISOString() } }],
  write: { metadata: { actor: 'api-key:bench', requestId: `r${id}`, correlationId: `r${id}`, causationId: `c${id}` }, guards: [{ streamId: 'import-supplier:BENCH', expectedVersion: 1 }] },
});
const answer = {
  results: [
    {
      events: [{ globalPosition: 1, streamId: 'account-import-process:BENCH:1', streamPosition: 1, event: { type: 'AccountStaged', version: 1, data: { payload } }, metadata: { eventId: 'e' }, recordedAt: new Date().toISOString() }],
      state: { status: 'staged', payload },
      streamVersion: 1,
    },
  ],
};

for (const mode of ['objects', 'json'] as const) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     let busy = 0;
     parentPort.on('message', (m) => {
       if (m === 'report') return parentPort.postMessage({ busy });
       const t = performance.now();
       const request = workerData.json ? JSON.parse(m.request) : m.request;
       if (!request.commands[0].command.payload) throw new Error('unparsed');
       parentPort.postMessage({ id: m.id, value: workerData.json ? JSON.stringify(workerData.answer) : workerData.answer });
       busy += performance.now() - t;
     });`,
    { eval: true, workerData: { answer, json: mode === 'json' } },
  );
  let mainBusy = 0;
  const pending = new Map<number, () => void>();
  worker.on('message', (m: { id?: number; value?: unknown }) => {
    if (m.id === undefined) return;
    const t = performance.now();
    const value = mode === 'json' ? (JSON.parse(m.value as string) as typeof answer) : (m.value as typeof answer);
    if (value.results.length !== 1) throw new Error('no results');
    pending.get(m.id)!();
    pending.delete(m.id);
    mainBusy += performance.now() - t;
  });
  let nextId = 0;
  const send = (): Promise<void> => {
    const t = performance.now();
    const id = nextId++;
    const done = new Promise<void>((resolve) => pending.set(id, resolve));
    const request = command(id);
    worker.postMessage({ id, request: mode === 'json' ? JSON.stringify(request) : request });
    mainBusy += performance.now() - t;
    return done;
  };
  const phase = async (name: string, inFlight: number) => {
    mainBusy = 0;
    const started = performance.now();
    let sent = 0;
    const lane = async () => {
      while (sent < MESSAGES) {
        sent++;
        await send();
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
    const wall = performance.now() - started;
    console.log(`${mode.padEnd(7)} ${name}: ${((wall * 1000) / MESSAGES).toFixed(1)} µs a round trip (wall), main thread busy ${((mainBusy * 1000) / MESSAGES).toFixed(1)} µs a write`);
  };
  await phase('warm-up', 10);
  await phase('one at a time', 1);
  await phase('10 in flight', 10);
  worker.postMessage('report');
  const report = await new Promise<{ busy: number }>((resolve) => worker.once('message', resolve));
  console.log(`${mode.padEnd(7)} worker busy ${((report.busy * 1000) / (MESSAGES * 3)).toFixed(1)} µs a write; command ${JSON.stringify(command(0)).length} bytes as JSON, answer ${JSON.stringify(answer).length}`);
  await worker.terminate();
}
