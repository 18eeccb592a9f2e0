/**
 * Issue 25: where the server and its OpenAPI document disagreed, one way to read each thing, the
 * same in both. Every response here also passes through the OpenAPI checker (support/http.ts).
 *
 * - Content-Type: any, or none, is read as JSON (contract §10), and the document says so (`*\/*`).
 * - `POST /api/v1/manage` without the slash creates, and is a path of the document.
 * - HEAD and OPTIONS are operations of every path: HEAD the status and headers of GET and no body,
 *   OPTIONS 204 with Allow naming the path's methods (as a 405 does).
 * - Integers in paths, queries and headers read one way: canonical decimal, bounds as bounds.
 * - A bad `since` / `Last-Event-ID` is a 422 list like any bad parameter; one above the silo's
 *   current version is refused rather than waited for.
 * - The JSON Patch schema accepts exactly the operations the server's own check does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkJsonPatch } from '../src/patch/index.js';
import { jsonPatch, updateSiloBody } from '../src/schemas/silo.js';
import { integerParam } from '../src/schemas/params.js';
import { validator } from '../src/schemas/validate.js';
import { openSse, type SseEvent, type SseStream } from '../../../test/support/sse.js';
import { access, HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let doc: { paths: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0 } }, webhooks: { allowPrivate: true, deliver: false } });
  alice = await h.account('alice');
  doc = (await h.client.get('/api/v1/openapi.json')).json;
});

afterAll(() => h.close());

describe('Content-Type', () => {
  it('creates whatever Content-Type the JSON comes with, or none (curl -d sends a form type)', async () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
      const body = JSON.stringify({ file_name: `typed ${type}`, file_data: { type } });
      const reply = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice, { 'content-type': type }), body });
      expect(reply.status, type).toBe(201);
    }
    // No Content-Type at all: fetch sends none for a byte body.
    const none = await fetch(`http://127.0.0.1:${h.server.port}/api/v1/manage/`, {
      method: 'POST',
      headers: manage(alice),
      body: new TextEncoder().encode(JSON.stringify({ file_name: 'untyped', file_data: {} })),
    });
    h.client.checker.check('POST', '/api/v1/manage/', none.status, none.headers.get('content-type') ?? undefined, await none.text(), Object.fromEntries(none.headers));
    expect(none.status).toBe(201);
  });

  it('reads any other PATCH Content-Type as the update body, and says so in the document', async () => {
    const uuid = await h.create(alice, { file_name: 'typed', file_data: {} });
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, {
      method: 'PATCH',
      headers: manage(alice, { 'content-type': 'text/plain' }),
      body: JSON.stringify({ file_name: 'renamed' }),
    });
    expect(reply.status).toBe(200);
    expect(reply.json.file_name).toBe('renamed');
    const content = (doc.paths['/api/v1/manage/{file_uuid}']!.patch as { requestBody: { content: Record<string, { schema: { $ref: string } }> } }).requestBody.content;
    expect(Object.fromEntries(Object.entries(content).map(([type, media]) => [type, media.schema.$ref.split('/').at(-1)]))).toEqual({
      'application/json': 'SiloUpdate',
      'application/merge-patch+json': 'SiloMergePatch',
      'application/json-patch+json': 'SiloJsonPatch',
      '*/*': 'SiloUpdate',
    });
  });

  it('still refuses a compressed body (415), as documented', async () => {
    const reply = await h.client.request('/api/v1/manage/', {
      method: 'POST',
      headers: manage(alice, { 'content-encoding': 'gzip' }),
      body: { file_name: 'x', file_data: {} },
    });
    expect(reply.status).toBe(415);
  });
});

