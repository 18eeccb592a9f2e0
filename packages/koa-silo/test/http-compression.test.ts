/**
 * Contract §18 over real HTTP: compressed answers (br before gzip, only over about 1 KB, Vary,
 * an ETag per representation, If-None-Match and If-Match accepting either) and
 * `Prefer: return=minimal` on create, the three kinds of PATCH and restore.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let big: string;
let small: string;
const BIG = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'the same words again and again' }));

/** A raw GET (no decoding by the client), with its headers and body bytes. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: h.server.port, path, headers: { host: 'api.localhost', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 } } });
  alice = await h.account('alice');
  big = await h.create(alice, { file_name: 'big', file_data: BIG, is_public: true });
  small = await h.create(alice, { file_name: 'small', file_data: { a: 1 }, is_public: true });
});
afterAll(() => h.close());

describe('compression', () => {
  it('sends br when accepted (preferred to gzip), gzip otherwise, identity without Accept-Encoding', async () => {
    const br = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(JSON.parse(zlib.brotliDecompressSync(br.body).toString())).toEqual(BIG);
    const identity = await rawGet(`/public/${big}`, {});
    expect(br.body.length).toBeLessThan(identity.body.length / 5);

    const gz = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gz.body).toString())).toEqual(BIG);

    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toMatch(/Accept-Encoding/);
    expect(JSON.parse(identity.body.toString())).toEqual(BIG);
  });

  it("follows the client's weights: the heaviest coding (br on a tie), identity when weighed above both, none for a weight that is no weight", async () => {
    const cases: Array<[string, string | undefined]> = [
      ['gzip;q=0.5, br;q=0.4', 'gzip'],
      ['br;q=0.5, gzip;q=0.5', 'br'],
      ['*;q=0.2, gzip;q=0.3', 'gzip'],
      ['gzip;q=0.5, identity', undefined],
      ['gzip;q=abc', undefined],
      ['gzip;q=1.5, br;q=0.1', 'br'],
      ['GZIP; Q=0.9', 'gzip'],
    ];
    for (const [accept, coding] of cases) {
      const got = await rawGet(`/public/${big}`, { 'Accept-Encoding': accept });
      expect(got.headers['content-encoding'], accept).toBe(coding);
    }
  });

  it("compresses a large write's answer too (made for that answer alone: the fast levels)", async () => {
    const doc = Array.from({ length: 6000 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'the same words again and again' }));
    const body = JSON.stringify({ file_data: doc });
    const reply = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: h.server.port,
          path: `/api/v1/manage/${big}`,
          method: 'PATCH',
          headers: { host: 'api.localhost', ...manage(alice), 'content-type': 'application/json', 'accept-encoding': 'br' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(256 * 1024);
    expect(reply.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(reply.body).toString())).toMatchObject({ file_name: 'big', file_data: doc, version: 2 });
    expect(reply.body.length).toBeLessThan(Buffer.byteLength(body) / 5);
  });

  it('compresses a small answer (compressed at once, on the event loop) in either coding, byte-exact', async () => {
    const doc = Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}` }));
    const uuid = await h.create(alice, { file_name: 'a few KB', file_data: doc, is_public: true });
    const identity = await rawGet(`/public/${uuid}`, {});
    expect(identity.body.length).toBeGreaterThan(1024);
    expect(identity.body.length).toBeLessThan(8 * 1024);
    const br = await rawGet(`/public/${uuid}`, { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    const gz = await rawGet(`/public/${uuid}`, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(identity.body)).toBe(true);
    expect(br.headers.etag).not.toBe(gz.headers.etag);
  });

  it('leaves tiny answers alone', async () => {
    const tiny = await rawGet(`/public/${small}`, { 'Accept-Encoding': 'br, gzip' });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(tiny.body.toString())).toEqual({ a: 1 });
  });

  it('gives each representation its own ETag, and If-None-Match takes either', async () => {
    const br = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'br' });
    const identity = await rawGet(`/public/${big}`, {});
    expect(br.headers.etag).not.toBe(identity.headers.etag);
    expect(br.headers.etag).toBe(`${identity.headers.etag!.slice(0, -1)}-br"`);
    expect((await rawGet(`/public/${big}`, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! })).status).toBe(304);
    expect((await rawGet(`/public/${big}`, { 'If-None-Match': br.headers.etag! })).status).toBe(304);
  });

  it('names in a 304 the representation the client holds, with Vary, as the 200 that sent it did (a cache refreshes its gzip copy by it)', async () => {
    const gzip = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'gzip' });
    const again = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': `W/${gzip.headers.etag!}` });
    expect([again.status, again.headers.etag, again.headers.vary]).toEqual([304, gzip.headers.etag, 'Accept-Encoding']);
    // Now taking br (and gzip, lighter): the 200 would be the br one, so is the 304's tag.
    const br = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'br, gzip;q=0.5', 'If-None-Match': gzip.headers.etag! });
    expect([br.status, br.headers.etag]).toEqual([304, gzip.headers.etag!.replace('-gzip"', '-br"')]);
    // No longer taking gzip: the 200 would be the identity one, so is the 304's tag.
    const identity = await rawGet(`/public/${big}`, { 'If-None-Match': gzip.headers.etag! });
    expect([identity.status, identity.headers.etag]).toEqual([304, gzip.headers.etag!.replace('-gzip"', '"')]);
    // Holding the identity one: as before.
    const plain = await rawGet(`/public/${big}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': identity.headers.etag! });
    expect([plain.status, plain.headers.etag, plain.headers.vary]).toEqual([304, identity.headers.etag, undefined]);
  });

  it('takes a compressed representation\'s ETag in If-Match', async () => {
    const got = await rawGet(`/api/v1/manage/${big}`, { 'Accept-Encoding': 'gzip', ...manage(alice) });
    expect(got.headers['content-encoding']).toBe('gzip');
    const renamed = await h.client.request(`/api/v1/manage/${big}`, {
      method: 'PATCH',
      headers: manage(alice, { 'If-Match': got.headers.etag! }),
      body: { file_name: 'renamed' },
    });
    expect(renamed.status, renamed.text.slice(0, 200)).toBe(200);
  });
});

describe('Prefer: return=minimal', () => {
  const minimal = (extra: Record<string, string> = {}) => manage(alice, { Prefer: 'return=minimal', ...extra });

  it('answers a PATCH of each kind, and a restore, without file_data', async () => {
    const uuid = await h.create(alice, { file_name: 'm', file_data: [{ n: 1 }] });
    const bodies: [string, unknown][] = [
      ['application/json', { file_name: 'm2' }],
      ['application/merge-patch+json', { file_name: 'm3' }],
      ['application/json-patch+json', [{ op: 'add', path: '/file_data/-', value: { n: 2 } }]],
    ];
    let version = 1;
    for (const [type, body] of bodies) {
      const reply = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: minimal({ 'content-type': type }), body });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.headers['preference-applied']).toBe('return=minimal');
      expect(reply.json).not.toHaveProperty('file_data');
      expect(reply.json.version).toBe(++version);
      expect(reply.headers.etag).toMatch(/^".+"$/);
    }
    const restored = await h.client.request(`/api/v1/manage/${uuid}/versions/1/restore`, { method: 'POST', headers: minimal() });
    expect(restored.json).toMatchObject({ file_uuid: uuid, version: 5 });
    expect(restored.json).not.toHaveProperty('file_data');
    expect(restored.headers['preference-applied']).toBe('return=minimal');
    // Without the preference, the answer is as before.
    const full = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body: { file_name: 'm4' } });
    expect(full.json.file_data).toEqual([{ n: 1 }]);
    expect(full.headers['preference-applied']).toBeUndefined();
  });

  it('marks a create as minimal (its answer never carries file_data)', async () => {
    const reply = await h.client.request('/api/v1/manage/', { method: 'POST', headers: minimal(), body: { file_name: 'c', file_data: {} } });
    expect(reply.status).toBe(201);
    expect(reply.headers['preference-applied']).toBe('return=minimal');
  });
});
