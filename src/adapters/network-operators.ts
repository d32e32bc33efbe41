import { z } from 'zod';
import type { Clock } from '../application/clock-and-ids.js';
import type { SupplyType } from '../domain/account-import-process/identifiers.js';
import { getJson } from './http-helpers.js';

/**
 * The distribution operators, as the populate worker sees them (docs/supply-points.md): `GET
 * <base>/supply-points/<id>`; 200: at least `identifier` and `address` {line1, postcode, city}, kept as
 * given; 404: unknown id; 408, 429, 5xx, timeouts and network errors: transient (Retry-After honoured);
 * any other 4xx: refused. The body's `message` is the reason when there is one.
 */
export type OperatorAnswer =
  | { readonly kind: 'found'; readonly supplyPoint: OperatorSupplyPoint }
  /** Final: the request errors with `reason`. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** Worth another attempt; `retryAfterMs` is what the operator asked for, when it did. */
  | { readonly kind: 'transient'; readonly reason: string; readonly retryAfterMs: number | null }
  /** The caller's signal fired (the worker is stopping): nothing is known about the outcome. */
  | { readonly kind: 'aborted' };

export interface OperatorSupplyPoint {
  readonly identifier: string;
  readonly address: { readonly line1: string; readonly postcode: string; readonly city: string };
  /** The whole JSON object the operator returned. */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface NetworkOperator {
  readonly supplyType: SupplyType;
  /** Null when the operator can be called; otherwise the reason every request to it errors with. */
  readonly unavailableReason: string | null;
  fetchSupplyPoint(identifier: string, signal?: AbortSignal): Promise<OperatorAnswer>;
}

export interface NetworkOperatorOptions {
  readonly baseUrl: string | undefined;
  /** Per call, connection to end of body. */
  readonly timeoutMs: number;
  /** To read a Retry-After given as an HTTP date. */
  readonly clock: Clock;
  readonly fetch?: typeof fetch;
}

export const DEFAULT_OPERATOR_TIMEOUT_MS = 10_000;

export const OPERATOR_URL_ENV = {
  ELECTRICITY: 'LEDGER_ELECTRICITY_OPERATOR_URL',
  GAS: 'LEDGER_GAS_OPERATOR_URL',
} as const satisfies Readonly<Record<SupplyType, string>>;

const OPERATOR_NAME: Readonly<Record<SupplyType, string>> = {
  ELECTRICITY: 'electricity distribution operator',
  GAS: 'gas distribution operator',
};

const operatorSupplyPointSchema = z.looseObject({
  identifier: z.string().min(1),
  address: z.looseObject({ line1: z.string(), postcode: z.string(), city: z.string() }),
});

/** Retry-After (RFC 9110): delay-seconds or an HTTP date. Null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT"); a bare "-5" would parse as a year.
  const at = /^[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500 || status < 400;
}

export function createNetworkOperator(supplyType: SupplyType, options: NetworkOperatorOptions): NetworkOperator {
  const name = OPERATOR_NAME[supplyType];
  const doFetch = options.fetch ?? fetch;
  if (!options.baseUrl) {
    const reason = `The ${name} is not configured: set ${OPERATOR_URL_ENV[supplyType]} to its base URL.`;
    return { supplyType, unavailableReason: reason, fetchSupplyPoint: async () => ({ kind: 'refused', reason }) };
  }
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;

  async function fetchSupplyPoint(identifier: string, signal?: AbortSignal): Promise<OperatorAnswer> {
    const answer = await getJson(doFetch, new URL(`supply-points/${encodeURIComponent(identifier)}`, base), options.timeoutMs, signal);
    if (answer.kind === 'aborted') return { kind: 'aborted' };
    if (answer.kind === 'timeout') return { kind: 'transient', reason: `The ${name} did not answer within ${options.timeoutMs} ms`, retryAfterMs: null };
    if (answer.kind === 'unreachable') return { kind: 'transient', reason: `The ${name} could not be reached (${answer.cause})`, retryAfterMs: null };
    const { response, body, message } = answer;

    if (response.status === 200) {
      const parsed = operatorSupplyPointSchema.safeParse(body);
      if (!parsed.success) {
        const problem = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
        return { kind: 'refused', reason: `The ${name} answered 200 with a body that is not a supply point (${problem}).` };
      }
      if (parsed.data.identifier !== identifier) {
        return {
          kind: 'refused',
          reason: `The ${name} answered for supply point ${parsed.data.identifier} when asked for ${identifier}.`,
        };
      }
      const { line1, postcode, city } = parsed.data.address;
      return { kind: 'found', supplyPoint: { identifier, address: { line1, postcode, city }, details: parsed.data } };
    }
    if (response.status === 404) {
      return {
        kind: 'refused',
        reason: message ?? `The ${name} does not know supply point ${identifier} (HTTP 404).`,
      };
    }
    if (isTransientStatus(response.status)) {
      return {
        kind: 'transient',
        reason: `The ${name} answered HTTP ${response.status}${message ? `: ${message}` : ''}`,
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.clock()),
      };
    }
    return { kind: 'refused', reason: message ?? `The ${name} answered HTTP ${response.status}.` };
  }

  return { supplyType, unavailableReason: null, fetchSupplyPoint };
}

export function networkOperatorsFromConfig(
  config: { readonly [K in (typeof OPERATOR_URL_ENV)[SupplyType]]?: string | undefined } & { readonly LEDGER_OPERATOR_TIMEOUT_MS: number },
  clock: Clock,
): Record<SupplyType, NetworkOperator> {
  const operator = (supplyType: SupplyType) =>
    createNetworkOperator(supplyType, { baseUrl: config[OPERATOR_URL_ENV[supplyType]], timeoutMs: config.LEDGER_OPERATOR_TIMEOUT_MS, clock });
  return { ELECTRICITY: operator('ELECTRICITY'), GAS: operator('GAS') };
}
