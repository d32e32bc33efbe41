// npx tsx bench/client-transport-probe.ts: the client's CPU per request of the typed client (src/client)
// over the node:http transport (what `import-ledger migrate` uses) and over Node's global fetch, against
// a minimal local HTTP server in another process (so only the client's work is measured): N posts of the
// example account, 8 in flight, 3 rounds (the first warms up). CPU time holds on a loaded machine where
// rates do not. bench/README.md lists it with the other benchmarks.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLedgerClient, createNodeHttpTransport } from '../src/client/index.js';
import { root } from './lib.js';

const N = Number(process.env['N'] ?? 10_000);
const IN_FLIGHT = 8;
const server = spawn(
  process.execPath,
  [
    '-e',
    `const http = require('node:http');
     const s = http.createServer({ keepAlive: true }, (req, res) => {
       req.resume();
       req.on('end', () => {
         const b = JSON.stringify({ import_supplier: 'S', import_supplier_code: 'S', external_account_number: 'LEG-1' });
         res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) });
         res.end(b);
       });
     });
     s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise<number>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
const base = `http://127.0.0.1:${port}`;
const body = readFileSync(join(root, 'test/fixtures/examples/account-domestic.json'), 'utf8');
const PATH = '/v1/data-import/account-import-process/create-or-update/';

async function measure(name: string, send: () => Promise<unknown>) {
  const cpu0 = process.cpuUsage();
  let left = N;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (left-- > 0) await send(); }));
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${name.padEnd(36)} ${((cpu.user + cpu.system) / N).toFixed(1)} µs CPU a request\n`);
}

const transport = createNodeHttpTransport({ timeoutMs: 30_000, maxSockets: IN_FLIGHT + 2 });
const overNodeHttp = createLedgerClient(base, 't', transport);
const overFetch = createLedgerClient(base, 't');
// The body as read from an input file, sent as is (as the migrate command does).
// (the cast: a legacy export's text is not the document's type; the service judges it.)
const init = { body: body as never, bodySerializer: (text: unknown) => text as string, headers: { 'idempotency-key': 'k' } };
try {
  for (let round = 1; round <= 3; round++) {
    await measure(`round ${round}: typed client over node:http`, () => overNodeHttp.POST(PATH, init));
    await measure(`round ${round}: typed client over fetch`, () => overFetch.POST(PATH, init));
  }
} finally {
  transport.close();
  server.kill();
}
