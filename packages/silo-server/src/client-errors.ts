/**
 * What a client gets wrong at the HTTP level is the client's fault: it gets a JSON 4xx like every
 * other error of the contract (§6), and the log gets a warn line without a stack, so no client can
 * fill the error log with its garbage.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from './log.js';

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

function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * The server's `clientError` listener: Node's default answers a bare status line without a body;
 * this answers `{"detail": ...}` and closes the connection.
 */
export function clientErrorHandler(logger: Logger): (err: Error, socket: Duplex) => void {
  return (err, socket) => {
    const code = codeOf(err);
    logger.warn('malformed request', { error: err.message, ...(code ? { code } : {}) });
    if (!socket.writable || code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = statusOf(code);
    const body = JSON.stringify({ detail: `${STATUS_CODES[status]}: the request is not valid HTTP/1.1` });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
