// tsx bench/worker-passing.ts [--messages=N]: what handing a write to a worker thread costs, the way a writer
// thread would be handed it: the main thread posts the validated body as JSON text (the stage payload, ~5 KB)
// with a few fields, the worker parses it and answers with the stored events as JSON text (~1 KB), which the
// main thread parses. Prints the main thread's busy time per write (post + answer handling, timed around the
// synchronous parts), the worker's (parse), and the round trip one at a time and 10 in flight.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { root } from './lib.js';

const MESSAGES = Number(process.argv.find((a) => a.startsWith('--messages='))?.split('=')[1] ?? 20_000);
const example = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8').replace('"segment": "GOLD"', `"segment": "GOLD", "history": "${'x'.repeat(1500)}"`);
const answer = JSON.stringify(Array.from({ length: 3 }, (_, i) => ({ globalPosition: i, streamId: 'account-import-process-BENCH-1', streamPosition: i + 1, event: { type: 'AccountStaged', data: { x: 'y'.repeat(200) } } })));

const worker = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads');
   let busy = 0;
   parentPort.on('message', (m) => {
     if (m === 'report') return parentPort.postMessage({ busy });
     const t = performance.now();
     const command = JSON.parse(m.text);
     if (!command.external_account_number) throw new Error('unparsed');
     parentPort.postMessage({ id: m.id, ok: true, text: workerData.answer });
     busy += performance.now() - t;
   });`,
  { eval: true, workerData: { answer } },
);

let mainBusy = 0;
const pending = new Map<number, (text: string) => void>();
worker.on('message', (m: { id?: number; text?: string; busy?: number }) => {
  if (m.id === undefined) return;
  const t = performance.now();
  const events = JSON.parse(m.text!) as unknown[];
  pending.get(m.id)!(String(events.length));
  pending.delete(m.id);
  mainBusy += performance.now() - t;
});

let nextId = 0;
function send(text: string): Promise<string> {
  const t = performance.now();
  const id = nextId++;
  const done = new Promise<string>((resolve) => pending.set(id, resolve));
  worker.postMessage({ id, kind: 'stage', streamId: `account-import-process-BENCH-${id}`, text });
  mainBusy += performance.now() - t;
  return done;
}

async function phase(name: string, inFlight: number) {
  mainBusy = 0;
  const started = performance.now();
  let sent = 0;
  const lane = async () => {
    while (sent < MESSAGES) {
      sent++;
      await send(example);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const wall = performance.now() - started;
  console.log(
    `${name}: ${((wall * 1000) / MESSAGES).toFixed(1)} µs a round trip (wall), main thread busy ${((mainBusy * 1000) / MESSAGES).toFixed(1)} µs a write`,
  );
}

await phase('warm-up', 10);
await phase('one at a time', 1);
await phase('10 in flight', 10);
worker.postMessage('report');
const report = await new Promise<{ busy: number }>((resolve) => worker.once('message', resolve));
console.log(`worker busy ${((report.busy * 1000) / (MESSAGES * 3)).toFixed(1)} µs a write (parse and answer); body ${example.length} bytes, answer ${answer.length}`);
await worker.terminate();
