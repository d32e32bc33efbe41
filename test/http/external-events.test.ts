import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeTransferStatus, markAccountToSkip } from '../../src/application/account-import-processes.js';
import { cancelAccountCreation } from '../../src/application/account-creations.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { externalEventTypes, toExternalEvent, type ExternalEvent } from '../../src/external-events/catalogue.js';
import { packageRoot } from '../../src/package-root.js';
import { AccountCreationScheduler } from '../../src/scheduler/account-creation-scheduler.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { endpoints } from '../support/endpoints.js';
import { accessToken } from '../support/http.js';
import { loadExample, operator, OTHER_SUPPLIER, SUPPLIER, TEAM } from '../support/ledger.js';
import { found, scriptedOperator, testWorker, type OperatorCall } from '../worker/worker-support.js';

/**
 * The external events of a realistic migration, driven through the API with the example payloads (and the
 * operator, scheduler and populate worker where the API does not reach): every type of the catalogue comes
 * up, each event validates against the schema the OpenAPI document publishes for its type, the feeds of the
 * two suppliers together hold every one of them, and none carries a customer's personal data.
 */

const V1 = '/v1/data-import';
const V2 = '/v2/data-import';
const BUSINESS_ACCOUNT = 'LEG-B-0001';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;

/** Keys whose string values are a customer's personal data: contact details, addresses, names, birth dates, note bodies. */
const PERSONAL_KEY = /^(address\d?|line\d|billing_address\d|supply_address\d|\w*postcode|city|email|mobile|landline|phone|date_of_birth|given_name|family_name|company_name|body|iban|bic)$/;
/** Subtrees that are all the customer's. */
const PERSONAL_TREE = /^(customers|contacts?|address)$/;

/** Every personal string of `value`: under a personal key, or anywhere in a personal subtree. */
function personalStrings(value: unknown, personal = false, found: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    // Shorter strings (titles such as "M.", empty fields) say nothing of a person and occur inside unrelated text.
    if (personal && value.trim().length >= 4) found.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) personalStrings(item, personal, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) personalStrings(item, personal || PERSONAL_KEY.test(key) || PERSONAL_TREE.test(key), found);
  }
  return found;
}

/** Every string of `value`, at any depth. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(stringsOf) : [];

function examplesPersonalStrings(): Set<string> {
  const folder = `${packageRoot()}/test/fixtures/examples`;
  const all = new Set<string>();
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.json'))) personalStrings(JSON.parse(readFileSync(`${folder}/${name}`, 'utf8')), false, all);
  // What the network operator answers for a supply point (its address) is personal too.
  personalStrings(found('09111642617347'), false, all);
  return all;
}

interface Webhook {
  post: { requestBody: { content: { 'application/json': { schema: object } } } };
}

/** The published schema of each type: the request body of its entry in the document's `webhooks`. */
function publishedValidators(): Map<string, ValidateFunction> {
  const document = JSON.parse(readFileSync(`${packageRoot()}/openapi/openapi.json`, 'utf8')) as { webhooks: Record<string, Webhook>; components: unknown };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return new Map(
    Object.entries(document.webhooks).map(([type, webhook]) => [type, ajv.compile({ ...webhook.post.requestBody.content['application/json'].schema, components: document.components })]),
  );
}

let world: EndpointWorld;
let feeds: Map<string, (ExternalEvent & { position: number })[]>;
let logged: ExternalEvent[];

async function post(path: string, body: unknown, supplier = SUPPLIER): Promise<Response> {
  return world.api.post(path, body, await world.token(supplier));
}

async function readFeed(supplier: string): Promise<(ExternalEvent & { position: number })[]> {
  const token = await accessToken(world.api, supplier === SUPPLIER ? world.api.key : world.api.otherKey);
  const events: (ExternalEvent & { position: number })[] = [];
  for (let after = 0; ; ) {
    const res = await world.api.get(`${V1}/events/?after=${after}&limit=1000`, token);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { events: (ExternalEvent & { position: number })[]; next_after: number };
    events.push(...page.events);
    if (page.next_after === after) return events;
    after = page.next_after;
  }
}

