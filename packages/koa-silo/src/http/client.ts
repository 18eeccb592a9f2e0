/** The client address used for rate limits of unauthenticated requests. */
import type { Context } from 'koa';
import ipaddr from 'ipaddr.js';

/**
 * The socket's peer address; with `trustProxy`, the last X-Forwarded-For entry (the address the
 * trusted proxy saw; entries before it are whatever the client claimed).
 */
export function clientAddress(ctx: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? lastForwarded(ctx, 'X-Forwarded-For') : undefined;
  return forwarded ?? ctx.req.socket.remoteAddress ?? 'unknown';
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
