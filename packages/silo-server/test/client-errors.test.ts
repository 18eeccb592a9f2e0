/**
 * The answers of the server's `clientError` listener. A request whose headers never finished (Node's
 * headersTimeout) got a 408 with an empty body: every other error of the contract is JSON (§6).
 */
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clientErrorHandler, RequestStarts } from '../src/client-errors.js';
import type { ThrottledWarn } from '../src/log.js';

/** A socket that keeps what is written to it. */
function socketOf(): Duplex & { written: () => string } {
  const chunks: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return Object.assign(socket, { written: () => Buffer.concat(chunks).toString('latin1') });
}

const warn = Object.assign(() => undefined, { flush: () => undefined }) as ThrottledWarn;

describe('clientErrorHandler', () => {
  it('answers headers that never finished with a JSON 408, and closes', async () => {
    const socket = socketOf();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    clientErrorHandler(warn, new RequestStarts())(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    await closed;
    const [head, body] = socket.written().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nConnection: close$/);
    expect(JSON.parse(body!)).toEqual({ detail: 'Request Timeout: the request line and headers did not arrive in time' });
  });
});
