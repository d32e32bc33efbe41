import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkDestination,
  DestinationRefusedError,
  isPublicAddress,
  lookup,
  lookupFor,
  PUBLIC_ONLY,
  urlRefusal,
  type Resolve,
} from '../../../src/relay/webhooks/destination.js';

const PRIVATE = { allowPrivateNetworks: true };
/** A resolver that answers from a table, for names whose real answer the test cannot fix (the test machine has no DNS). */
const table =
  (answers: Record<string, readonly string[]>): Resolve =>
  async (hostname) => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };

describe('which addresses are public', () => {
  it('refuses loopback, private, link-local, unspecified, multicast, CGNAT, ULA, reserved and IPv4-mapped private; admits public unicast', () => {
    const refused = [
      '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '100.64.0.1', '192.0.2.1', '198.51.100.7', '203.0.113.9', '240.0.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', '64:ff9b::a00:1', '2001:db8::1', 'not an address',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).toBe(false);
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4007:80e::200e', '::ffff:8.8.8.8']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('no address of 10/8, 172.16/12, 192.168/16, 127/8 or 169.254/16 is public, in any IPv4 or IPv4-mapped spelling', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(10), octet, octet, octet),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
    );
    fc.assert(
      fc.property(privateV4, fc.boolean(), (parts, mapped) => {
        const v4 = parts.join('.');
        expect(isPublicAddress(mapped ? `::ffff:${v4}` : v4)).toBe(false);
        // Written as a URL host in any of the forms the URL parser accepts, it is refused too.
        const asNumber = String(((parts[0] * 256 + parts[1]) * 256 + parts[2]) * 256 + parts[3]);
        for (const host of [v4, asNumber, `0x${Number(asNumber).toString(16)}`, mapped ? `[::ffff:${v4}]` : v4]) {
          expect(urlRefusal(`https://${host}/hook`, PUBLIC_ONLY)?.code, host).toBe('private_address');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkDestination: the rules a URL is held to when it is set', () => {
  it('refuses what is not an absolute https URL, and credentials', async () => {
    expect((await checkDestination('hooks.example.com/in', PUBLIC_ONLY))?.code).toBe('invalid_url');
    expect((await checkDestination('ftp://93.184.215.14/', PUBLIC_ONLY))?.code).toBe('invalid_url');
    expect((await checkDestination('https://user:pw@93.184.215.14/', PUBLIC_ONLY))?.code).toBe('invalid_url');
    expect((await checkDestination('http://93.184.215.14/in', PUBLIC_ONLY))?.code).toBe('https_required');
    expect(await checkDestination('https://93.184.215.14:8443/in?x=1', PUBLIC_ONLY)).toBeNull();
  });

  it('refuses address literals and names that resolve to a non-public address, and names that do not resolve', async () => {
    for (const url of ['https://127.0.0.1/', 'https://10.0.0.1/', 'https://[::1]/', 'https://[::ffff:192.168.0.1]/', 'https://169.254.169.254/latest/meta-data']) {
      expect((await checkDestination(url, PUBLIC_ONLY))?.code, url).toBe('private_address');
    }
    // localhost resolves through the system resolver (the hosts file): to loopback.
    expect(await checkDestination('https://localhost:8443/in', PUBLIC_ONLY)).toMatchObject({ code: 'private_address', detail: expect.stringMatching(/^localhost resolves to/) });
    const resolve = table({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], 'sneaky.example.com': ['93.184.215.14', '10.1.2.3'] });
    expect(await checkDestination('https://hooks.example.com/in', PUBLIC_ONLY, resolve)).toBeNull();
    expect(await checkDestination('https://sneaky.example.com/in', PUBLIC_ONLY, resolve)).toMatchObject({ code: 'private_address', detail: expect.stringContaining('10.1.2.3') });
    expect(await checkDestination('https://nowhere.example.com/in', PUBLIC_ONLY, resolve)).toMatchObject({ code: 'unresolvable_host', detail: expect.stringContaining('ENOTFOUND') });
  });

  it('with private networks allowed, admits http and any address without resolving anything', async () => {
    const resolve: Resolve = async () => {
      throw new Error('must not resolve');
    };
    for (const url of ['http://127.0.0.1:3000/in', 'https://10.0.0.1/', 'http://localhost/', 'http://receiver.internal/in']) expect(await checkDestination(url, PRIVATE, resolve), url).toBeNull();
    expect((await checkDestination('ftp://127.0.0.1/', PRIVATE))?.code).toBe('invalid_url');
  });
});

describe('lookup: the check at each connection', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchWith = (hostLookup: typeof lookup) =>
    new Promise<{ status?: number; error?: Error }>((resolve) => {
      get({ host: 'localhost', port, path: '/', lookup: hostLookup, family: 4 }, (res) => {
        res.resume();
        resolve({ status: res.statusCode });
      }).on('error', (error) => resolve({ error }));
    });

  it('refuses to connect to a name that resolves to a non-public address, before anything is sent', async () => {
    const { error } = await fetchWith(lookup);
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_DESTINATION_REFUSED', hostname: 'localhost', address: '127.0.0.1' });
    expect(await fetchWith(lookupFor(PUBLIC_ONLY))).toMatchObject({ error: expect.any(DestinationRefusedError) });
  });

  it('with private networks allowed, connects as the system lookup would', async () => {
    expect(await fetchWith(lookupFor(PRIVATE))).toEqual({ status: 200 });
  });

  it('answers both forms node asks for, one address or all of them, and passes resolver errors on', async () => {
    const ask = (hostname: string, options: { all?: boolean }) =>
      new Promise<unknown[]>((resolve) => lookup(hostname, options, (...args: unknown[]) => resolve(args)));
    const [one] = await ask('localhost', {});
    expect(one).toBeInstanceOf(DestinationRefusedError);
    const [all] = await ask('localhost', { all: true });
    expect(all).toBeInstanceOf(DestinationRefusedError);
    const [missing] = await ask('no-such-host.invalid', {});
    expect(missing).toMatchObject({ code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) });
  });
});
