// tsx bench/progress.ts [--accounts=N,N,...]: the progress endpoints' cost against the cohort's size.
// For each size, a fresh SQLite ledger gets N accounts staged in bulk (a third processed, a tenth with a refused
// process on record), then the four progress reads are each asked 300 times through the real app in-process:
// the CPU time per request (user + system, this process) and the wall-clock median. Constant time is the claim:
// the figures should not grow with N. Prints a table.
import { recordRefusedAttempt } from '../src/application/refused-attempts.js';
import { DomainError } from '../src/domain/errors.js';
import { stageAccountsInBulk } from '../test/support/bulk-accounts.js';
import { accessToken } from '../test/support/http.js';
import { SUPPLIER, createTestApi, operator } from '../test/support/ledger.js';

const sizes = (process.argv.find((a) => a.startsWith('--accounts='))?.slice('--accounts='.length) ?? '1000,100000').split(',').map(Number);
const REQUESTS = 300;
const BASE = '/v1/data-import';

const paths = {
  progress: `${BASE}/import-progress/${SUPPLIER}/`,
  failures: `${BASE}/import-failures/${SUPPLIER}/?limit=100`,
  'failures ?code=': `${BASE}/import-failures/${SUPPLIER}/?limit=100&code=invalid_phone_number`,
  summary: `${BASE}/import-failures/${SUPPLIER}/summary/`,
};

const rows: string[] = [];
for (const n of sizes) {
  const api = await createTestApi();
  try {
    const stagedAt = api.clock.read().toISOString();
    const accounts = Array.from({ length: n }, (_, i) => ({ ext: `B-${String(i).padStart(8, '0')}`, stagedAt, imported: i % 3 === 0 }));
    const seedStarted = performance.now();
    await stageAccountsInBulk(api.ledger, SUPPLIER, accounts);
    const refusal = new DomainError('account_failed_validation', 'Account data could not be validated.', {
      errors: [{ detail: 'Not a phone number.', code: 'invalid_phone_number', attr: 'customers.0.landline' }],
    });
    for (const [i, account] of accounts.entries()) {
      if (i % 10 !== 1) continue;
      await recordRefusedAttempt(api.ledger, { importSupplier: SUPPLIER, externalAccountNumber: account.ext, operation: 'process', dryRun: false }, refusal, operator);
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const token = await accessToken(api);
    const progress = (await (await api.get(paths.progress, token)).json()) as { accounts: unknown };
    console.log(`${n} accounts seeded in ${seedSeconds.toFixed(1)} s: ${JSON.stringify(progress.accounts)}`);
    for (const [name, path] of Object.entries(paths)) {
      for (let i = 0; i < 20; i++) await (await api.get(path, token)).arrayBuffer();
      const wall: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        const res = await api.get(path, token);
        await res.arrayBuffer();
        wall.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      }
      const used = process.cpuUsage(cpu);
      wall.sort((a, b) => a - b);
      rows.push(`| ${n} | ${name} | ${((used.user + used.system) / 1000 / REQUESTS).toFixed(2)} | ${wall[Math.floor(REQUESTS / 2)]!.toFixed(2)} |`);
    }
  } finally {
    await api.close();
  }
}
console.log('\n| accounts | read | CPU ms / request | median ms |\n| ---: | --- | ---: | ---: |');
for (const row of rows) console.log(row);
