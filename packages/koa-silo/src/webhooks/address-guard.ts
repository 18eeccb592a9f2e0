/**
 * SSRF guard for webhook endpoints (contract §12, §17): an account chooses the URL, so without this
 * a webhook could make the server POST to its own loopback, the cloud metadata service, the private
 * network behind it, or the server itself on a public address. A delivery may reach only a globally
 * routable unicast address that is not one of this host's own. URLs are checked at create (literal
 * addresses only: no DNS there) and every delivery resolves the name once, here, and connects to
 * the address it vetted.
 *
 * The ranges are ipaddr.js's classification of the IANA special-purpose registries, not a list of
 * our own: a range we did not think of (TEST-NET, 192.0.0.0/24, 6to4 relays) is refused because it
 * is not plain unicast, rather than allowed because nobody listed it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a name to all of its addresses (dns.promises.lookup with all: true by default). */
export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** Every address of this host (each of its interfaces', loopback included). */
export type OwnAddressesFn = () => Iterable<string>;

export interface GuardOptions {
  /**
   * SILO_WEBHOOK_ALLOW_PRIVATE: an operator's own network (loopback, private ranges, this host) is
   * a legitimate target; every address is then allowed.
   */
  allowPrivate: boolean;
  /** This host's addresses; default: os.networkInterfaces(), read at each check (they change). */
  ownAddresses?: OwnAddressesFn;
}

/** What an operator sets to let webhooks reach the addresses refused here. */
export const ALLOW_PRIVATE_SETTING = 'SILO_WEBHOOK_ALLOW_PRIVATE=true';

/** A delivery refused because the endpoint is (or resolves to) an address it must not reach. */
export class BlockedAddressError extends Error {
  constructor(
    readonly address: string,
    readonly hostname: string,
    /** Why the address is refused ("loopback", "this server's own address"...). */
    readonly why: string,
    via = hostname === address ? '' : ` (${hostname} resolves to it)`,
  ) {
    super(`blocked address ${address}${via}: ${why}`);
    this.name = 'BlockedAddressError';
  }
}

export const MAX_URL_LENGTH = 2048;

/** ipaddr.js's names of special-purpose ranges, as a refusal says them. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique local (private)',
  deprecatedSiteLocal: 'site-local (private)',
  reserved: 'reserved (documentation, benchmarking, protocol or future use)',
  benchmarking: 'benchmarking',
};

/**
 * IPv6 ranges that stand for an IPv4 host (mapped, SIIT-translated, NAT64, 6to4, Teredo): refused
 * whatever IPv4 address they carry, since the stack or a gateway on the way turns them into it.
 */
const IPV4_CARRIERS = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** Global unicast IPv6 (RFC 4291): everything else is reserved by the IETF, IPv4-compatible ::a.b.c.d included. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function systemAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** Whether `ip` is one of `own`, compared as addresses (any spelling, zone ids aside). */
function isOwn(ip: ipaddr.IPv4 | ipaddr.IPv6, own: OwnAddressesFn): boolean {
  const wanted = ip.toNormalizedString();
  for (const address of own()) {
    const bare = address.replace(/%.*$/, '');
    if (!ipaddr.isValid(bare)) continue;
    const mine = ipaddr.parse(bare);
    if (mine.kind() === ip.kind() && mine.toNormalizedString() === wanted) return true;
  }
  return false;
}

/**
 * Why a delivery must never connect to `ip`, or undefined when it may: a globally routable unicast
 * address that is not this host's. Anything that is not an IP address at all is refused too, so a
 * caller's mistake fails closed.
 */
export function addressRefusal(ip: string, own: OwnAddressesFn = systemAddresses): string | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Zone ids (fe80::1%eth0) only say which link a link-local address is on.
  const address = bare.replace(/%.*$/, '');
  // node:net's strict test first: ipaddr.js also takes old spellings (0x7f.1) that a URL has already normalised.
  if (isIP(address) === 0) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const range: string = parsed.range();
  if (parsed.kind() === 'ipv6') {
    if (IPV4_CARRIERS.has(range)) return `an IPv6 form of an IPv4 address (${range})`;
    if (!parsed.match(GLOBAL_UNICAST_V6)) return 'not a global unicast IPv6 address';
  }
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `special-purpose (${range})`;
  try {
    if (isOwn(parsed, own)) return "this server's own address";
  } catch {
    return "this server's own addresses could not be listed";
  }
  return undefined;
}

/** Whether a delivery must never connect to `ip` (see addressRefusal). */
export function isBlockedAddress(ip: string, own?: OwnAddressesFn): boolean {
  return addressRefusal(ip, own) !== undefined;
}

/** A URL's hostname as a resolver or socket wants it: no IPv6 brackets, no trailing root dot. */
export function bareHostname(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/**
 * What a refusal at create adds: the rule, and the setting that lifts it, so that an operator whose
 * webhooks go to an intranet on purpose knows what to set.
 */
export const REFUSED_RULE =
  `: webhooks may reach only globally routable unicast addresses that are not this server's own; ` +
  `an operator may allow other addresses with ${ALLOW_PRIVATE_SETTING} (koa-silo: webhooks.allowPrivate)`;

/** `localhost` and its subdomains are loopback by definition (RFC 6761), refused without DNS. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

function localhostError(host: string): BlockedAddressError {
  return new BlockedAddressError(host, host, 'a loopback name');
}

/** The refusal of a literal address or a localhost name, or undefined (then only DNS can tell). */
function hostRefusal(host: string, options: GuardOptions): BlockedAddressError | undefined {
  if (isLocalhostName(host)) return localhostError(host);
  if (isIP(host) === 0) return undefined;
  const why = addressRefusal(host, options.ownAddresses);
  return why === undefined ? undefined : new BlockedAddressError(host, host, why);
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
  const refused = hostRefusal(host, options);
  return refused ? `${refused.message}${REFUSED_RULE}` : undefined;
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
  const refused = options.allowPrivate ? undefined : hostRefusal(host, options);
  if (refused) throw refused;
  const literal = isIP(host);
  if (literal !== 0) return { address: host, family: literal === 4 ? 4 : 6 };
  const answers = await (options.lookup ?? systemLookup)(host);
  const usable: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const family = isIP(address);
    // A resolver answer that is not an address is refused whatever the policy: fail closed.
    const why = family === 0 ? 'not an IP address' : options.allowPrivate ? undefined : addressRefusal(address, options.ownAddresses);
    if (why !== undefined) throw new BlockedAddressError(address, host, why);
    usable.push({ address, family: family === 4 ? 4 : 6 });
  }
  const first = usable[0];
  if (!first) throw new Error(`could not resolve ${host}: no address`);
  return first;
}
