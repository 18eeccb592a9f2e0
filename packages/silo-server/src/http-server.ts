/**
 * The HTTP(S) server around the Koa app, with every limit of the edge in place: connection caps,
 * header, request and keep-alive timeouts, the minimum body rate, JSON answers to malformed
 * requests, and `Expect` handled after the app's checks rather than before them.
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { BodyRateGuard } from './body-rate.js';
import { answerAndClose, clientErrorHandler, RequestStarts } from './client-errors.js';
import { capConnections, TIMEOUTS, type ConnectionLimits } from './connection-limits.js';
import type { ThrottledWarn } from './log.js';

export interface EdgeServer {
  server: http.Server | https.Server;
  /** Stops the edge's timers (after the server has closed). */
  stop(): void;
}

export function createEdgeServer(options: {
  handler: RequestListener;
  limits: ConnectionLimits;
  warn: ThrottledWarn;
  tls?: { cert: Buffer; key: Buffer };
  /** Told of each connection the caps refuse (metrics). */
  onRefused?: (reason: 'total' | 'address') => void;
}): EdgeServer {
  const { handler, limits, warn } = options;
  const serverOptions: http.ServerOptions = {
    headersTimeout: TIMEOUTS.headersMs,
    requestTimeout: TIMEOUTS.requestMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
    connectionsCheckingInterval: TIMEOUTS.checkEveryMs,
    // http-edge.ts answers a missing Host in JSON (Node's own 400 has no body).
    requireHostHeader: false,
  };
  const starts = new RequestStarts();
  const bodies = new BodyRateGuard({
    minBytesPerSecond: limits.minBodyRate,
    windowMs: TIMEOUTS.bodyRateWindowMs,
    onSlow(req, res, bytesInWindow) {
      warn('slow request body cut', { min_bytes_per_s: limits.minBodyRate, bytes_in_window: bytesInWindow, window_s: TIMEOUTS.bodyRateWindowMs / 1000 });
      if (res.headersSent) {
        req.socket.destroy();
        return;
      }
      // The request log reports what the client got.
      res.statusCode = 408;
      answerAndClose(req.socket, 408, req.method !== 'HEAD', `Request Timeout: the body arrived slower than ${limits.minBodyRate} bytes/s`);
    },
  });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    starts.track(req, res);
    bodies.watch(req, res);
    handler(req, res);
  };

  const server = options.tls
    ? https.createServer({ ...serverOptions, ...options.tls, handshakeTimeout: TIMEOUTS.tlsHandshakeMs }, handle)
    : http.createServer(serverOptions, handle);
  // Node would answer 100 Continue as soon as the headers arrive, before any check; the app
  // reads the body only once auth and size checks passed, so the 100 goes out then. A request
  // refused before that gets its final answer directly.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    req.once('resume', () => {
      if (!res.headersSent) res.writeContinue();
    });
    handle(req, res);
  });
  // Other expectations: http-edge.ts answers a JSON 417 (Node's own has no body).
  server.on('checkExpectation', handle);
  server.on('clientError', clientErrorHandler(warn, starts));
  // CONNECT (a proxy's tunnel): Node hands it here, not to the app, and drops the connection
  // without a word when nobody listens. This server is no proxy: say so in JSON, and close.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    answerAndClose(socket, 501, true, 'Not Implemented: this server is not a proxy (CONNECT)');
  });
  capConnections(server, limits, ({ reason, address }) => {
    options.onRefused?.(reason);
    warn('connection refused', { reason: reason === 'total' ? 'max_connections' : 'max_connections_per_address', ...(address ? { address } : {}) }, reason);
  });
  // Once listening, an error of the listening socket (accept failing for want of file
  // descriptors) is reported, not a crash; the listen error itself is handled by listen().
  server.on('listening', () => server.on('error', (err: NodeJS.ErrnoException) => warn('accepting a connection failed', { error: err.message, code: err.code }, err.code)));
  return {
    server,
    stop: () => {
      bodies.stop();
      warn.flush();
    },
  };
}
