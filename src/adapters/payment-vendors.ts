import { z } from 'zod';
import type { VendorAnswer } from '../domain/payment-instruction/commands.js';
import { networkCause, parseJson } from './http-helpers.js';

/**
 * The payment vendors (Stripe, GoCardless, ...) as the payment-instruction
 * command sees them. Contract (docs/payment-instructions-and-emails.md):
 * `GET <base>/instructions/<reference>` with `Accept: application/json`;
 * - 200: a JSON object with at least `reference` (the one asked for), `type`
 *   and `status`, all strings; kept as given;
 * - 404 or any other 4xx (but 408 and 429): the instruction does not exist or
 *   is invalid; the body's `message` says why;
 * - 408, 429, 5xx, a timeout, a network error, or a 200 that is not such an
 *   object: the vendor is unavailable for now.
 */
export interface PaymentVendors {
  /** The configured vendor names, sorted. */
  readonly names: readonly string[];
  fetchInstruction(vendor: string, reference: string, signal?: AbortSignal): Promise<VendorAnswer>;
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
const messageSchema = z.looseObject({ message: z.string().min(1) });

/**
 * Parses `LEDGER_PAYMENT_VENDORS`: `NAME=URL` pairs separated by commas
 * (`STRIPE=https://stripe.example,GOCARDLESS=http://127.0.0.1:9000/gc`).
 * Names are kept exactly as written; a name given twice, an empty name or a
 * URL that is not http(s) is an error.
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

  async function fetchInstruction(vendor: string, reference: string, signal?: AbortSignal): Promise<VendorAnswer> {
    const base = bases.get(vendor);
    if (base === undefined) return { kind: 'not-configured' };
    const url = new URL(`instructions/${encodeURIComponent(reference)}`, base);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, { headers: { accept: 'application/json' }, signal: combined });
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) return { kind: 'unavailable', reason: `Payment vendor ${vendor} did not answer within ${options.timeoutMs} ms.` };
      return { kind: 'unavailable', reason: `Payment vendor ${vendor} could not be reached (${networkCause(error)}).` };
    }
    const body = parseJson(text);
    const message = messageSchema.safeParse(body);
    const status = response.status;

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
      return { kind: 'rejected', status, message: message.success ? message.data.message : fallback };
    }
    const said = message.success ? `: ${message.data.message}` : '.';
    return { kind: 'unavailable', reason: `Payment vendor ${vendor} answered HTTP ${status}${said}` };
  }

  return { names: [...bases.keys()].sort(), fetchInstruction };
}

/** The vendors from the parsed configuration (src/config.ts). */
export function paymentVendorsFromConfig(config: {
  readonly LEDGER_PAYMENT_VENDORS: Readonly<Record<string, string>>;
  readonly LEDGER_PAYMENT_VENDOR_TIMEOUT_MS: number;
}): PaymentVendors {
  return createPaymentVendors({ baseUrls: config.LEDGER_PAYMENT_VENDORS, timeoutMs: config.LEDGER_PAYMENT_VENDOR_TIMEOUT_MS });
}

/** No vendor configured: every request is `invalid_vendor`. */
export const noPaymentVendors: PaymentVendors = createPaymentVendors({ baseUrls: {}, timeoutMs: DEFAULT_PAYMENT_VENDOR_TIMEOUT_MS });
