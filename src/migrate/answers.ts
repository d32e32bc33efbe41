import type { ApiAnswer } from './api-client.js';
import type { ItemOutcome, ReportLine } from './report.js';
import type { Outcome } from './retry.js';

/**
 * Reading the service's answers into report lines. Decisions use the HTTP status and the fields the spec
 * documents (an already-imported account's 400 carries `platform_account_number`, spec 4.8); error codes are
 * data for the report, never steering, so a code renamed on the server changes words, not the migration.
 */
type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const asString = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The platform account number an answer carries (a 201 of process, or the 400 of an already-imported account). */
export function platformAccountNumber(body: unknown): string | null {
  return asString(asObject(body)?.['platform_account_number']);
}

/** The error part of a report line: the top-level code and detail (spec 7, or spec 4.10's transaction body), the items' attrs and codes. */
export function errorFields(answer: ApiAnswer): Pick<ReportLine, 'error_code' | 'error_items' | 'detail'> {
  const body = asObject(answer.body);
  if (!body) {
    const text = typeof answer.body === 'string' ? answer.body.slice(0, 300) : null;
    return { error_code: null, error_items: null, detail: text || `HTTP ${answer.status}` };
  }
  const items = Array.isArray(body['errors'])
    ? body['errors']
        .map(asObject)
        .filter((item): item is Json => item !== null)
        .map((item) => `${typeof item['attr'] === 'string' ? item['attr'] : ''}:${asString(item['code']) ?? ''}`)
        .join(';')
    : '';
  return {
    error_code: asString(body['code']) ?? asString(body['status']),
    error_items: items || null,
    detail: asString(body['detail']) ?? asString(body['error_detail']) ?? `HTTP ${answer.status}`,
  };
}

export const isSuccess = (answer: ApiAnswer): boolean => answer.status >= 200 && answer.status < 300;

export function line(step: string, id: string, outcome: ItemOutcome, rest: Partial<Omit<ReportLine, 'step' | 'id' | 'outcome'>> = {}): ReportLine {
  return {
    step,
    id,
    outcome,
    platform_account_number: rest.platform_account_number ?? null,
    http_status: rest.http_status ?? null,
    error_code: rest.error_code ?? null,
    error_items: rest.error_items ?? null,
    detail: rest.detail ?? null,
  };
}

/** The failed line for an answer that is not a success (or for no answer at all). */
export function failedLine(step: string, id: string, outcome: Exclude<Outcome, { kind: 'interrupted' }>): ReportLine {
  if (outcome.kind === 'no-answer') {
    return line(step, id, 'failed', { detail: `no answer after ${outcome.attempts} tries: ${outcome.error}` });
  }
  const fields = errorFields(outcome.answer);
  const tries = outcome.attempts > 1 ? ` (after ${outcome.attempts} tries)` : '';
  return line(step, id, 'failed', { http_status: outcome.answer.status, ...fields, detail: `${fields.detail ?? ''}${tries}` });
}

/** A process dry run that would have succeeded answers 400 (spec 4.8), recognised by its documented message or a code naming the dry run. */
export function isDryRunSuccess(answer: ApiAnswer): boolean {
  if (answer.status !== 400) return false;
  const { error_code, detail } = errorFields(answer);
  return /dry.?run/i.test(error_code ?? '') || /rolled back due to dry run/i.test(detail ?? '');
}

/** Records answered 201 with every entry `*_ALREADY_EXISTS` (spec 3.4) were stored by an earlier run. */
export function allAlreadyExisted(body: unknown): boolean {
  const entries = Array.isArray(body) ? body : Array.isArray(asObject(body)?.['results']) ? (asObject(body)?.['results'] as unknown[]) : null;
  if (!entries || entries.length === 0) return false;
  return entries.every((entry) => /ALREADY_EXISTS$/.test(asString(asObject(entry)?.['status']) ?? ''));
}

/** Products answered 201 with nothing created and no rate added: the catalogue already held them. */
export function productUnchanged(body: unknown): boolean {
  const products = asObject(body)?.['products'];
  return Array.isArray(products) && products.length > 0 && products.every((p) => asObject(p)?.['created'] === false && asObject(p)?.['rates_added'] === 0);
}
