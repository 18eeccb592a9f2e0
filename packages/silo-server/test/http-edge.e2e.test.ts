/**
 * HTTP/1.1 at the edge of a spawned `silo serve` (issue 10, item 6): a HEAD refused by the parser
 * gets no body, the host of an absolute-form target routes the request, two Host headers are a
 * 400, `Expect: 100-continue` is answered only after auth and size checks, an unknown expectation
 * is a JSON 417, the listing refuses PATCH and DELETE with 405, percent-encoded key values stay
 * out of the log, and malformed requests cannot flood it.
 */
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, startSilo, tempDir, type SiloServer } from '../../../test/support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

/**
 * Writes `parts` on one connection (waiting `gapMs` between them, and before each part after the
 * first until the previous answer arrived when `awaitEach`) and returns everything read until the
 * server closes the connection or `limitMs` passes.
 */
function exchange(port: number, parts: string[], opts: { limitMs?: number; awaitEach?: boolean } = {}): Promise<{ text: string; closedAfterMs?: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = performance.now();
    let text = '';
    let next = 0;
    const timer = setTimeout(() => done(undefined), opts.limitMs ?? 3_000);
    const done = (closedAfterMs: number | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ...(closedAfterMs !== undefined ? { closedAfterMs } : {}) });
    };
    const send = () => {
      if (next < parts.length && socket.writable) socket.write(parts[next++]!);
    };
    socket.on('connect', () => {
      send();
      if (!opts.awaitEach) while (next < parts.length) send();
    });
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (opts.awaitEach) send();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(performance.now() - started));
  });
}

/** Node's own client, as a user's program would send the request. */
function nodeRequest(port: number, method: string, target: string): Promise<{ status: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers: { host: 'api.localhost' }, agent: false });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        // A body where HEAD expects none shows up as a parse error after the response.
        setTimeout(() => resolve({ status: res.statusCode!, body, ...(failure ? { error: failure } : {}) }), 100);
      });
    });
    let failure: string | undefined;
    req.on('error', (e: NodeJS.ErrnoException) => {
      failure = `${e.code}: ${e.message}`;
      resolve({ status: 0, body: '', error: failure });
    });
    req.end();
  });
}

const json = { 'Content-Type': 'application/json' };

