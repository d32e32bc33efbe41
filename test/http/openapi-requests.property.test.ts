import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { ENDPOINT_ACCOUNTS, endpoints } from '../support/endpoints.js';
import { SUPPLIER, TEAM } from '../support/ledger.js';
import { documentedOperations, documentRequests, DocumentValues, type DocumentedOperation, type DocumentRequest, type OpenApiDocument } from '../support/openapi-requests.js';
import { documentStates, isValidationCode, type RefusedItem } from '../support/openapi-rules.js';

/**
 * What a client generated from /openapi.json sends, the service takes or refuses for a reason the document
 * gives. Per operation of the data-import API, RUNS requests made from the served document alone (valid by
 * its schemas: test/support/openapi-requests.ts), sent to the real app: none may get a 5xx, and none may be
 * refused with a validation code at an `attr` whose rule the document does not state, neither in its
 * schemas (the request satisfies them) nor in a description (test/support/openapi-rules.ts). Refusals with
 * other codes (not found, already imported, not yours) pass. Every answer is also checked against the
 * document, as in every HTTP test. LEDGER_FUZZ_RUNS=N sends N per operation (docs/reliability.md).
 */
const RUNS = Number(process.env['LEDGER_FUZZ_RUNS'] ?? 25);

interface Refusal {
  readonly code?: string;
  readonly errors?: readonly RefusedItem[];
}

describe('requests made from the served OpenAPI document', () => {
  let world: EndpointWorld;
  let token: string;
  let document: OpenApiDocument;
  beforeAll(async () => {
    world = await createEndpointWorld();
    token = await world.token();
    document = (await (await world.api.app.request('/openapi.json')).json()) as OpenApiDocument;
  }, 60_000);
  afterAll(async () => world?.close());

  /** Why the answer to `request` breaks the rule above, or null. */
  async function unstated(operation: DocumentedOperation, request: DocumentRequest): Promise<string | null> {
    const res = await world.api.app.request(request.url, {
      method: request.method,
      headers: { authorization: `Token ${token}`, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 500) return `${res.status}: ${text.slice(0, 300)}`;
    if (res.status !== 400) return null;
    const refusal = JSON.parse(text) as Refusal;
    if (!isValidationCode(refusal.code ?? '')) return null;
    const unstatedItems = (refusal.errors ?? []).filter((item) => !documentStates(document, operation, item));
    if (unstatedItems.length === 0) return null;
    return `400 ${refusal.code}: ${unstatedItems.map((item) => `\`${item.code}\` at ${item.attr}`).join(', ')}, rules the document does not state`;
  }

  it(`${RUNS} requests per operation: no 5xx, no refusal by a rule the document does not state`, async () => {
    const values = new DocumentValues(document);
    const account = fc.constantFrom(ENDPOINT_ACCOUNTS.imported, ENDPOINT_ACCOUNTS.staged, 'LEG-NEW-0001');
    // A path's `ext` is an account's or (business/) the example business's.
    const ext = fc.constantFrom(ENDPOINT_ACCOUNTS.imported, ENDPOINT_ACCOUNTS.staged, 'BIZ-000123');
    const pins = {
      path: {
        supplier: fc.constant(SUPPLIER),
        ext,
        code: fc.constant('ELEC-FIXE-2025'),
        batchId: fc.constant(world.params(endpoints.find((e) => e.needs.includes('populate-batch'))!).batchId),
      },
      fields: {
        import_supplier: fc.constant(SUPPLIER),
        import_supplier_code: fc.constant(SUPPLIER),
        external_account_number: account,
        external_business_identifier: fc.constantFrom('BIZ-000123', null),
        operations_team_name: fc.constantFrom(TEAM, null),
        vendor: fc.constantFrom('STRIPE', null),
      },
    };
    const operations = documentedOperations(document).filter((operation) => /^\/v[12]\/data-import\//.test(operation.path));
    expect(operations.length).toBeGreaterThan(30);
    const failures: string[] = [];
    for (const operation of operations) {
      const result = await fc.check(
        fc.asyncProperty(documentRequests(values, operation, pins), async (request) => {
          const invalid = values.requestProblems(operation, request);
          if (invalid !== null) throw new Error(`the generator made a request the document does not allow: ${invalid}`);
          const problem = await unstated(operation, request);
          if (problem !== null) throw new Error(problem);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) {
        const request = JSON.stringify(result.counterexample?.[0]).slice(0, 1500);
        failures.push(`${operation.operationId}: ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}\n  seed ${result.seed}, request ${request}`);
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it('the checks are not vacuous: an unstated rule and a request the document does not allow are caught', () => {
    const values = new DocumentValues(document);
    const operation = (id: string) => documentedOperations(document).find((o) => o.operationId === id)!;
    const notes = operation('createNotes');
    // Stated in the operation's description (code and field), in a field's description, under v2's payload.
    expect(documentStates(document, notes, { code: 'note_unpin_at_earlier_than_creation_date', attr: 'notes.0.unpin_at' })).toBe(true);
    expect(documentStates(document, operation('createBusiness'), { code: 'invalid_siret', attr: 'business.siret' })).toBe(true);
    expect(documentStates(document, operation('v2ValidateAccount'), { code: 'invalid_phone_number', attr: 'customers.0.mobile' })).toBe(true);
    // Not stated: a code nothing names, a code named for another field.
    expect(documentStates(document, notes, { code: 'made_up_rule', attr: 'notes.0.unpin_at' })).toBe(false);
    expect(documentStates(document, notes, { code: 'note_unpin_at_earlier_than_creation_date', attr: 'notes.0.is_pinned' })).toBe(false);
    const request = { method: 'POST' as const, url: '/v1/data-import/notes/create/', query: {} };
    expect(values.requestProblems(notes, { ...request, body: { import_supplier: SUPPLIER, external_account_number: 'A', notes: [{ body: 'x', created_at: '2026-02-30T00:00:00Z' }] } })).toMatch(/created_at/);
    expect(values.requestProblems(notes, { ...request, body: { import_supplier: SUPPLIER, external_account_number: 'A', notes: [{ body: 'x', created_at: '2026-02-28T00:00:00Z' }] } })).toBeNull();
  });
});