describe('paths and methods', () => {
  it('creates at POST /api/v1/manage without the slash', async () => {
    const reply = await h.client.request('/api/v1/manage', { method: 'POST', headers: manage(alice), body: { file_name: 'slashless', file_data: [] } });
    expect(reply.status).toBe(201);
    expect(doc.paths['/api/v1/manage']!.post).toBeDefined();
  });

  it('answers HEAD wherever GET is, with the status and headers of GET and no body', async () => {
    const uuid = await h.create(alice, { file_name: 'head', file_data: [{ a: 1 }], is_public: true });
    for (const [path, headers] of [
      ['/api/v1/manage/silos', manage(alice)],
      [`/api/v1/manage/meta/${uuid}`, manage(alice)],
      [`/api/v1/manage/${uuid}`, manage(alice)],
      [`/api/v1/manage/${uuid}/versions`, manage(alice)],
      [`/api/v1/manage/${uuid}/versions/1`, manage(alice)],
      [`/${uuid}?idx=0`, access(alice)],
      [`/public/${uuid}`, {}],
      ['/api/v1/manage/webhooks', manage(alice)],
      ['/api/v1/openapi.json', {}],
    ] as const) {
      const get = await h.client.get(path, { headers });
      const head = await h.client.request(path, { method: 'HEAD', headers });
      expect(head.status, path).toBe(get.status);
      expect(head.text, path).toBe('');
      for (const name of ['content-type', 'etag', 'ratelimit-limit', 'x-total-count']) expect(head.headers[name], `${path} ${name}`).toBe(get.headers[name]);
    }
  });

  it('answers OPTIONS on every path of the document with 204 and Allow naming exactly its operations', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const methods = ['get', 'head', 'options', 'post', 'patch', 'put', 'delete'];
    for (const [template, item] of Object.entries(doc.paths)) {
      const path = template.replace('{file_uuid}', uuid).replace('{version}', '1').replace('{id}', 'wh_x');
      const reply = await h.client.request(path, { method: 'OPTIONS' });
      expect(reply.status, path).toBe(204);
      const documented = methods.filter((m) => item[m]).map((m) => m.toUpperCase());
      expect(String(reply.headers.allow).split(', ').sort(), path).toEqual(documented.sort());
    }
  });
});

