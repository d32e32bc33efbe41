import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where webhooks may be delivered: public https only, unless LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS is true. */
export interface DestinationPolicy {
  /** Admits private, loopback, link-local and other non-public addresses, and plain http (tests, on-premises). */
  readonly allowPrivateNetworks: boolean;
}

export const PUBLIC_ONLY: DestinationPolicy = { allowPrivateNetworks: false };

/** Why a URL is refused: the item code of a 400 `webhook_url_refused` (docs/webhooks.md), and what to tell the caller. */
export interface DestinationRefusal {
  readonly code: 'invalid_url' | 'https_required' | 'private_address' | 'unresolvable_host';
  readonly detail: string;
}

/** Resolves a host name to every address it has (the system resolver, as node:http's default lookup). */
export type Resolve = (hostname: string) => Promise<readonly string[]>;

export const systemResolve: Resolve = async (hostname) => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Whether an address is on the public internet: ipaddr.js's `unicast`, which leaves out private, loopback,
 * link-local, unspecified, multicast, broadcast, carrier-grade NAT, unique-local, documentation, benchmarking
 * and other reserved ranges. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries; other
 * translation prefixes (NAT64, 6to4, Teredo) are not public, as they can reach private IPv4 networks.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The URL's host as an address when it is one (`[::1]` without its brackets), else null. */
function addressLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

const notPublic = (what: string): DestinationRefusal => ({
  code: 'private_address',
  detail: `${what} is not a public address (private, loopback, link-local or reserved); set LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`,
});

/**
 * What the URL alone says, without resolving it: an absolute `https` URL (or `http` where private networks
 * are allowed) without credentials, whose host, when it is an address, is public. The delivery engine runs
 * it before each attempt too: node:http does not call `lookup` for an address literal.
 */
export function urlRefusal(url: string, policy: DestinationPolicy): DestinationRefusal | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { code: 'invalid_url', detail: 'Not an absolute URL.' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { code: 'invalid_url', detail: 'Only https URLs can receive webhooks.' };
  if (parsed.username !== '' || parsed.password !== '') return { code: 'invalid_url', detail: 'A webhook URL may not carry credentials.' };
  if (parsed.hostname === '') return { code: 'invalid_url', detail: 'The URL has no host.' };
  if (policy.allowPrivateNetworks) return null;
  if (parsed.protocol !== 'https:') return { code: 'https_required', detail: 'Only https URLs can receive webhooks (plain http only with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).' };
  const literal = addressLiteral(parsed.hostname);
  return literal !== null && !isPublicAddress(literal) ? notPublic(literal) : null;
}

/**
 * The rules a webhook URL is held to when it is set: `urlRefusal`, then every address its host resolves
 * to must be public (none resolving is refused too). With private networks allowed, nothing is resolved.
 */
export async function checkDestination(url: string, policy: DestinationPolicy, resolve: Resolve = systemResolve): Promise<DestinationRefusal | null> {
  const refusal = urlRefusal(url, policy);
  if (refusal || policy.allowPrivateNetworks) return refusal;
  const { hostname } = new URL(url);
  if (addressLiteral(hostname) !== null) return null;
  let addresses: readonly string[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { code: 'unresolvable_host', detail: `The host ${hostname} does not resolve (${reason}).` };
  }
  if (addresses.length === 0) return { code: 'unresolvable_host', detail: `The host ${hostname} has no address.` };
  const blocked = addresses.find((address) => !isPublicAddress(address));
  return blocked === undefined ? null : notPublic(`${hostname} resolves to ${blocked}, which`);
}

/** A delivery's connection refused because its host resolved to a non-public address. */
export class DestinationRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_DESTINATION_REFUSED';
  constructor(readonly hostname: string, readonly address: string) {
    super(`webhook destination ${hostname} resolves to ${address}, which is not a public address`);
    this.name = 'DestinationRefusedError';
  }
}

/**
 * A `lookup` for node:http(s) requests (the `lookup` option, or an Agent's): resolves the host, refuses the
 * connection with a DestinationRefusedError when any of its addresses is not public, and otherwise hands the
 * checked addresses to the socket, so that what is connected to is what was checked (a DNS answer that
 * changes between a check and the connection cannot redirect a delivery). Answers both forms node asks
 * for: one address, or every address (`all`, as with `autoSelectFamily`).
 */
export const lookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked !== undefined || addresses.length === 0) {
      return callback(new DestinationRefusedError(hostname, blocked?.address ?? 'no address'), '', 0);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return callback(null, first!.address, first!.family);
  });
};

/** The `lookup` a delivery under `policy` uses: the checking one, or the system's where private networks are allowed. */
export const lookupFor = (policy: DestinationPolicy): LookupFunction => (policy.allowPrivateNetworks ? (dns.lookup as LookupFunction) : lookup);
