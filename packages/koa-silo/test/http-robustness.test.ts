/**
 * No client input gives a 500: malformed, oversized, deeply nested, badly encoded or strangely
 * typed bodies; unknown paths and methods; a storage outage (503, then recovery). Also the size
 * limit at its exact edge, and Silo mounted beside an app's own routes.
 */
import http from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import Koa from 'koa';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilo } from '../src/index.js';
import { access, listen, manage, rawRequest, startSilo, type Account, type Harness } from './support/http.js';
import { FlakyMap } from '../../../test/support/flaky-map.js';

const LIMIT = 2000;

let h: Harness;
let alice: Account;
/** An account on a plan large enough that bodies reach the parser. */
let roomy: Account;

beforeAll(async () => {
  h = await startSilo({
    plans: { default: { maxDataBytes: LIMIT, rateLimitPerMinute: 0 }, big: { maxDataBytes: 3_000_000, rateLimitPerMinute: 0 } },
  });
  alice = await h.account('alice');
  roomy = await h.account('roomy', 'big');
});
afterAll(() => h.close());

const post = (body: unknown, headers: Record<string, string> = {}, account: Account = alice) =>
  h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(account, headers), body });

/** POST to the manage API with `headers` (besides Host and Content-Type) and a body as `send` writes it, ended or not: the answer. */
const rawPost = (headers: Record<string, string>, send: (req: http.ClientRequest) => void) =>
  new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: h.server.port,
        path: '/api/v1/manage/',
        method: 'POST',
        agent: false,
        headers: { host: 'api.localhost', 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
      },
    );
    req.on('error', reject);
    send(req);
  });

/** A chunked body of `account`'s, as `send` writes it. */
const postChunked = (account: Account, send: (req: http.ClientRequest) => void) => rawPost({ 'transfer-encoding': 'chunked', ...manage(account) }, send);

/** A file_data object whose compact JSON text is exactly `bytes` long. */
function dataOfSize(bytes: number): { pad: string } {
  const pad = 'x'.repeat(bytes - '{"pad":""}'.length);
  const data = { pad };
  expect(JSON.stringify(data).length).toBe(bytes);
  return data;
}

describe('body limits (plan maxDataBytes)', () => {
  it('accepts file_data of exactly the limit and refuses one byte more with a 413 stating the limit', async () => {
    const ok = await post({ file_name: 'edge', file_data: dataOfSize(LIMIT) });
    expect(ok.status).toBe(201);
    const over = await post({ file_name: 'edge', file_data: dataOfSize(LIMIT + 1) });
    expect(over.status).toBe(413);
    expect(over.json.detail).toContain(String(LIMIT));
    const uuid = ok.json.file_uuid;
    const patchOver = await h.client.request(`/api/v1/manage/${uuid}`, {
      method: 'PATCH',
      headers: manage(alice),
      body: { file_data: dataOfSize(LIMIT + 1) },
    });
    expect(patchOver.status).toBe(413);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).json.data.pad).toHaveLength(LIMIT - 10);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const pad = 'é'.repeat(LIMIT / 2); // 2 bytes each: the text is LIMIT + 10 bytes
    const reply = await post({ file_name: 'utf8', file_data: { pad } });
    expect(reply.status).toBe(413);
  });

  /** POST a body declared as 100 MB (more than a refused body's rest that is read and dropped) of which only the first bytes are ever sent. */
  const postHugeDeclared = (headers: Record<string, string>) =>
    rawPost({ 'content-length': String(100_000_000), ...headers }, (req) => req.write('{"file_name":"x","file_data":{"pad":"'));

  it('refuses a huge declared body before reading it, and closes the connection', async () => {
    const started = Date.now();
    const reply = await postHugeDeclared(manage(alice));
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body).detail).toContain(String(LIMIT));
    expect(reply.connection).toBe('close');
    const anonymous = await postHugeDeclared({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.connection).toBe('close');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses a chunked body once it grows past the limit, without waiting for its end', async () => {
    const reply = await postChunked(alice, (req) => {
      req.write('{"file_name":"x","file_data":{"pad":"');
      const chunk = 'y'.repeat(16 * 1024);
      let sent = 0;
      const pump = () => {
        // Keep streaming (never ending the body) until the server has answered.
        if (sent < 200 && !req.destroyed) {
          sent++;
          req.write(chunk);
          setTimeout(pump, 1);
        }
      };
      pump();
    });
    expect(reply.status).toBe(413);
  });

  it('takes the plan of the key\'s account, and stores and serves a huge string', async () => {
    const body = { file_name: 'huge string', file_data: { s: 'z'.repeat(2_500_000) } };
    expect((await post(body)).status).toBe(413);
    const reply = await post(body, {}, roomy);
    expect(reply.status).toBe(201);
    const got = await h.client.get(`/api/v1/manage/${reply.json.file_uuid}`, { headers: manage(roomy) });
    expect(got.json.data.s).toHaveLength(2_500_000);
    const read = await h.client.get(`/${reply.json.file_uuid}?path=s&output=text`, { headers: access(roomy) });
    expect(read.json).toHaveLength(2_500_000);
  });
});

