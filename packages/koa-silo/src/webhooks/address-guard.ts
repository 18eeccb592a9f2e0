/**
 * SSRF guard for webhook endpoints (contract §12): an account chooses the URL, so without this a
 * webhook could make the server POST to its own loopback, the cloud metadata service or the
 * private network behind it. URLs are checked at create (literal addresses only: no DNS there)
 * and every delivery resolves the name once, here, and connects to the address it vetted.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a name to all of its addresses (dns.promises.lookup with all: true by default). */
export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface GuardOptions {
  /** SILO_WEBHOOK_ALLOW_PRIVATE: an operator's own network is a legitimate target. */
  allowPrivate: boolean;
}

/** A delivery refused because the endpoint is (or resolves to) an address it must not reach. */
export class BlockedAddressError extends Error {
  constructor(
    readonly address: string,
    readonly hostname: string,
    reason = hostname === address ? '' : ` (${hostname} resolves to it)`,
  ) {
    super(`blocked address ${address}${reason}`);
    this.name = 'BlockedAddressError';
  }
}

export const MAX_URL_LENGTH = 2048;

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT: often the provider's internal network
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, home of cloud metadata services (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking, used inside some data centres
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local: still private where it is used
  ['ff00::', 8], // multicast
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into a private IPv4 network
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (zone already removed), or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  if (!isIPv6(ip)) return undefined;
  let text = ip;
  const tail: number[] = [];
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const quad = text.slice(lastColon + 1);
  if (isIPv4(quad)) {
    const [a = 0, b = 0, c = 0, d = 0] = quad.split('.').map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    text = `${text.slice(0, lastColon + 1)}0`; // a placeholder group, dropped below
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  if (tail.length > 0) (right.length > 0 ? right : left).pop();
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length - tail.length;
  return [...left, ...new Array<number>(zeros).fill(0), ...right, ...tail];
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach an IPv4
 * host: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated but still parsed by
 * stacks), IPv4-translated (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d, which a gateway
 * translates into the IPv4 network).
 */
function embeddedIPv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeroHead = g1 === 0 && g2 === 0 && g3 === 0;
  const mapped = g0 === 0 && zeroHead && g4 === 0 && g5 === 0xffff;
  const compatible = g0 === 0 && zeroHead && g4 === 0 && g5 === 0;
  const translated = g0 === 0 && zeroHead && g4 === 0xffff && g5 === 0; // SIIT, ::ffff:0:a.b.c.d
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !compatible && !translated && !nat64) return undefined;
  return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.');
}

/**
 * Whether a delivery must never connect to `ip`: loopback, private, link-local, unspecified,
 * multicast and other non-public ranges, in IPv4 or any IPv6 form of them. Anything that is not
 * an IP address at all counts as blocked, so a caller's mistake fails closed.
 */
export function isBlockedAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const address = bare.replace(/%.*$/, ''); // BlockList does not understand zone ids (fe80::1%eth0)
  if (isIPv4(address)) return blocked.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const v4 = embeddedIPv4(groups);
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** A URL's hostname as a resolver or socket wants it: no IPv6 brackets, no trailing root dot. */
export function bareHostname(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

const REFUSED = ': loopback, private, link-local, unspecified and multicast addresses are refused';

/** `localhost` and its subdomains are loopback by definition (RFC 6761), refused without DNS. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

function localhostError(host: string): BlockedAddressError {
  return new BlockedAddressError(host, host, ' (a loopback name)');
}

/**
 * Why `raw` cannot be a webhook endpoint, or undefined when it can. Only what is knowable without
 * DNS: a name may still resolve to a blocked address, which the delivery refuses.
 */
export function webhookUrlProblem(raw: string, options: GuardOptions = { allowPrivate: false }): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `URL is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'URL scheme must be http or https';
  if (url.username !== '' || url.password !== '') return 'URL must not contain a username or password';
  const host = bareHostname(url.hostname);
  if (host === '') return 'URL must have a host';
  if (options.allowPrivate) return undefined;
  // The URL parser has already normalised odd IPv4 spellings (http://2130706433/, 0x7f.1).
  if (isIP(host) !== 0 && isBlockedAddress(host)) return `${new BlockedAddressError(host, host).message}${REFUSED}`;
  if (isLocalhostName(host)) return `${localhostError(host).message}${REFUSED}`;
  return undefined;
}

const systemLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The one address a delivery to `hostname` connects to. Every address the name resolves to is
 * checked, not just the first, so a name cannot smuggle a blocked address in among public ones
 * (a client retrying the next address would reach it); any blocked one refuses the delivery.
 */
export async function resolveDeliveryAddress(
  hostname: string,
  options: GuardOptions & { lookup?: LookupFn },
): Promise<ResolvedAddress> {
  const host = bareHostname(hostname);
  const literal = isIP(host);
  if (literal !== 0) {
    if (!options.allowPrivate && isBlockedAddress(host)) throw new BlockedAddressError(host, host);
    return { address: host, family: literal === 4 ? 4 : 6 };
  }
  if (!options.allowPrivate && isLocalhostName(host)) throw localhostError(host);
  const answers = await (options.lookup ?? systemLookup)(host);
  const usable: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const family = isIP(address);
    // A resolver answer that is not an address is refused like a blocked one: fail closed.
    if (family === 0 || (!options.allowPrivate && isBlockedAddress(address))) throw new BlockedAddressError(address, host);
    usable.push({ address, family: family === 4 ? 4 : 6 });
  }
  const first = usable[0];
  if (!first) throw new Error(`could not resolve ${host}: no address`);
  return first;
}
