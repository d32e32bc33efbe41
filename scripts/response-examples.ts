// npm run openapi:examples: captures the response examples of the OpenAPI document
// (test/fixtures/examples/responses/<operationId>.json: status -> example name -> body) by sending the
// spec's example requests (test/fixtures/examples, copies of ../shared/examples) in the spec's order
// (1.4) to the real app on a temp SQLite database with a fixed clock, plus a few refusals named after
// what they show. So each response example is what the service answers to the matching request example.
// Then run `npm run openapi` (the document embeds them); test/http/openapi-examples.test.ts checks that
// every example validates against its schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { setImportSupplierConfig } from '../src/application/operator.js';
import { DOCUMENT_ROOT, tempDocumentStore } from '../test/support/account-records.js';
import { knowingVendors } from '../test/support/endpoint-world.js';
import { SUPPLIER, createTestApi, loadExample, operator } from '../test/support/ledger.js';

// The documents the examples name (notes.json, historical-statements.json), in a temp document store.
const documents = tempDocumentStore();
const api = await createTestApi({ exampleProducts: false, paymentVendors: knowingVendors, documents: documents.store, store: 'sqlite' });
await setImportSupplierConfig(api.ledger, SUPPLIER, { documentRoot: DOCUMENT_ROOT }, operator);
const token = await api.token();
const captured = new Map<string, Record<string, Record<string, unknown>>>();

/** Sends `body` to `path` and records the answer under `operationId`, its status, and `name`. */
async function capture(operationId: string, name: string, path: string, body: unknown | null, options: { token?: string | null; expect?: number } = {}) {
  const auth = options.token === null ? {} : { authorization: `Token ${options.token ?? token}` };
  const res = await api.app.request(path, body === null ? { headers: auth } : { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
  const text = await res.text();
  if (options.expect !== undefined && res.status !== options.expect) throw new Error(`${operationId} ${name}: expected ${options.expect}, got ${res.status}: ${text.slice(0, 300)}`);
  if (!(res.headers.get('content-type') ?? '').includes('json')) return;
  const byStatus = captured.get(operationId) ?? {};
  (byStatus[String(res.status)] ??= {})[name] = JSON.parse(text) as unknown;
  captured.set(operationId, byStatus);
}

const V1 = '/v1/data-import';
const domestic = loadExample('account-domestic.json');
try {
  await capture('validateProducts', 'products', `${V1}/validate-products/`, loadExample('products.json'), { expect: 200 });
  await capture('createProducts', 'products', `${V1}/products/`, loadExample('products.json'), { expect: 201 });
  await capture('createProducts', 'product-rate-update', `${V1}/products/`, loadExample('product-rate-update.json'), { expect: 201 });
  await capture('createBusiness', 'business', `${V1}/business/`, loadExample('business.json'), { expect: 201 });
  await capture('createBusinessContracts', 'business-contracts', `${V1}/business-contracts/create/`, loadExample('business-contracts.json'), { expect: 201 });
  for (const name of ['account-domestic', 'account-business']) {
    await capture('validateAccount', name, `${V1}/validate-account/`, loadExample(`${name}.json`), { expect: 200 });
    await capture('stageAccount', name, `${V1}/account-import-process/create-or-update/`, loadExample(`${name}.json`), { expect: 201 });
  }
  await capture('stageAccount', 'account-domestic-staged-again', `${V1}/account-import-process/create-or-update/`, domestic, { expect: 200 });
  await capture('stageAccount', 'no-token', `${V1}/account-import-process/create-or-update/`, domestic, { token: null, expect: 401 });
  await capture('stageAccount', 'invalid-email', `${V1}/account-import-process/create-or-update/`, { ...domestic, external_account_number: 'LEG-0000002', customers: (domestic['customers'] as Record<string, unknown>[]).map((c) => ({ ...c, email: 'not-an-email' })) }, { expect: 400 });
  await capture('processAccount', 'process-dry-run', `${V1}/account-import-process/process/`, { ...loadExample('process.json'), dry_run: true }, { expect: 400 });
  await capture('processAccount', 'process', `${V1}/account-import-process/process/`, loadExample('process.json'), { expect: 201 });
  await capture('processAccount', 'process-again', `${V1}/account-import-process/process/`, loadExample('process.json'), { expect: 400 });
  await capture('accountTransferStatus', 'account-domestic', `${V1}/account-transfer-status/${SUPPLIER}/LEG-0000001/`, null, { expect: 200 });
  await capture('importedAccountImportProcesses', 'imported', `${V1}/imported-account-import-processes/${SUPPLIER}/`, null, { expect: 200 });
  await capture('createNotes', 'notes', `${V1}/notes/create/`, loadExample('notes.json'), { expect: 201 });
  await capture('createTransactions', 'transactions', `${V1}/transactions/create/`, loadExample('transactions.json'), { expect: 201 });
  await capture('createTransactions', 'transactions-again', `${V1}/transactions/create/`, loadExample('transactions.json'), { expect: 201 });
  // account-domestic.json carries these statements already, so the example request is refused: one already exists.
  await capture('createHistoricalStatements', 'historical-statements-already-imported', `${V1}/historical-statements/create/`, loadExample('historical-statements.json'), { expect: 400 });
  await capture('createPaymentInstruction', 'payment-instruction', `${V1}/payment-instruction/create/`, loadExample('payment-instruction.json'), { expect: 201 });
  await capture('createBusinessPaymentInstruction', 'business-payment-instruction', `${V1}/business-payment-instruction/create/`, loadExample('business-payment-instruction.json'), { expect: 201 });
  await capture('populateSupplyPoints', 'supply-point-populate', `${V1}/supply-point/populate/`, loadExample('supply-point-populate.json'), { expect: 201 });
} finally {
  await api.close();
  documents.cleanup();
}

for (const [operationId, byStatus] of [...captured].sort(([a], [b]) => a.localeCompare(b))) {
  const path = join(packageRoot(), 'test/fixtures/examples/responses', `${operationId}.json`);
  writeFileSync(path, `${JSON.stringify(byStatus, null, 2)}\n`);
  process.stdout.write(`wrote ${path}\n`);
}