describe('malformed bodies', () => {
  const cases: [string, string | Buffer, string][] = [
    // (A body over the plan limit is a 413 before it is parsed; these go to an account with room.)
    ['truncated JSON', '{"file_name": "x", "file_data": {', 'json_invalid'],
    ['trailing garbage', '{"file_name": "x", "file_data": {}} x', 'json_invalid'],
    ['single quotes', "{'file_name': 'x'}", 'json_invalid'],
    ['NaN', '{"file_name": "x", "file_data": {"n": NaN}}', 'json_invalid'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'json_invalid'],
    ['lone surrogate bytes', Buffer.from('{"file_name":"\xed\xa0\x80","file_data":{}}', 'latin1'), 'json_invalid'],
    ['100 000 opening brackets', '['.repeat(100_000), 'json_too_deep'],
    ['deep nesting inside file_data', `{"file_name":"x","file_data":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`, 'json_too_deep'],
    ['empty body', '', 'missing'],
  ];
  for (const [name, body, type] of cases) {
    it(`answers ${name} with 422 ${type} at ["body"]`, async () => {
      const reply = await post(body, {}, roomy);
      expect(reply.status).toBe(422);
      expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body'], type })]);
    });
  }

  /** POST `pieces` as separate chunks, a pause between them so that each arrives on its own. */
  const postInPieces = (pieces: Buffer[]) =>
    postChunked(roomy, async (req) => {
      for (const piece of pieces) {
        req.write(piece);
        await new Promise((r) => setTimeout(r, 20));
      }
      req.end();
    });

  it('decodes characters whose bytes arrive in different chunks, and refuses a body that ends inside one', async () => {
    const text = Buffer.from('{"file_name":"é€😀","file_data":{"s":"日本語 é€😀"}}');
    // Cut inside every multi-byte character: after each character's first byte.
    const cuts = [...text.keys()].filter((i) => text[i]! >= 0xc0).map((i) => i + 1);
    const pieces = [0, ...cuts].map((start, k) => text.subarray(start, [...cuts, text.length][k]));
    const made = await postInPieces(pieces);
    expect(made.status, made.body).toBe(201);
    const got = await h.client.get(`/api/v1/manage/${(JSON.parse(made.body) as { file_uuid: string }).file_uuid}`, { headers: manage(roomy) });
    expect(got.json).toEqual({ data: { s: '日本語 é€😀' } });
    expect(JSON.parse(made.body)).toMatchObject({ file_name: 'é€😀' });

    const cut = await postInPieces([Buffer.from('{"file_name":"x","file_data":{"s":"'), Buffer.from([0xe2, 0x82])]);
    expect(cut.status).toBe(422);
    expect(JSON.parse(cut.body).detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_invalid', msg: 'JSON decode error: the body is not valid UTF-8' })]);
  });

  it('refuses 100 000 opening brackets over the plan limit with 413 before parsing', async () => {
    expect((await post('['.repeat(100_000))).status).toBe(413);
  });

  it('does not count brackets inside strings (escaped quotes and backslashes included)', async () => {
    const s = `${'['.repeat(3000)}\\"${'{'.repeat(3000)}\\\\`;
    const reply = await post({ file_name: 'brackets', file_data: { s, t: '"]]]' } }, {}, roomy);
    expect(reply.status).toBe(201);
    const got = await h.client.get(`/api/v1/manage/${reply.json.file_uuid}`, { headers: manage(roomy) });
    expect(got.json.data).toEqual({ s, t: '"]]]' });
  });

  it('stores and serves nesting within the depth limit', async () => {
    const depth = 900;
    const text = `{"file_name":"deep","file_data":{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}}`;
    const created = await post(text);
    expect(created.status).toBe(201);
    const uuid = created.json.file_uuid;
    const got = await h.client.get(`/${uuid}`, { headers: access(alice) });
    expect(got.text).toBe(`{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}`);
    expect((await h.client.get(`/${uuid}?path=a.0.0.0`, { headers: access(alice) })).status).toBe(200);
  });

  it('reads the body as JSON whatever the Content-Type says', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json; charset=utf-8']) {
      const reply = await post(JSON.stringify({ file_name: type, file_data: {} }), { 'content-type': type });
      expect(reply.status, type).toBe(201);
    }
  });

  it('answers a compressed body with 415', async () => {
    const reply = await post('\x1f\x8b', { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(415);
  });

  it('takes a UTF-8 byte order mark', async () => {
    const reply = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"file_name":"bom","file_data":{}}')]));
    expect(reply.status).toBe(201);
  });

  it('stores __proto__ and constructor keys as plain data', async () => {
    const text = '{"file_name":"proto","file_data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}},"__proto__":{"is_public":true}}';
    const created = await post(text);
    expect(created.status).toBe(201);
    expect(created.json.is_public).toBe(false);
    const got = await h.client.get(`/api/v1/manage/${created.json.file_uuid}`, { headers: manage(alice) });
    expect(got.text).toBe('{"data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const path = await h.client.get(`/${created.json.file_uuid}?path=__proto__.polluted`, { headers: access(alice) });
    expect(path.json).toBe(true);
  });

  it('never answers 500 to arbitrary bodies, headers or query strings (fuzz)', async () => {
    const uuid = await h.create(alice, { file_name: 'fuzz', file_data: [{ a: 1 }] });
    const jsonish = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ file_name: fc.jsonValue(), file_data: fc.jsonValue(), region_name: fc.jsonValue(), is_public: fc.jsonValue() }).map((v) => JSON.stringify(v)),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'PATCH'),
        jsonish,
        fc.string({ maxLength: 40 }),
        async (method, body, query) => {
          const path = method === 'POST' ? '/api/v1/manage/' : `/api/v1/manage/${uuid}`;
          const reply = await h.client.request(path, { method, headers: manage(alice), body });
          expect(reply.status).toBeLessThan(500);
          const q = encodeURIComponent(query).replace(/%3D/g, '=').replace(/%26/g, '&');
          const read = await h.client.get(`/${uuid}?${q}`, { headers: access(alice) });
          expect(read.status).toBeLessThan(500);
          const list = await h.client.get(`/api/v1/manage/silos?${q}`, { headers: manage(alice) });
          expect(list.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('takes odd headers in its stride', async () => {
    const long = 'k'.repeat(8000);
    expect((await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': long } })).status).toBe(401);
    expect((await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': 'silo_man_\u00e9' } })).status).toBe(401);
    expect((await h.client.get('/api/v1/manage/silos', { host: '[::1]:8080', headers: manage(alice) })).status).toBe(200);
    expect((await h.client.get('/api/v1/manage/silos', { headers: manage(alice, { 'If-None-Match': '"', 'If-Match': ',,,' }) })).status).toBe(200);
    const uuid = await h.create(alice, { file_name: 'h', file_data: {} });
    const weird = await h.client.request(`/api/v1/manage/${uuid}`, {
      method: 'PATCH',
      headers: manage(alice, { 'If-Match': '"unterminated' }),
      body: { file_name: 'y' },
    });
    expect(weird.status).toBe(412);
  });
});

describe('paths and methods', () => {
  it('answers unknown paths under Silo\'s addresses with 404 {"detail":"Not Found"}', async () => {
    // (/api/v1/manage/meta itself is get-silo with the uuid "meta": a 422, as in the hosted service.)
    for (const path of ['/api/v1/manage/a/b', '/api/v1/manage/meta/x/y', '/nope', '/public/not-a-uuid']) {
      const reply = await h.client.get(path, { headers: manage(alice) });
      expect(reply.status, path).toBe(404);
      expect(reply.json).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    // OPTIONS is answered on every path, so every Allow names it.
    const cases: [string, string, string[]][] = [
      ['PUT', `/api/v1/manage/${uuid}`, ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS']],
      ['GET', '/api/v1/manage/', ['POST', 'OPTIONS']],
      ['GET', '/api/v1/manage', ['POST', 'OPTIONS']],
      ['DELETE', '/api/v1/manage/silos', ['GET', 'HEAD', 'OPTIONS']],
      ['PATCH', '/api/v1/manage/silos', ['GET', 'HEAD', 'OPTIONS']],
      ['DELETE', `/api/v1/manage/${uuid}/versions`, ['GET', 'HEAD', 'OPTIONS']],
      ['GET', `/api/v1/manage/${uuid}/versions/1/restore`, ['POST', 'OPTIONS']],
      ['POST', `/${uuid}`, ['GET', 'HEAD', 'OPTIONS']],
      ['DELETE', `/public/${uuid}`, ['GET', 'HEAD', 'OPTIONS']],
      ['POST', '/api/v1/openapi.json', ['GET', 'HEAD', 'OPTIONS']],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await h.client.request(path, { method, headers: manage(alice) });
      expect(reply.status, `${method} ${path}`).toBe(405);
      expect(reply.json).toEqual({ detail: 'Method Not Allowed' });
      expect(reply.headers.allow?.split(', ').sort()).toEqual([...allow].sort());
    }
  });

  it('answers OPTIONS on a management path with Allow', async () => {
    const reply = await h.client.request('/api/v1/manage/silos', { method: 'OPTIONS' });
    expect(reply.status).toBe(204);
    expect(reply.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  it('serves an OpenAPI document whose references resolve and whose schemas compile strictly', async () => {
    const doc = (await h.client.get('/api/v1/openapi.json')).json;
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) (k === '$ref' ? refs.push(v as string) : walk(v));
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      const target = ref.slice(2).split('/').reduce((at: any, key) => at?.[key], doc);
      expect(target, ref).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addFormat('uuid', true).addFormat('date-time', true).addKeyword('components');
    ajv.addSchema({ $id: 'https://silo.test/openapi.json', components: { schemas: doc.components.schemas } });
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`https://silo.test/openapi.json#/components/schemas/${name}`), name).not.toThrow();
    }
    // A path item holds its operations beside its description and path parameters.
    const operations = (item: any): any[] => ['get', 'head', 'options', 'post', 'patch', 'delete'].flatMap((m) => (item[m] ? [item[m]] : []));
    const ids = Object.values(doc.paths).flatMap((item: any) => operations(item).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const item of Object.values(doc.paths) as any[]) {
      for (const op of operations(item)) {
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const r of Object.values(op.responses) as any[]) expect(r.$ref ?? r.description).toBeTruthy();
      }
    }
  });

  it('serves the OpenAPI 3.1 document', async () => {
    const reply = await h.client.get('/api/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.json.openapi).toBe('3.1.0');
    expect(reply.json.info.version).toBe('0.1.0');
    expect(Object.keys(reply.json.paths).sort()).toEqual(
      [
        // This server answers every path (notFound: 'json'): / is its pointer (http/root.ts).
        '/',
        '/api/v1/manage/',
        '/api/v1/manage',
        '/api/v1/manage/silos',
        '/api/v1/manage/meta/{file_uuid}',
        '/api/v1/manage/{file_uuid}',
        '/api/v1/manage/{file_uuid}/versions',
        '/api/v1/manage/{file_uuid}/versions/{version}',
        '/api/v1/manage/{file_uuid}/versions/{version}/restore',
        '/{file_uuid}',
        '/public/{file_uuid}',
        '/api/v1/openapi.json',
        '/api/v1/manage/events',
        '/{file_uuid}/events',
        '/public/{file_uuid}/events',
        '/api/v1/manage/webhooks',
        '/api/v1/manage/webhooks/{id}',
        '/api/v1/manage/webhooks/{id}/deliveries',
        '/api/v1/manage/webhooks/{id}/retry',
        '/api/v1/manage/audit',
        '/api/v1/manage/audit/events',
      ].sort(),
    );
  });
});

describe('storage outage', () => {
  it('answers 503 JSON while the store fails and recovers by itself', async () => {
    const store = new FlakyMap();
    const errors: unknown[] = [];
    const lines: string[] = [];
    const flaky = await startSilo({
      store: new Keyv({ store }),
      plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 0 } },
      logger: { error: (m, e) => (lines.push(m), errors.push(e)) },
    });
    try {
      const owner = await flaky.account('o');
      const uuid = await flaky.create(owner, { file_name: 'x', file_data: { ok: true }, is_public: true });
      store.down = true;
      for (const reply of [
        await flaky.client.get(`/public/${uuid}`),
        await flaky.client.get(`/${uuid}`, { headers: access(owner) }),
        await flaky.client.get('/api/v1/manage/silos', { headers: manage(owner) }),
        await flaky.client.request('/api/v1/manage/', { method: 'POST', headers: manage(owner), body: { file_name: 'y', file_data: {} } }),
      ]) {
        expect(reply.status).toBe(503);
        expect(typeof reply.json.detail).toBe('string');
        expect(reply.text).not.toContain('ECONNREFUSED');
      }
      // One line for the outage, not one per request (any client can send requests), its path cut short.
      for (let i = 0; i < 20; i++) expect((await flaky.client.get(`/public/${uuid}/${'x'.repeat(5_000)}`)).status).toBe(404);
      for (let i = 0; i < 20; i++) expect((await flaky.client.get(`/${'y'.repeat(5_000)}`, { headers: access(owner) })).status).toBeGreaterThanOrEqual(400);
      expect(lines.filter((line) => line.startsWith('silo: storage unavailable'))).toHaveLength(1);
      expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(400);
      expect(errors.length).toBeGreaterThan(0);
      store.down = false;
      expect((await flaky.client.get(`/public/${uuid}`)).json).toEqual({ ok: true });
    } finally {
      await flaky.close();
    }
  });

  it('answers an unexpected error with a bare 500 and logs it', async () => {
    const logged: unknown[] = [];
    const silo = createSilo({ logger: { error: (_m, e) => logged.push(e) } });
    silo.silos.openData = async () => {
      throw new TypeError('secret internal detail');
    };
    const app = new Koa();
    app.use(silo.middleware());
    const server = await listen(app);
    try {
      const reply = await rawRequest(server.port, '/public/00000000-0000-4000-8000-000000000000');
      expect(reply.status).toBe(500);
      expect(JSON.parse(reply.text)).toEqual({ detail: 'Internal Server Error' });
      expect(logged).toHaveLength(1);
    } finally {
      await server.close();
      await silo.close();
    }
  });
});

describe('mounted beside an app\'s own routes', () => {
  it('serves the app\'s routes, passes on what is not Silo\'s, and leaves the app\'s errors alone', async () => {
    const silo = createSilo();
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.path === '/health') ctx.body = { ok: true };
      else await next();
    });
    app.use(silo.middleware());
    app.use(async (ctx) => {
      if (ctx.path === '/boom') throw new Error('app error');
      if (ctx.path === '/public/style.css') {
        ctx.type = 'text/css';
        ctx.body = 'body{}';
        return;
      }
      ctx.status = 404;
      ctx.body = 'app 404';
    });
    app.silent = true;
    const server = await listen(app);
    try {
      await silo.accounts.createAccount('x');
      const key = (await silo.accounts.createKey({ account: 'x', type: 'manage', name: 'm' })).key;
      expect((await rawRequest(server.port, '/health')).text).toBe('{"ok":true}');
      expect((await rawRequest(server.port, '/public/style.css')).text).toBe('body{}');
      expect((await rawRequest(server.port, '/api/v2/things')).text).toBe('app 404');
      expect((await rawRequest(server.port, '/not-a-uuid')).text).toBe('app 404');
      const boom = await rawRequest(server.port, '/boom');
      expect(boom.status).toBe(500);
      expect(boom.text).toBe('Internal Server Error');
      const created = await rawRequest(server.port, '/api/v1/manage/', {
        method: 'POST',
        headers: { 'X-MAN-API': key },
        body: { file_name: 'beside', file_data: { a: 1 }, is_public: true },
      });
      expect(created.status).toBe(201);
      const uuid = JSON.parse(created.text).file_uuid;
      expect((await rawRequest(server.port, `/public/${uuid}`)).text).toBe('{"a":1}');
      expect(JSON.parse((await rawRequest(server.port, '/api/v1/manage/nope/x')).text)).toEqual({ detail: 'Not Found' });
    } finally {
      await server.close();
      await silo.close();
    }
  });

  it('uses the raw body kept by a body parser mounted before it', async () => {
    const silo = createSilo();
    const app = new Koa();
    app.use(async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      (ctx.request as { rawBody?: string }).rawBody = Buffer.concat(chunks).toString('utf8');
      await next();
    });
    app.use(silo.middleware());
    const server = await listen(app);
    try {
      await silo.accounts.createAccount('x');
      const key = (await silo.accounts.createKey({ account: 'x', type: 'manage', name: 'm' })).key;
      const created = await rawRequest(server.port, '/api/v1/manage/', {
        method: 'POST',
        headers: { 'X-MAN-API': key },
        body: { file_name: 'parsed first', file_data: [{ a: 1 }] },
      });
      expect(created.status).toBe(201);
      const bad = await rawRequest(server.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': key }, body: '{nope' });
      expect(JSON.parse(bad.text).detail[0].type).toBe('json_invalid');
    } finally {
      await server.close();
      await silo.close();
    }
  });
});