/** A migration of both suppliers, through everything that emits an external event. */
async function migrate(): Promise<void> {
  const { api } = world;
  // Every write of the endpoint table, with its example payloads, for both suppliers.
  for (const endpoint of endpoints.filter((e) => e.method === 'POST' && e.auth)) {
    for (const supplier of [SUPPLIER, OTHER_SUPPLIER]) {
      const params = world.params(endpoint, supplier);
      for (const body of endpoint.payloads(params)) await world.request(endpoint, { as: supplier, params, body });
    }
  }
  // A business account (its customer a person too), staged twice, dry-run, then imported with its records.
  const businessAccount: Payload = { ...loadExample('account-business.json'), import_supplier: SUPPLIER, external_account_number: BUSINESS_ACCOUNT };
  for (let i = 0; i < 2; i++) expect((await post(`${V1}/account-import-process/create-or-update/`, businessAccount)).status).toBeLessThan(300);
  const process = { external_account_number: BUSINESS_ACCOUNT, import_supplier_code: SUPPLIER, operations_team_name: TEAM };
  expect((await post(`${V1}/account-import-process/process/`, { ...process, dry_run: true })).status).toBe(400);
  expect((await post(`${V1}/account-import-process/process/`, { ...process, operations_team_name: 'Nobody', dry_run: true })).status).toBe(400);
  expect((await post(`${V1}/account-import-process/process/`, { ...process, operations_team_name: 'Nobody' })).status).toBe(400);
  expect((await post(`${V1}/account-import-process/process/`, process)).status).toBe(201);
  const records = { import_supplier: SUPPLIER, external_account_number: BUSINESS_ACCOUNT };
  expect((await post(`${V1}/notes/create/`, { ...loadExample('notes.json'), ...records })).status).toBe(201);
  const future = [{ transaction_id: 'TX-F', transaction_date: '2099-01-01', amount: 1, type: 'CHARGE', reason: 'IMPORTED_CHARGE' }];
  expect((await post(`${V1}/transactions/create/`, { ...records, transactions: future })).status).toBe(400);
  expect((await post(`${V1}/transactions/create/`, { ...records, transactions: future, dry_run: true })).status).toBe(400);
  expect((await post(`${V1}/transactions/create/`, { ...loadExample('transactions.json'), ...records, dry_run: true })).status).toBe(201);
  await changeTransferStatus(api.ledger, SUPPLIER, BUSINESS_ACCOUNT, 'IN_PROGRESS', operator);
  const skipped = { ...loadExample('account-domestic.json'), import_supplier: SUPPLIER, external_account_number: 'LEG-SKIP' };
  expect((await post(`${V1}/account-import-process/create-or-update/`, skipped)).status).toBe(201);
  await markAccountToSkip(api.ledger, SUPPLIER, 'LEG-SKIP', operator);

  // v2: a creation run at once, a dry run, one cancelled, one whose window closes before it runs.
  const schedule = (ext: string, taskParams: Record<string, unknown>) =>
    post(`${V2}/accounts/`, { payload: { ...loadExample('account-domestic.json'), import_supplier: SUPPLIER, external_account_number: ext, operations_team_name: TEAM }, task_params: taskParams });
  const inMinutes = (minutes: number) => new Date(api.clock.now.getTime() + minutes * 60_000).toISOString();
  expect((await schedule('LEG-V2-1', {})).status).toBe(201);
  expect((await schedule('LEG-V2-2', { is_dry_run: true })).status).toBe(201);
  expect((await schedule('LEG-V2-3', { schedule_window_start: inMinutes(60) })).status).toBe(201);
  await cancelAccountCreation(api.ledger, SUPPLIER, 'LEG-V2-3', operator);
  expect((await schedule('LEG-V2-4', { schedule_window_start: inMinutes(1), schedule_window_end: inMinutes(2) })).status).toBe(201);
  const scheduler = new AccountCreationScheduler({ ctx: api.ledger, logger: pino({ level: 'silent' }), actor: { actor: 'system:scheduler', requestId: null } });
  await scheduler.runDue();
  api.clock.advanceSeconds(5 * 60);
  await scheduler.runDue();

  // The populate batches: one supply point of each kind found, the others refused by their operator.
  const calls: OperatorCall[] = [];
  const answer = (id: string) => (id.startsWith('0') || id.startsWith('2') ? found(id) : { kind: 'refused' as const, reason: `unknown supply point ${id}` });
  await testWorker(api.ledger, api.clock, { ELECTRICITY: scriptedOperator('ELECTRICITY', api.clock, calls, answer), GAS: scriptedOperator('GAS', api.clock, calls, answer) }).drain();

  await setImportSupplierStatus(api.ledger, OTHER_SUPPLIER, 'Paused', operator);
}

beforeAll(async () => {
  world = await createEndpointWorld();
  await migrate();
  feeds = new Map([[SUPPLIER, await readFeed(SUPPLIER)], [OTHER_SUPPLIER, await readFeed(OTHER_SUPPLIER)]]);
  logged = (await world.api.ledger.store.readAll(0, 1_000_000)).flatMap((stored) => {
    const routed = toExternalEvent(stored);
    return routed ? [routed.event] : [];
  });
}, 120_000);
afterAll(() => world.close());

describe('the external events of a migration', () => {
  it('come in every type of the catalogue', () => {
    expect(new Set(logged.map((e) => e.type))).toEqual(new Set(externalEventTypes));
  });

  it('each validate against the schema the OpenAPI document publishes for their type, as the feed serves them', () => {
    const validators = publishedValidators();
    expect([...validators.keys()].sort()).toEqual([...externalEventTypes].sort());
    for (const [supplier, events] of feeds) {
      expect(events.length, supplier).toBeGreaterThan(0);
      for (const { type, timestamp, data } of events) {
        const validate = validators.get(type)!;
        expect(validate({ type, timestamp, data }), `${type}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(data)}`).toBe(true);
      }
    }
  });

  it('reach the suppliers they belong to: the two feeds together hold every one, each once', () => {
    const seen = [...feeds.values()].flat();
    expect(new Set(seen.map((e) => e.id))).toEqual(new Set(logged.map((e) => e.id)));
    for (const events of feeds.values()) expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("never carry a customer's personal data from the example payloads", () => {
    const personal = examplesPersonalStrings();
    // The walk finds the examples' people, addresses and notes (so this test can fail).
    for (const value of ['Claire', 'Dubois', 'claire.dubois@example.fr', '+33612345678', '1984-03-12', '12 rue de la Roquette', 'Paul', 'Boulangerie Martin EURL', 'Customer asked for paper-free billing.']) {
      expect(personal).toContain(value);
    }
    // Every string of every payload (the ids aside: random, they could hold a postcode's digits by chance).
    const strings = stringsOf(logged.map(({ type, timestamp, data }) => ({ type, timestamp, data })));
    const holds = (text: string, value: string) => (/^\d+$/.test(value) ? text === value : text.includes(value));
    expect([...personal].flatMap((value) => strings.filter((text) => holds(text, value)).map((text) => [value, text]))).toEqual([]);
  });
});