describe('integers: one reading in paths, queries and headers', () => {
  it('reads only canonical integers (integerParam), and never rounds past 2^53 - 1', () => {
    expect(['0', '7', '-3', '9007199254740991'].map(integerParam)).toEqual([0, 7, -3, 9007199254740991]);
    for (const text of ['01', '+1', '1e0', '1.0', ' 1', '1 ', '-0', '', 'x', '0x1', '١']) expect(integerParam(text), text).toBe(text);
    expect(integerParam('9007199254740993')).toBe(2 ** 53);
    expect(integerParam(`-${'9'.repeat(30)}`)).toBe(-(2 ** 53));
  });

  it('gives the same answers for a version in the path and a page size in the query', async () => {
    const uuid = await h.create(alice, { file_name: 'ints', file_data: {} });
    const cases: [string, string][] = [
      ['01', 'int_parsing'],
      ['+1', 'int_parsing'],
      ['1e0', 'int_parsing'],
      ['1.0', 'int_parsing'],
      ['%201', 'int_parsing'],
      ['0', 'greater_than_equal'],
      ['-1', 'greater_than_equal'],
    ];
    for (const [text, type] of cases) {
      const version = await h.client.get(`/api/v1/manage/${uuid}/versions/${text}`, { headers: manage(alice) });
      expect(version.status, text).toBe(422);
      expect(version.json.detail, text).toEqual([expect.objectContaining({ loc: ['path', 'version'], type })]);
      for (const list of [`/api/v1/manage/silos?per_page=${text}`, `/api/v1/manage/${uuid}/versions?page=${text}`]) {
        const reply = await h.client.get(list, { headers: manage(alice) });
        expect(reply.status, list).toBe(422);
        expect(reply.json.detail[0].type, list).toBe(type);
      }
    }
    const tooMany = await h.client.get('/api/v1/manage/silos?per_page=99999999999999999999', { headers: manage(alice) });
    expect(tooMany.json.detail).toEqual([{ loc: ['query', 'per_page'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' }]);
    expect((await h.client.get(`/api/v1/manage/${uuid}/versions/1`, { headers: manage(alice) })).status).toBe(200);
  });
});

describe('event streams: their resume point is a parameter like any other', () => {
  it('answers a bad Last-Event-ID or since with the 422 list, at the header or the parameter', async () => {
    const uuid = await h.create(alice, { file_name: 'resume', file_data: {}, is_public: true });
    const cases: [string, Record<string, string>, unknown[]][] = [
      [`/${uuid}/events?since=abc`, access(alice), ['query', 'since']],
      [`/${uuid}/events?since=01`, access(alice), ['query', 'since']],
      [`/${uuid}/events`, access(alice, { 'Last-Event-ID': '+1' }), ['header', 'Last-Event-ID']],
      [`/public/${uuid}/events`, { 'Last-Event-ID': '1e0' }, ['header', 'Last-Event-ID']],
      // The header wins over the parameter, as the description says.
      [`/public/${uuid}/events?since=0`, { 'Last-Event-ID': 'x' }, ['header', 'Last-Event-ID']],
    ];
    for (const [path, headers, loc] of cases) {
      const reply = await h.client.get(path, { headers });
      expect(reply.status, path).toBe(422);
      expect(reply.json.detail, path).toEqual([{ loc, msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' }]);
    }
    const negative = await h.client.get(`/${uuid}/events?since=-1`, { headers: access(alice) });
    expect(negative.json.detail).toEqual([{ loc: ['query', 'since'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' }]);
  });

  it('refuses a resume point above the current version (a version never written) rather than accept it silently', async () => {
    const uuid = await h.create(alice, { file_name: 'ahead', file_data: {}, is_public: true });
    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body: { file_data: { n: 2 } } });
    for (const [path, headers, loc] of [
      [`/${uuid}/events?since=3`, access(alice), ['query', 'since']],
      [`/public/${uuid}/events`, { 'Last-Event-ID': '99' }, ['header', 'Last-Event-ID']],
    ] as const) {
      const reply = await h.client.get(path, { headers, host: HOSTS.api });
      expect(reply.status, path).toBe(422);
      expect(reply.json.detail).toEqual([{ loc, msg: "Input should be less than or equal to 2, the silo's current version", type: 'less_than_equal', ctx: { le: 2 } }]);
    }
  });
});

describe('webhooks: what a receiver gets', () => {
  it('delivers bodies and signature headers as the document\'s webhooks section describes them', async () => {
    const bodies: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        bodies.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const delivering = await startSilo({ webhooks: { allowPrivate: true, timing: { pollMs: 20 } } });
    try {
      const bob = await delivering.account('bob');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await delivering.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(bob), body: { url, events: ['silo.created', 'silo.updated', 'silo.deleted'] } });
      expect(hook.status).toBe(201);
      const uuid = await delivering.create(bob, { file_name: 'hooked', file_data: {} });
      await delivering.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(bob), body: { is_public: true } });
      await delivering.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(bob) });
      await expect.poll(() => bodies.length, { timeout: 10_000 }).toBe(3);

      const described = (await delivering.client.get('/api/v1/openapi.json')).json;
      const ajv = new Ajv2020({ strict: false, allowUnionTypes: true }).addFormat('uuid', true).addFormat('date-time', true);
      ajv.addSchema({ $id: 'https://silo.test/openapi.json', components: described.components }, undefined, undefined, false);
      for (const { headers, body } of bodies) {
        const event = JSON.parse(body) as { type: string };
        const post = described.webhooks[event.type].post;
        const schema = post.requestBody.content['application/json'].schema.$ref as string;
        const validate = ajv.getSchema(`https://silo.test/openapi.json${schema}`)!;
        expect(validate(event), `${body}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        for (const p of post.parameters as { name: string; required: boolean }[]) expect(headers[p.name], p.name).toBeTruthy();
      }
      expect(bodies.map((b) => (JSON.parse(b.body) as { type: string }).type)).toEqual(['silo.created', 'silo.updated', 'silo.deleted']);
    } finally {
      await delivering.close();
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});

describe('schemas that generators read', () => {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
  const schemaAccepts = ajv.compile(jsonPatch);
  const checkUpdate = validator(updateSiloBody);

  it('accepts exactly the JSON Patch documents the server checks as well formed (patch/check.ts)', () => {
    const pointer = fc.oneof(fc.constantFrom('', '/', '/file_data/-', '/file_data/0/name', '/a~0b~1c', '/a~2', 'x', '~', '/~'), fc.string({ maxLength: 6 }));
    const member = fc.oneof(pointer, fc.integer(), fc.constant(null), fc.boolean());
    const operation = fc.oneof(
      fc.record(
        { op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'), fc.integer()), path: member, from: member, value: fc.jsonValue({ maxDepth: 1 }) },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 1 }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(operation, { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })), (patch) => {
        expect(schemaAccepts(patch), JSON.stringify(patch)).toBe(checkJsonPatch(patch).size === 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the update body\'s messages: a bad field is itself, "at least one" only when none is sent', () => {
    expect(checkUpdate.issues({ file_name: 5 }, 'body')).toEqual([{ loc: ['body', 'file_name'], msg: 'Input should be a valid string', type: 'string_type' }]);
    expect(checkUpdate.issues({ other: 1 }, 'body')).toEqual([
      { loc: ['body'], msg: 'At least one of file_name, file_data, region_name, is_public is required', type: 'missing' },
    ]);
    expect(checkUpdate.issues({ is_public: true }, 'body')).toEqual([]);
  });
});

describe('server-sent events', () => {
  it("sends in every stream's data line what the document's schema of that event says", async () => {
    const feeds = await startSilo({ plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0, historyVersions: 2 } } });
    const streams: SseStream[] = [];
    const open = async (path: string, headers: Record<string, string>) => {
      const stream = await openSse(feeds.server.port, path, { host: HOSTS.api, ...headers });
      streams.push(stream);
      return stream;
    };
    try {
      const bob = await feeds.account('bob');
      const described = (await feeds.client.get('/api/v1/openapi.json')).json;
      const ajv = new Ajv2020({ strict: false, allowUnionTypes: true }).addFormat('uuid', true).addFormat('date-time', true);
      ajv.addSchema({ $id: 'https://silo.test/openapi.json', components: described.components }, undefined, undefined, false);
      const seen: string[] = [];
      /** The event's data against the schema the path's stream names for it. */
      const conforms = (path: string, event: SseEvent) => {
        const defs = described.paths[path].get.responses['200'].content['text/event-stream'].schema.$defs as Record<string, { $ref: string }>;
        expect(defs[event.event], `${path} names ${event.event}`).toBeDefined();
        const validate = ajv.getSchema(`https://silo.test/openapi.json${defs[event.event]!.$ref}`)!;
        expect(validate(JSON.parse(event.data)), `${path} ${event.event} ${event.data}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        seen.push(`${path} ${event.event}`);
      };
      const write = (uuid: string, method: string, body?: object) => feeds.client.request(`/api/v1/manage/${uuid}`, { method, headers: manage(bob), ...(body ? { body } : {}) });

      const account = await open('/api/v1/manage/events', manage(bob));
      const audit = await open('/api/v1/manage/audit/events', manage(bob));
      const uuid = await feeds.create(bob, { file_name: 'fed', file_data: [{ n: 1 }] });
      const silo = await open(`/${uuid}/events?data=1`, access(bob));
      await write(uuid, 'PATCH', { file_data: [{ n: 2.50 }] });
      conforms('/{file_uuid}/events', await silo.next());
      for (let i = 3; i <= 5; i++) await write(uuid, 'PATCH', { file_data: [{ n: i }] });
      // History keeps 2 versions: a client at version 1 gets a reset.
      const behind = await open(`/${uuid}/events`, access(bob, { 'Last-Event-ID': '1' }));
      conforms('/{file_uuid}/events', await behind.next());
      await write(uuid, 'PATCH', { region_name: 'sg-01-api' });
      for (;;) {
        const event = await silo.next();
        conforms('/{file_uuid}/events', event);
        if (event.event === 'move') break;
      }
      const doomed = await feeds.create(bob, { file_name: 'doomed', file_data: {} });
      const ending = await open(`/${doomed}/events`, access(bob));
      await write(doomed, 'DELETE');
      conforms('/{file_uuid}/events', await ending.next());
      for (let i = 0; i < 8; i++) conforms('/api/v1/manage/events', await account.next());
      conforms('/api/v1/manage/audit/events', await audit.next());
      expect(new Set(seen)).toEqual(
        new Set([
          '/{file_uuid}/events update',
          '/{file_uuid}/events reset',
          '/{file_uuid}/events move',
          '/{file_uuid}/events delete',
          '/api/v1/manage/events create',
          '/api/v1/manage/events update',
          '/api/v1/manage/events delete',
          '/api/v1/manage/audit/events audit',
        ]),
      );
    } finally {
      for (const stream of streams) stream.close();
      await feeds.close();
    }
  });
});
