/**
 * Requests that are not valid HTTP, on a raw socket to `silo serve`: Node's parser refuses them
 * before any middleware runs. The server answers each with a 4xx status line, closes that
 * connection, and goes on serving.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http-call.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

/** Writes `text` on a fresh connection and returns everything read until the server closes it. */
function raw(port: number, text: string | Buffer, timeoutMs = 3000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: out, closed: false });
    }, timeoutMs);
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: out, closed: true });
    });
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

const MALFORMED: [string, string | Buffer][] = [
  ['a header line without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
  ['a request line of garbage', 'GARBAGE\r\n\r\n'],
  ['a 20 KB request target', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['a broken chunk size', 'POST /api/v1/manage/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ['two different Content-Lengths', 'POST /api/v1/manage/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'],
  ['a raw byte 0xff in the target', Buffer.from('GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1')],
  ['a NUL in a header value', 'GET / HTTP/1.1\r\nHost: x\r\nX-MAN-API: a\u0000b\r\n\r\n'],
  ['Content-Length and chunked together', 'POST /api/v1/manage/ HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
];

describe('malformed HTTP on a raw socket to silo serve', () => {
  let dir: string;
  let server: SiloServer;
  const answers: { name: string; text: string }[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-raw-'));
    server = await startSiloServer({ SILO_DATA_DIR: dir });
    for (const [name, text] of MALFORMED) answers.push({ name, ...(await raw(server.port, text)) });
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers each with a 4xx, closes that connection and keeps serving', async () => {
    for (const a of answers) {
      expect(a.text, a.name).toMatch(/^HTTP\/1\.1 4\d\d /);
    }
    expect(server.alive()).toBe(true);
    const ok = await call(server.port, '/api/v1/manage/silos', { headers: { 'X-MAN-API': server.banner!.manage } });
    expect(ok.status).toBe(200);
  });

  // Node's default clientError handler answers a bare status line; silo serve answers JSON.
  it('answers each with a contract-shaped JSON body', () => {
    for (const a of answers) {
      expect(a.text, a.name).toMatch(/content-type: application\/json/i);
      expect(a.text, a.name).toMatch(/\r\n\r\n\{"detail":/);
    }
  });

  // A body that breaks off mid-stream is the client's fault: a warn line, never an error line.
  it('logs no client garbage at level error', () => {
    expect(server.output()).not.toMatch(/"level":"error"/);
  });
});
