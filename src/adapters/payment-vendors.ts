import { z } from 'zod';
import type { VendorAnswer } from '../domain/payment-instruction/commands.js';
import { getJson } from './http-helpers.js';

/**
 * The payment vendors as the payment-instruction command sees them (docs/payment-instructions-and-emails.md):
 * `GET <base>/instructions/<reference>`; 200: at least `reference` (the one asked), `type` and `status`,
 * kept as given; another 4xx but 408 and 429: no such valid instruction (the body's `message` says why);
 * 408, 429, 5xx, a timeout, a network error or a 200 of another shape: unavailable for now.
 */
export interface PaymentVendors {
  readonly names: readonly string[];
  fetchInstruction(vendor: string, reference: string): Promise<VendorAnswer>;
}

export interface PaymentVendorOptions {
  /** Vendor name (as callers send it in `vendor`) -> base URL. */
  readonly baseUrls: Readonly<Record<string, string>>;
  /** Per call, connection to end of body. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

export const DEFAULT_PAYMENT_VENDOR_TIMEOUT_MS = 5_000;

const instructionSchema = z.looseObject({ reference: z.string(), type: z.string(), status: z.string() });

/**
 * Parses `LEDGER_PAYMENT_VENDORS`: `NAME=URL` pairs separated by commas (`STRIPE=https://stripe.example`),
 * names kept as written; a name given twice, an empty name or a URL that is not http(s) is an error.
 */
export function parsePaymentVendors(value: string): { ok: true; vendors: Record<string, string> } | { ok: false; problem: string } {
  const vendors: Record<string, string> = {};
  for (const entry of value.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const at = entry.indexOf('=');
    const name = at < 0 ? '' : entry.slice(0, at).trim();
    const url = at < 0 ? '' : entry.slice(at + 1).trim();
    if (name === '' || url === '') return { ok: false, problem: `"${entry}" is not NAME=URL` };
    if (Object.hasOwn(vendors, name)) return { ok: false, problem: `vendor ${name} is given twice` };
    if (!z.url({ protocol: /^https?$/ }).safeParse(url).success) return { ok: false, problem: `${name}: "${url}" is not an http(s) URL` };
    vendors[name] = url;
  }
  return { ok: true, vendors };
}

export function createPaymentVendors(options: PaymentVendorOptions): PaymentVendors {
  const doFetch = options.fetch ?? fetch;
  const bases = new Map(Object.entries(options.baseUrls).map(([name, url]) => [name, url.endsWith('/') ? url : `${url}/`]));

  async function fetchInstruction(vendor: string, reference: string): Promise<VendorAnswer> {
    const base = bases.get(vendor);
    if (base === undefined) return { kind: 'not-configured' };
    const answer = await getJson(doFetch, new URL(`instructions/${encodeURIComponent(reference)}`, base), options.timeoutMs);
    if (answer.kind === 'unreachable') return { kind: 'unavailable', reason: `Payment vendor ${vendor} could not be reached (${answer.cause}).` };
    if (answer.kind !== 'answer') return { kind: 'unavailable', reason: `Payment vendor ${vendor} did not answer within ${options.timeoutMs} ms.` };
    const { body, message } = answer;
    const status = answer.response.status;

    if (status === 200) {
      const parsed = instructionSchema.safeParse(body);
      if (!parsed.success) {
        return { kind: 'unavailable', reason: `Payment vendor ${vendor} answered 200 with a body that is not a payment instruction.` };
      }
      if (parsed.data.reference !== reference) {
        return {
          kind: 'unavailable',
          reason: `Payment vendor ${vendor} answered for instruction ${parsed.data.reference} when asked for ${reference}.`,
        };
      }
      return { kind: 'found', details: parsed.data };
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      const fallback =
        status === 404
          ? `Payment vendor ${vendor} has no instruction with reference ${reference}.`
          : `Payment vendor ${vendor} refused instruction ${reference} (HTTP ${status}).`;
      return { kind: 'rejected', status, message: message ?? fallback };
    }
    return { kind: 'unavailable', reason: `Payment vendor ${vendor} answered HTTP ${status}${message ? `: ${message}` : '.'}` };
  }

  return { names: [...bases.keys()].sort(), fetchInstruction };
}

export function paymentVendorsFromConfig(config: {
  readonly LEDGER_PAYMENT_VENDORS: Readonly<Record<string, string>>;
  readonly LEDGER_PAYMENT_VENDOR_TIMEOUT_MS: number;
}): PaymentVendors {
  return createPaymentVendors({ baseUrls: config.LEDGER_PAYMENT_VENDORS, timeoutMs: config.LEDGER_PAYMENT_VENDOR_TIMEOUT_MS });
}

/** No vendor configured: every request is `invalid_vendor`. */
export const noPaymentVendors: PaymentVendors = createPaymentVendors({ baseUrls: {}, timeoutMs: DEFAULT_PAYMENT_VENDOR_TIMEOUT_MS });
