/**
 * What a client gets wrong at the HTTP level is the client's fault: it gets a JSON 4xx like every
 * other error of the contract (§6) and a closed connection, and the log gets a throttled warn
 * line without a stack, so no client can fill the log with its garbage.
 */
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ThrottledWarn } from './log.js';

const CONNECTION_FAULTS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Malformed HTTP (Node's parser codes `HPE_*`) or a connection the client dropped. */
export function isClientFault(err: unknown): boolean {
  const code = codeOf(err);
  if (code !== undefined && (code.startsWith('HPE_') || CONNECTION_FAULTS.has(code))) return true;
  return err instanceof Error && err.message === 'aborted';
}

function detailOf(status: number): string | undefined {
  return status === 431 ? HEADERS_TOO_LARGE : status === 408 ? HEADERS_TOO_SLOW : undefined;
}

/** What a 408 of a request whose headers never finished says (Node's headersTimeout). */
const HEADERS_TOO_SLOW = 'Request Timeout: the request line and headers did not arrive in time';

function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * What a 431 says: which limit, and the likeliest way a legitimate client meets it (a query's
 * parameters are in the request line: a filter of 4 096 non-ASCII characters is up to 48 KiB
 * percent-encoded).
 */
const HEADERS_TOO_LARGE = `Request Header Fields Too Large: the request line and headers may take ${maxHeaderSize / 1024} KiB at most; query parameters count percent-encoded (each non-ASCII character 6 to 12 bytes)`;

/** How long a closing connection may take to flush its error answer before it is cut. */
const FLUSH_MS = 1_000;

/**
 * Writes a final answer straight to the socket (no response object is usable: the request could
 * not be parsed, or the app still holds it) and closes the connection once it is flushed. The
 * body is left out when the request may be a HEAD: a client that sent HEAD reads no body, and
 * would take one for the start of a broken next response.
 */
export function answerAndClose(socket: Duplex, status: number, withBody: boolean, detail?: string): void {
  const body = withBody ? JSON.stringify({ detail: detail ?? `${STATUS_CODES[status]}: the request is not valid HTTP/1.1` }) : '';
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    (withBody ? 'Content-Type: application/json; charset=utf-8\r\n' : '') +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n';
  // HTTP sockets are half-open capable: end() alone would wait for the client to close its side.
  const cut = setTimeout(() => socket.destroy(), FLUSH_MS).unref();
  socket.once('close', () => clearTimeout(cut));
  socket.end(head + body, () => socket.destroy());
}

/**
 * Where on each connection the request now being received began, so that the method of a request
 * Node could not parse can be read from the bytes of the parse error. Node's parser reports no
 * method before the headers are complete; a 17 KB HEAD target fails before that.
 */
export class RequestStarts {
  private readonly sockets = new WeakMap<Duplex, { start: number; inFlight: Array<{ req: IncomingMessage; res: ServerResponse }> }>();

  /** Call for every request the server receives. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    let state = this.sockets.get(socket);
    if (!state) this.sockets.set(socket, (state = { start: 0, inFlight: [] }));
    const s = state;
    const entry = { req, res };
    s.inFlight.push(entry);
    res.on('close', () => {
      const at = s.inFlight.indexOf(entry);
      if (at >= 0) s.inFlight.splice(at, 1);
      // The next request begins where this one ended: known only when nothing was left unread.
      s.start = req.complete ? socket.bytesRead : Number.NaN;
    });
  }

  /** The request whose response is due next on `socket`, if one is under way. */
  pending(socket: Duplex): { req: IncomingMessage; res: ServerResponse } | undefined {
    return this.sockets.get(socket)?.inFlight[0];
  }

  /** `idle`: nothing of a new request arrived; `busy`: a request is under way on the socket. */
  methodOf(socket: Duplex & { bytesRead?: number }, err: Error & { rawPacket?: unknown }): 'HEAD' | 'other' | 'unknown' | 'idle' | 'busy' {
    const state = this.sockets.get(socket);
    if (state && state.inFlight.length > 0) return 'busy';
    const start = state ? state.start : 0;
    const read = socket.bytesRead;
    if (read === undefined) return 'unknown';
    if (read === start) return 'idle';
    const raw = err.rawPacket;
    if (!Buffer.isBuffer(raw)) return 'unknown';
    // The error's chunk is the last `raw.length` bytes read; does the request begin inside it?
    const offset = start - (read - raw.length);
    if (!(offset >= 0 && offset < raw.length)) return 'unknown';
    const line = raw.subarray(offset, offset + 16).toString('latin1').replace(/^[\r\n]+/, '');
    if (line.startsWith('HEAD')) return 'HEAD';
    return line.length < 5 && 'HEAD '.startsWith(line) ? 'unknown' : 'other';
  }
}

/**
 * The server's `clientError` listener: Node's default answers a bare status line without a body;
 * this answers `{"detail": ...}` (no body for a HEAD, or a request whose method is not known) and
 * closes the connection.
 */
export function clientErrorHandler(warn: ThrottledWarn, starts: RequestStarts): (err: Error & { rawPacket?: unknown }, socket: Duplex) => void {
  return (err, socket) => {
    const code = codeOf(err);
    if (!socket.writable || (code !== undefined && CONNECTION_FAULTS.has(code))) {
      // The client is gone: no answer to write, and nothing worth a log line.
      socket.destroy();
      return;
    }
    const method = starts.methodOf(socket, err);
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') warn('slow connection closed', { code, request: method !== 'idle' }, code);
    else warn('malformed request', { error: err.message, ...(code ? { code } : {}) }, code);
    const status = statusOf(code);
    if (method === 'busy') {
      // The error is in the body of a request under way (or in one pipelined after it): the
      // client takes what comes next as the answer to that request, if none has started.
      const { req, res } = starts.pending(socket)!;
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      res.statusCode = status; // what the request log reports
      answerAndClose(socket, status, req.method !== 'HEAD', detailOf(status));
      return;
    }
    // A timeout's request is not known (Node passes no bytes with it), but its answer goes out as
    // the connection closes: a HEAD client reads no body and there is no next response to spoil.
    answerAndClose(socket, status, method === 'other' || method === 'idle' || status === 408, detailOf(status));
  };
}
