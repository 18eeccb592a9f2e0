/**
 * Region ports (SILO_PORT_<REGION>): an extra listener per region whose every request is served
 * as that region, whatever its Host. For clients that cannot choose the Host (Node's fetch drops
 * a Host header) or cannot resolve a region's host name (`sg-01-api.localhost`).
 *
 * The extra listeners accept connections and hand them to the one edge server, so a connection on
 * a region port gets exactly the limits, timeouts, error answers and shutdown of the main port.
 */
import type http from 'node:http';
import net from 'node:net';
import type { Context, Next } from 'koa';
import type { ServerConfig } from './config.js';
import { REGIONS, type Region } from 'koa-silo/model';
import { envSuffix } from './regions.js';
import { StartupError } from './stores.js';

/** Connections the kernel may queue before the server accepts them (as for the main port). */
const LISTEN_BACKLOG = 4096;

export interface RegionPorts {
  /** The real port of each region that has one (the configured one, or the one picked for 0). */
  ports: Partial<Record<Region, number>>;
  /** The Koa middleware that sets the Host of a request on a region port to that region's host. */
  middleware(ctx: Context, next: Next): Promise<void>;
  /**
   * Starts the listeners; rejects with a StartupError naming the setting when one cannot listen.
   * `onAcceptError`: a listening socket's later error (accept failing for want of file descriptors).
   */
  listen(server: http.Server, onAcceptError: (error: NodeJS.ErrnoException) => void): Promise<void>;
  /** Stops accepting; resolves once every connection they accepted has closed. */
  close(): Promise<void>;
}

export function regionPorts(config: Pick<ServerConfig, 'regionPorts' | 'hosts' | 'listenAddress'>): RegionPorts {
  const hostOfPort = new Map<number, string>();
  const ports: Partial<Record<Region, number>> = {};
  const listeners: net.Server[] = [];
  return {
    ports,
    // Not async: every request passes here, and an async function costs a promise.
    middleware(ctx, next) {
      // After http-edge.ts, which may have taken the Host from an absolute-form target.
      const host = hostOfPort.size === 0 ? undefined : hostOfPort.get(ctx.req.socket.localPort ?? -1);
      if (host !== undefined) ctx.req.headers.host = host;
      return next();
    },
    async listen(server, onAcceptError) {
      for (const region of REGIONS) {
        const wanted = config.regionPorts?.[region];
        if (wanted === undefined) continue;
        // The edge server takes the connection from here on (its 'connection' listeners apply the caps).
        const listener = net.createServer((socket) => server.emit('connection', socket));
        listeners.push(listener);
        const port = await listenOn(listener, wanted, config.listenAddress, `SILO_PORT_${envSuffix(region)}`);
        listener.on('error', onAcceptError);
        ports[region] = port;
        hostOfPort.set(port, config.hosts[region]);
      }
    },
    async close() {
      await Promise.all(listeners.map((l) => new Promise<void>((resolve) => (l.listening ? l.close(() => resolve()) : resolve()))));
    },
  };
}

function listenOn(listener: net.Server, port: number, host: string | undefined, setting: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${host ?? '*'}:${port}`;
      const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'permission denied (ports below 1024 need privileges)' : error.message;
      reject(new StartupError(`cannot listen on ${where} (${setting}): ${why}`));
    };
    listener.once('error', onError);
    listener.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      listener.off('error', onError);
      resolve((listener.address() as net.AddressInfo).port);
    });
  });
}

/**
 * The total connection cap over every listener. Node's own `maxConnections` counts the
 * connections of one listener only; region ports hand theirs to the same server, so this counts
 * them all where they arrive and closes those over the cap.
 */
export function capTotalAcrossListeners(server: net.Server, total: number, onRefused: () => void): void {
  if (total <= 0) return;
  let open = 0;
  server.prependListener('connection', (socket: net.Socket) => {
    if (open >= total) {
      socket.destroy();
      onRefused();
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
}
