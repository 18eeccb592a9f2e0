/**
 * How many connections the server holds, and for how long. One client must not be able to take
 * every connection (or every file descriptor) of the process: connections over a cap are closed
 * as soon as they are accepted, before any HTTP parsing, and idle or slow ones are reaped.
 */
import fs from 'node:fs';
import type net from 'node:net';
import type { ServerConfig } from './config.js';

/** Time limits of the HTTP edge (not settings: sensible for every deployment, documented in the README). */
export const TIMEOUTS = {
  /** From the connection (or the end of the previous request) to the end of the request headers. */
  headersMs: 10_000,
  /** A whole request, body included: a 10 MB upload needs only 35 KB/s to make it. */
  requestMs: 300_000,
  /** An idle keep-alive connection between two requests. */
  keepAliveMs: 5_000,
  /** How often Node checks the two limits above (its default, 30 s, would let them overrun by that much). */
  checkEveryMs: 1_000,
  /** A TLS handshake (Node's default is 120 s). */
  tlsHandshakeMs: 10_000,
  /** The window over which a request body must keep up the minimum data rate. */
  bodyRateWindowMs: 10_000,
} as const;

export const DEFAULT_MAX_CONNECTIONS = 10_000;
/** Enough for ~40 browsers (6 connections each) behind one NAT, or a client with a pool of 200. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** Bytes per second: a phone on a poor 2G link still sends several times that. */
export const DEFAULT_MIN_BODY_RATE = 1_000;

export interface ConnectionLimits {
  /** Connections open at once, in total; 0 = no cap. */
  total: number;
  /** Connections open at once from one client address (one IPv6 /64); 0 = no cap. */
  perAddress: number;
  /** Bytes per second a request body must arrive at, over TIMEOUTS.bodyRateWindowMs; 0 = no minimum. */
  minBodyRate: number;
}

/** File descriptors the server keeps for itself beyond its connections (stores, logs, Node). */
const RESERVED_FDS = 256;

/**
 * The limits of a configuration. Behind a trusted proxy every connection comes from the proxy's
 * address, so the per-address cap is off unless set (the proxy limits per client instead).
 * The total cap is lowered to fit the open-file limit, where the system tells it.
 */
export function resolveLimits(
  config: Pick<ServerConfig, 'trustProxy' | 'maxConnections' | 'maxConnectionsPerAddress' | 'minBodyRate'>,
  fileLimit = openFileLimit(),
): ConnectionLimits & { lowered?: { from: number; fileLimit: number } } {
  const wanted = config.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const fits = fileLimit === undefined ? wanted : Math.max(fileLimit - RESERVED_FDS, 64);
  const total = wanted === 0 ? 0 : Math.min(wanted, fits);
  return {
    total,
    perAddress: config.maxConnectionsPerAddress ?? (config.trustProxy ? 0 : DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
    minBodyRate: config.minBodyRate ?? DEFAULT_MIN_BODY_RATE,
    ...(total < wanted && fileLimit !== undefined ? { lowered: { from: wanted, fileLimit } } : {}),
  };
}

/** The process's open-file limit (`ulimit -n`; Node raises it to the hard limit at start), on Linux. */
export function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key a client's connections are counted under: its IPv4 address, or its IPv6 /64 (one
 * network per subscriber, as providers hand them out: counting single IPv6 addresses would let
 * one client open 2^64 times the cap).
 */
export function addressKey(address: string): string {
  const plain = address.split('%')[0]!;
  if (plain.startsWith('::ffff:') && plain.includes('.')) return plain.slice('::ffff:'.length);
  if (!plain.includes(':')) return plain;
  const [head = '', tail] = plain.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(Math.max(8 - left.length - right.length, 0)).fill('0');
  const groups = [...left, ...zeros, ...right].slice(0, 4).map((g) => (g.includes('.') ? g : Number.parseInt(g, 16).toString(16)));
  return `${groups.join(':')}::/64`;
}

export type Refusal = { reason: 'total' | 'address'; address: string | undefined };

/**
 * Applies the caps to a listening (or about to listen) server. A connection over a cap is
 * destroyed on `connection`, so it costs an accept and a close, nothing more.
 */
export function capConnections(server: net.Server, limits: ConnectionLimits, onRefused: (refusal: Refusal) => void): void {
  if (limits.total > 0) {
    // Node closes the handle itself, before a socket object exists, and tells with `drop`.
    server.maxConnections = limits.total;
    server.on('drop', (data?: { remoteAddress?: string }) => onRefused({ reason: 'total', address: data?.remoteAddress }));
  }
  if (limits.perAddress <= 0) return;
  const open = new Map<string, number>();
  // Before the HTTP (or TLS) listener, so that a refused connection gets no parser at all.
  server.prependListener('connection', (socket: net.Socket) => {
    if (socket.remoteAddress === undefined) return; // already gone
    const key = addressKey(socket.remoteAddress);
    const count = (open.get(key) ?? 0) + 1;
    if (count > limits.perAddress) {
      socket.destroy();
      onRefused({ reason: 'address', address: key });
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
