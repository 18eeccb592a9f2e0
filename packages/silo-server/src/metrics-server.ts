/**
 * The metrics listener (contract §19): Prometheus text at `/metrics` on a port of its own
 * (SILO_METRICS_PORT), bound to 127.0.0.1 unless SILO_METRICS_HOST says otherwise, never on the
 * API's port. With SILO_METRICS_TOKEN a scrape must send `Authorization: Bearer <token>` (401
 * otherwise, compared in constant time). Anything else there is a 404; the listener answers
 * nothing but metrics.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SiloMetrics } from 'koa-silo';
import { Counter } from 'prom-client';
import type { ConnectionLimits } from './connection-limits.js';
import { StartupError } from './stores.js';

export interface MetricsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function send(res: http.ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/** The token of an `Authorization: Bearer <token>` header, or '' for any other. */
function bearerToken(header: string | undefined): string {
  const m = /^bearer +(\S+) *$/i.exec(header ?? '');
  return m ? m[1]! : '';
}

/** Serves `metrics` at /metrics on `host`:`port` (0 picks a free port). */
export async function startMetricsServer(metrics: SiloMetrics, options: { port: number; host: string; token?: string }): Promise<MetricsServer> {
  const wanted = options.token === undefined ? undefined : digest(options.token);
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const head = req.method === 'HEAD';
    if (path !== '/metrics') return send(res, 404, 'application/json', '{"detail":"Not Found"}', head);
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'application/json', '{"detail":"Method Not Allowed"}', false);
    }
    // Digests of equal length, compared in constant time: nothing of the token leaks by timing.
    // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` as `Bearer`.
    if (wanted && !timingSafeEqual(digest(bearerToken(req.headers.authorization)), wanted)) {
      res.setHeader('www-authenticate', 'Bearer realm="silo metrics"');
      return send(res, 401, 'application/json', '{"detail":"Not authenticated: send Authorization: Bearer <SILO_METRICS_TOKEN>"}', head);
    }
    metrics.text().then(
      (text) => send(res, 200, metrics.contentType, text, head),
      () => send(res, 500, 'application/json', '{"detail":"Internal Server Error"}', head),
    );
  });
  server.keepAliveTimeout = 65_000;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${options.host}:${options.port}`;
      reject(new StartupError(`cannot serve metrics on ${where}: ${error.code === 'EADDRINUSE' ? 'the port is in use (set SILO_METRICS_PORT)' : error.message}`));
    });
    server.listen({ port: options.port, host: options.host }, () => resolve((server.address() as AddressInfo).port));
  });
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    port,
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The server's own metrics beside Silo's: connections refused by the caps (connection-limits.ts). */
export function serverMetrics(metrics: SiloMetrics | undefined, limits: ConnectionLimits): { connectionRefused(reason: 'total' | 'address'): void } {
  if (!metrics) return { connectionRefused: () => undefined };
  const refused = new Counter({
    name: 'silo_connections_refused_total',
    help: 'Connections closed as they arrived, over the cap in total (total) or per client address (per_address).',
    labelNames: ['reason'],
    registers: [metrics.registry],
  });
  refused.inc({ reason: 'total' }, 0);
  if (limits.perAddress > 0) refused.inc({ reason: 'per_address' }, 0);
  return { connectionRefused: (reason) => refused.inc({ reason: reason === 'total' ? 'total' : 'per_address' }) };
}