describe('the HTTP edge of silo serve', () => {
  const dir = tempDir('edge');
  let server: SiloServer;
  let keys: { manage: string; access: string };
  let sgUuid: string;

  beforeAll(async () => {
    server = await startSilo({ env: { SILO_DATA_DIR: path.join(dir, 'data'), SILO_RATE_LIMIT_PER_MINUTE: '0' }, cwd: dir });
    keys = server.keys!;
    const res = await server.fetch('/api/v1/manage/', {
      method: 'POST',
      headers: { ...json, 'X-MAN-API': keys.manage },
      body: JSON.stringify({ file_name: 'sg', file_data: { where: 'sg' }, region_name: 'sg-01-api', is_public: true }),
    });
    expect(res.status).toBe(201);
    sgUuid = ((await res.json()) as { file_uuid: string }).file_uuid;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('answers a HEAD refused by the parser (17 to 70 KB target) without a body, a GET with JSON', async () => {
    for (const size of [17_000, 40_000, 70_000]) {
      const target = `/${'a'.repeat(size)}`;
      const head = await nodeRequest(server.port, 'HEAD', target);
      expect(head, `HEAD ${size}`).toEqual({ status: 431, body: '' });
      const get = await nodeRequest(server.port, 'GET', target);
      expect(get.status, `GET ${size}`).toBe(431);
      expect(JSON.parse(get.body)).toEqual({
        detail: 'Request Header Fields Too Large: the request line and headers may take 16 KiB at most; query parameters count percent-encoded (each non-ASCII character 6 to 12 bytes)',
      });
    }
    // The same on a kept-alive connection, after a first request.
    const healthz = 'GET /healthz HTTP/1.1\r\nHost: api.localhost\r\n\r\n';
    const headAfter = await exchange(server.port, [healthz, `HEAD /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: api.localhost\r\n\r\n`], { awaitEach: true });
    const second = headAfter.text.slice(headAfter.text.indexOf('HTTP/1.1', 5));
    expect(second).toMatch(/^HTTP\/1\.1 431 [^\r]*\r\n/);
    expect(second).toMatch(/\r\nContent-Length: 0\r\n/i);
    expect(second.endsWith('\r\n\r\n')).toBe(true);
    const getAfter = await exchange(server.port, [healthz, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: api.localhost\r\n\r\n`], { awaitEach: true });
    expect(getAfter.text).toMatch(/HTTP\/1\.1 431 [^]*\r\n\r\n\{"detail":"Request Header Fields Too Large/);
  }, 20_000);

  it('routes an absolute-form target by its own host, not the Host header (RFC 9112 §3.2.2)', async () => {
    const viaTarget = await exchange(server.port, [`GET http://sg-01-api.localhost/public/${sgUuid} HTTP/1.1\r\nHost: api.localhost\r\nConnection: close\r\n\r\n`]);
    expect(viaTarget.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(viaTarget.text).toMatch(/\r\n\r\n\{"where":"sg"\}$/);
    const wrongTarget = await exchange(server.port, [`GET http://api.localhost:80/public/${sgUuid} HTTP/1.1\r\nHost: sg-01-api.localhost\r\nConnection: close\r\n\r\n`]);
    expect(wrongTarget.text).toMatch(/^HTTP\/1\.1 404 /);
    const line = server.logs().find((l) => l.msg === 'request' && l.path === `/public/${sgUuid}` && l.status === 200);
    expect(line).toMatchObject({ host: 'sg-01-api.localhost' });
  });

  it('refuses two Host headers, a missing one, and a malformed target with a JSON 400 and closes', async () => {
    const cases = [
      'GET /healthz HTTP/1.1\r\nHost: api.localhost\r\nHost: sg-01-api.localhost\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: api.localhost\r\nhost: api.localhost\r\n\r\n',
      'GET /healthz HTTP/1.1\r\n\r\n',
      'GET ftp://api.localhost/healthz HTTP/1.1\r\nHost: api.localhost\r\n\r\n',
      'GET http://user@api.localhost/healthz HTTP/1.1\r\nHost: api.localhost\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n',
    ];
    for (const request of cases) {
      const r = await exchange(server.port, [request]);
      expect(r.text, request).toMatch(/^HTTP\/1\.1 400 /);
      expect(r.text, request).toMatch(/\r\nConnection: close\r\n/i);
      expect(r.text, request).toMatch(/\r\n\r\n\{"detail":"Bad Request: [^"]+"\}$/);
      expect(r.closedAfterMs, request).toBeDefined();
    }
  });

  it('sends 100 Continue only after auth and size checks; refuses an unknown expectation with a JSON 417', async () => {
    const head = (length: number, extra: string) =>
      `POST /api/v1/manage/ HTTP/1.1\r\nHost: api.localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
    const noKey = await exchange(server.port, [head(50_000_000, 'Expect: 100-continue\r\n')]);
    expect(noKey.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(noKey.text).not.toContain('100 Continue');
    expect(noKey.closedAfterMs).toBeLessThan(1_000);
    const tooLarge = await exchange(server.port, [head(50_000_000, `Expect: 100-continue\r\nX-MAN-API: ${keys.manage}\r\n`)]);
    expect(tooLarge.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(tooLarge.text).not.toContain('100 Continue');
    expect(tooLarge.closedAfterMs).toBeLessThan(1_000);

    // A client that waits for the 100 before sending its body, as curl does.
    const body = JSON.stringify({ file_name: 'continued', file_data: { ok: true } });
    const accepted = await exchange(server.port, [head(Buffer.byteLength(body), `Expect: 100-continue\r\nX-MAN-API: ${keys.manage}\r\nConnection: close\r\n`), body], { awaitEach: true });
    expect(accepted.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);

    const unknown = await exchange(server.port, [head(2, 'Expect: something-else\r\n') + '{}']);
    expect(unknown.text).toMatch(/^HTTP\/1\.1 417 /);
    expect(unknown.text).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
    expect(unknown.text).toMatch(/\r\n\r\n\{"detail":"Expectation Failed: [^"]+"\}$/);
  });

  it('answers a body a few megabytes too large with its 413 (or 401) when the client sends it all first, as fetch does', async () => {
    // The connection was closed after the early answer: to fetch, a broken pipe in 2 of 12 tries.
    const body = JSON.stringify({ file_name: 'big', file_data: { pad: 'x'.repeat(12_000_000) } });
    for (let i = 0; i < 8; i++) {
      const keyed = i % 2 === 0;
      const res = await server.fetch('/api/v1/manage/', { method: 'POST', headers: { ...json, ...(keyed ? { 'X-MAN-API': keys.manage } : {}) }, body });
      expect(res.status).toBe(keyed ? 413 : 401);
      expect(((await res.json()) as { detail: unknown }).detail).toBeDefined();
    }
  }, 60_000);

  it('refuses a transfer coding other than chunked with a JSON 501, and closes; chunked alone is read', async () => {
    const body = JSON.stringify({ file_name: 'coded', file_data: { ok: true } });
    const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const head = (codings: string) =>
      `POST /api/v1/manage/ HTTP/1.1\r\nHost: api.localhost\r\nContent-Type: application/json\r\nX-MAN-API: ${keys.manage}\r\nTransfer-Encoding: ${codings}\r\n\r\n`;
    for (const codings of ['gzip, chunked', 'deflate,chunked']) {
      const refused = await exchange(server.port, [head(codings) + chunked]);
      expect(refused.text).toMatch(/^HTTP\/1\.1 501 /);
      expect(refused.text).toMatch(/\r\nConnection: close\r\n/i);
      expect(refused.text).toMatch(/\r\n\r\n\{"detail":"Not Implemented: the only transfer coding supported is chunked"\}$/);
    }
    const read = await exchange(server.port, [head('chunked').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n') + chunked]);
    expect(read.text).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('answers CONNECT (this is no proxy) with a JSON 501, and closes', async () => {
    const reply = await exchange(server.port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    expect(reply.text).toMatch(/^HTTP\/1\.1 501 /);
    expect(reply.text).toMatch(/\r\n\r\n\{"detail":"Not Implemented: this server is not a proxy \(CONNECT\)"\}$/);
  });

  it('answers PATCH and DELETE on the listing with 405 and Allow: GET, HEAD, OPTIONS', async () => {
    for (const method of ['PATCH', 'DELETE', 'PUT', 'POST']) {
      const res = await server.fetch('/api/v1/manage/silos', { method, headers: { ...json, 'X-MAN-API': keys.manage }, body: method === 'DELETE' ? null : '{}' });
      expect([method, res.status, res.headers.get('allow'), await res.json()]).toEqual([method, 405, 'GET, HEAD, OPTIONS', { detail: 'Method Not Allowed' }]);
    }
  });

  it('keeps percent-encoded key values out of the request log (path and Host)', async () => {
    const random = keys.manage.slice('silo_man_'.length);
    const encodings = [`silo%5Fman%5F${random}`, `silo%5fman%5f${random}`, `%73ilo_man_${random}`, `silo%255Fman%255F${random}`];
    for (const encoded of encodings) {
      await server.fetch(`/api/v1/manage/${encoded}`, { headers: { 'X-MAN-API': keys.manage } });
      await exchange(server.port, [`GET /public/${sgUuid} HTTP/1.1\r\nHost: ${encoded}.example\r\nConnection: close\r\n\r\n`]);
    }
    await new Promise((r) => setTimeout(r, 100));
    const requests = server.logs().filter((l) => l.msg === 'request');
    expect(requests.filter((l) => String(l.path).startsWith('/api/v1/manage/silo_man_…')).length).toBe(encodings.length);
    expect(requests.filter((l) => String(l.host).startsWith('silo_man_…')).length).toBe(encodings.length);
    expect(server.stdout()).not.toContain(random.slice(0, 12));
  });

  it('writes a few warn lines, not one per request, for a flood of malformed requests', async () => {
    const before = server.logs().length;
    await Promise.all(Array.from({ length: 200 }, () => exchange(server.port, ['GARBAGE\r\n\r\n'])));
    await new Promise((r) => setTimeout(r, 100));
    const lines = server.logs().slice(before).filter((l) => l.msg === 'malformed request');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(2);
  });
});
