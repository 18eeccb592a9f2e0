/** The client address used for rate limits of unauthenticated requests. */
import type { Context } from 'koa';
import ipaddr from 'ipaddr.js';

/**
 * The socket's peer address; with `trustProxy`, the last X-Forwarded-For entry (the address the
 * trusted proxy saw; entries before it are whatever the client claimed) when it is an IP address.
 * Anything else there (a proxy that passes the client's own header on) is not taken: it would
 * reach the request log, the audit log and the rate limiter's buckets as written.
 */
export function clientAddress(ctx: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? lastForwarded(ctx, 'X-Forwarded-For') : undefined;
  if (forwarded !== undefined && ipaddr.isValid(forwarded)) return forwarded;
  return ctx.req.socket.remoteAddress ?? 'unknown';
}

/** The last entry of a trusted proxy's comma-separated header (entries before it are the client's claims). */
function lastForwarded(ctx: Context, header: string): string | undefined {
  return ctx.get(header).split(',').map((s) => s.trim()).filter(Boolean).at(-1);
}

/**
 * The scheme the client used: the socket's (`https` under Silo's own TLS); with `trustProxy`, the
 * last X-Forwarded-Proto entry, as the proxy that terminated TLS set it (the console's Origin check
 * and its Secure cookie need the browser's scheme, not the proxy's plain connection to Silo).
 */
export function clientProtocol(ctx: Context, trustProxy: boolean): 'http' | 'https' {
  const last = trustProxy ? lastForwarded(ctx, 'X-Forwarded-Proto')?.toLowerCase() : undefined;
  if (last === 'https' || last === 'http') return last;
  return ctx.req.socket && 'encrypted' in ctx.req.socket && ctx.req.socket.encrypted ? 'https' : 'http';
}

/**
 * The network a limit per client counts `address` under: an IPv4 address as it is, an IPv6 one by
 * its /64 (one subscriber's network, as providers hand them out; counting single IPv6 addresses
 * would give one client 2^64 budgets). Anything else (a proxy's odd header) as it is, cut short.
 */
export function clientNetwork(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address.slice(0, 100);
  const ip = ipaddr.process(bare); // IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 client it carries
  if (ip.kind() === 'ipv4') return ip.toString();
  const [a = 0, b = 0, c = 0, d = 0] = (ip as ipaddr.IPv6).parts;
  return `${[a, b, c, d].map((part) => part.toString(16)).join(':')}::/64`;
}

/**
 * The client a limit of requests without a key counts: its network (clientNetwork), found cheaply
 * for the common case. An IPv4 address, also as IPv6 carries it (the socket's `::ffff:a.b.c.d`), is
 * one client as it is; an IPv6 address counts by its /64, or one subscriber's addresses would each
 * have a budget of their own.
 */
export function clientLimitKey(ctx: Context, trustProxy: boolean): string {
  const address = clientAddress(ctx, trustProxy);
  // Only an IPv4 address as the socket gives it is taken as written: an IPv6 address with a
  // dotted tail (`2001:db8::1.2.3.4`, from a trusted proxy's header) is an address of its /64.
  return !address.includes(':') || SOCKET_IPV4.test(address) ? address : clientNetwork(address);
}

/** An IPv4 client as a dual-stack socket names it. */
const SOCKET_IPV4 = /^::ffff:\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
