/**
 * Contract §10 over real HTTP: PATCH by Content-Type (merge patch, JSON Patch, or the update body),
 * the public json-patch-tests suite run through the API, the 422s and 409s, patches that break the
 * silo rules, `__proto__` as data, size limits, and numbers kept exactly as sent.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

let h: Harness;
let alice: Account;

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 2_000_000, rateLimitPerMinute: 0 } } });
  alice = await h.account('alice');
});
afterAll(() => h.close());

const patch = (uuid: string, type: string, body: unknown, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice, { 'content-type': type, ...extra }), body });
const dataOf = async (uuid: string) => (await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).json.data as unknown;
const rawDataOf = async (uuid: string) => (await h.client.get(`/${uuid}`, { headers: access(alice) })).text;

describe('merge patch (RFC 7386)', () => {
  it('merges into the document: nested members, removal by null, and the silo fields', async () => {
    const uuid = await h.create(alice, { file_name: 'settings', file_data: { theme: 'light', beta: true, limits: { a: 1, b: 2 } } });
    const reply = await patch(uuid, MERGE, { file_name: 'renamed', is_public: true, file_data: { beta: null, limits: { b: 3, c: 4 } } });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ file_name: 'renamed', is_public: true, version: 2, file_data: { theme: 'light', limits: { a: 1, b: 3, c: 4 } } });
    expect(await dataOf(uuid)).toEqual({ theme: 'light', limits: { a: 1, b: 3, c: 4 } });
  });

  it('moves the silo when it sets region_name', async () => {
    const uuid = await h.create(alice, { file_name: 'm', file_data: { x: 1 }, is_public: true });
    expect((await patch(uuid, `${MERGE}; charset=utf-8`, { region_name: 'sg-01-api' })).status).toBe(200);
    expect((await h.client.get(`/public/${uuid}`, { host: 'sg-01-api.localhost' })).json).toEqual({ x: 1 });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(404);
  });

  it('refuses a result that breaks the silo rules, and stores nothing', async () => {
    const uuid = await h.create(alice, { file_name: 'r', file_data: [{ a: 1 }] });
    const cases: [unknown, (string | number)[]][] = [
      [{ file_name: null }, ['body', 'file_name']],
      [{ file_name: '' }, ['body', 'file_name']],
      [{ file_data: 'text' }, ['body', 'file_data']],
      [{ region_name: 'mars' }, ['body', 'region_name']],
      [{ is_public: 'yes' }, ['body', 'is_public']],
      [{ extra: 1 }, ['body', 'extra']],
    ];
    for (const [body, loc] of cases) {
      const reply = await patch(uuid, MERGE, body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.json.detail.map((d: { loc: unknown }) => d.loc), JSON.stringify(body)).toContainEqual(loc);
    }
    const meta = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) });
    expect(meta.json).toMatchObject({ version: 1, file_name: 'r' });
  });

  it('refuses a patch that is not an object (it replaces the whole document) with one problem, a number kept as written too', async () => {
    const uuid = await h.create(alice, { file_name: 'n', file_data: [{ a: 1 }] });
    for (const text of ['1e999', '1.0', '-0', '[]', '"str"', 'null', 'true']) {
      const reply = await patch(uuid, MERGE, text);
      expect(reply.status, text).toBe(422);
      expect(reply.json.detail.map((d: { loc: unknown; type: string }) => [d.loc, d.type]), text).toEqual([[['body'], 'model_attributes_type']]);
    }
  });
});

describe('JSON Patch (RFC 6902)', () => {
  it('applies operations in order, all or nothing', async () => {
    const uuid = await h.create(alice, { file_name: 'list', file_data: [{ id: 1 }, { id: 2 }] });
    const ok = await patch(uuid, JSON_PATCH, [
      { op: 'add', path: '/file_data/-', value: { id: 3 } },
      { op: 'replace', path: '/file_data/0/id', value: 10 },
      { op: 'remove', path: '/file_data/1' },
      { op: 'replace', path: '/is_public', value: true },
    ]);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ is_public: true, version: 2, file_data: [{ id: 10 }, { id: 3 }] });
    const failed = await patch(uuid, JSON_PATCH, [
      { op: 'add', path: '/file_data/-', value: { id: 4 } },
      { op: 'test', path: '/file_data/0/id', value: 11 },
    ]);
    expect(failed.status).toBe(409);
    expect(failed.json.detail).toMatch(/test/);
    expect(await dataOf(uuid)).toEqual([{ id: 10 }, { id: 3 }]);
  });

  it('answers 422 listing every problem of a malformed patch', async () => {
    const uuid = await h.create(alice, { file_name: 'bad', file_data: {} });
    const reply = await patch(uuid, JSON_PATCH, [
      { op: 'add', path: '/file_data/a' },
      { op: 'jump', path: '/file_data' },
      { path: '/x', value: 1 },
      { op: 'move', path: '/file_data/b' },
      { op: 'replace', path: 'no-slash', value: 1 },
      'not an object',
    ]);
    expect(reply.status).toBe(422);
    const locs = reply.json.detail.map((d: { loc: unknown }) => JSON.stringify(d.loc));
    for (const loc of [['body', 0, 'value'], ['body', 1, 'op'], ['body', 2, 'op'], ['body', 3, 'from'], ['body', 4, 'path'], ['body', 5]]) {
      expect(locs).toContain(JSON.stringify(loc));
    }
    expect((await patch(uuid, JSON_PATCH, { op: 'add' })).status).toBe(422);
    expect((await patch(uuid, JSON_PATCH, '{not json')).json.detail[0].type).toBe('json_invalid');
    // Each message says what is wrong with its pointer.
    const escapes = await patch(uuid, JSON_PATCH, [{ op: 'add', path: '/file_data/a~2b', value: 1 }, { op: 'add', path: 'file_data', value: 1 }]);
    expect(escapes.json.detail.map((d: { msg: string }) => d.msg)).toEqual([
      'Input should be a JSON Pointer: each "~" followed by "0" or "1" (RFC 6901)',
      'Input should be a JSON Pointer: empty, or starting with "/" (RFC 6901)',
    ]);
    const root = await patch(uuid, JSON_PATCH, [{ op: 'test', path: '', value: {} }]);
    expect(root.status).toBe(409);
    expect(root.json.detail).toBe('Operation 0 (test): The test at the root ("") failed');
  });

  it('answers 409 for paths that do not exist and indices out of range', async () => {
    const uuid = await h.create(alice, { file_name: 'c', file_data: [{ a: 1 }] });
    for (const op of [
      { op: 'remove', path: '/file_data/5' },
      { op: 'replace', path: '/file_data/0/missing', value: 1 },
      { op: 'add', path: '/file_data/7', value: {} },
      { op: 'move', from: '/file_data/3', path: '/file_data/0' },
      { op: 'add', path: '/file_data/0/a/b', value: 1 },
    ]) {
      expect((await patch(uuid, JSON_PATCH, [op])).status, JSON.stringify(op)).toBe(409);
    }
  });

  it('refuses a result that breaks the silo rules (422), and stores nothing', async () => {
    const uuid = await h.create(alice, { file_name: 'rules', file_data: [{ a: 1 }] });
    for (const ops of [
      [{ op: 'add', path: '/file_data/-', value: 5 }],
      [{ op: 'replace', path: '/file_data', value: 'text' }],
      [{ op: 'remove', path: '/file_name' }],
      [{ op: 'add', path: '/owner', value: 'me' }],
      [{ op: 'replace', path: '/file_name', value: 'x'.repeat(256) }],
    ]) {
      expect((await patch(uuid, JSON_PATCH, ops)).status, JSON.stringify(ops)).toBe(422);
    }
    expect(await dataOf(uuid)).toEqual([{ a: 1 }]);
  });

  it('treats __proto__, constructor and prototype as plain data', async () => {
    const uuid = await h.create(alice, { file_name: 'proto', file_data: {} });
    const reply = await patch(uuid, JSON_PATCH, [
      { op: 'add', path: '/file_data/__proto__', value: { polluted: true } },
      { op: 'add', path: '/file_data/constructor', value: { prototype: { polluted: true } } },
      { op: 'add', path: '/file_data/__proto__/more', value: 1 },
    ]);
    expect(reply.status).toBe(200);
    expect(await rawDataOf(uuid)).toBe('{"__proto__":{"polluted":true,"more":1},"constructor":{"prototype":{"polluted":true}}}');
    const merged = await patch(uuid, MERGE, '{"file_data":{"__proto__":{"polluted":null,"x":2}}}');
    expect(merged.status).toBe(200);
    expect(await rawDataOf(uuid)).toBe('{"__proto__":{"more":1,"x":2},"constructor":{"prototype":{"polluted":true}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).more).toBeUndefined();
  });

  it('refuses a patch that would nest the document deeper than a body may (422 json_too_deep), and stores nothing', async () => {
    // Arrays nested `n` deep: [[[...]]].
    const deep = (n: number): unknown => {
      let value: unknown = [];
      for (let i = 1; i < n; i++) value = [value];
      return value;
    };
    // The document {file_data: [{d: 900 deep}]} nests 903 deep, within the 1 000 a body may.
    const uuid = await h.create(alice, { file_name: 'deep', file_data: [{ d: deep(900) }] });
    const tooDeep = async (operations: unknown[], operation: number) => {
      const reply = await patch(uuid, JSON_PATCH, operations);
      expect(reply.status, reply.text.slice(0, 300)).toBe(422);
      expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body', operation], type: 'json_too_deep', ctx: { max_depth: 1000 } })]);
    };
    // A copy into its own deepest point: 1 803 deep from a body of 4 (it had made a silo every query of which was a 500).
    const deepest = `/file_data/0/d${'/0'.repeat(899)}/-`;
    await tooDeep([{ op: 'copy', from: '/file_data/0/d', path: deepest }], 0);
    await tooDeep([{ op: 'test', path: '/file_data/0/d/0', value: deep(899) }, { op: 'move', from: '/file_data/0/d', path: '/file_data/0/x' }, { op: 'add', path: `/file_data/0/x${'/0'.repeat(899)}/-`, value: deep(200) }], 2);
    // A value placed exactly at the limit is taken; one level more is not.
    expect((await patch(uuid, JSON_PATCH, [{ op: 'add', path: '/file_data/0/e', value: deep(997) }])).status).toBe(200);
    await tooDeep([{ op: 'replace', path: '/file_data/0/e/0', value: deep(997) }], 0);
    const meta = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) });
    expect(meta.json).toMatchObject({ version: 2 });
    // What is stored queries and patches as any silo does.
    expect((await h.client.get(`/${uuid}?limit=1&fields=e`, { headers: access(alice) })).json).toEqual([{ e: deep(997) }]);
    expect((await patch(uuid, JSON_PATCH, [{ op: 'remove', path: '/file_data/0/e' }])).status).toBe(200);
  });

  it('knows its media types in any case and with whitespace before the parameters', async () => {
    const uuid = await h.create(alice, { file_name: 'types', file_data: [{ a: 1 }] });
    expect((await patch(uuid, 'Application/JSON-Patch+JSON', [{ op: 'add', path: '/file_data/-', value: { b: 2 } }])).status).toBe(200);
    expect((await patch(uuid, 'application/json-patch+json ; charset=utf-8', [{ op: 'add', path: '/file_data/-', value: { c: 3 } }])).status).toBe(200);
    expect((await patch(uuid, 'APPLICATION/MERGE-PATCH+JSON', { file_name: 'typed' })).json).toMatchObject({ file_name: 'typed' });
    expect(await dataOf(uuid)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('answers errors about megabytes of input in a few kilobytes: the input is quoted, clipped', async () => {
    const uuid = await h.create(alice, { file_name: 'echo', file_data: { a: 1 } });
    const pointer = `/file_data/${'x'.repeat(1_000_000)}`;
    const conflict = await patch(uuid, JSON_PATCH, [{ op: 'remove', path: pointer }]);
    expect(conflict.status).toBe(409);
    expect(conflict.text.length).toBeLessThan(2_000);
    expect(conflict.json.detail).toMatch(/^Operation 0 \(remove\): No member at \/file_data\/xxx.*… \(\d+ characters\)$/);
    const names = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${i}${'n'.repeat(15_000)}`, 1]));
    const unknown = await patch(uuid, MERGE, names);
    expect(unknown.status).toBe(422);
    expect(unknown.text.length).toBeLessThan(50_000);
    expect(unknown.json.detail[0].loc[1]).toMatch(/^0n+… \(15001 characters\)$/);
  });

  it('keeps a large silo within the plan limit: a small patch that would exceed it is a 413', async () => {
    const big = [{ pad: 'x'.repeat(1_999_000) }];
    const uuid = await h.create(alice, { file_name: 'big', file_data: big });
    const ok = await patch(uuid, JSON_PATCH, [{ op: 'add', path: '/file_data/-', value: { n: 1 } }]);
    expect(ok.status).toBe(200);
    const over = await patch(uuid, JSON_PATCH, [{ op: 'add', path: '/file_data/-', value: { pad: 'y'.repeat(1000) } }]);
    expect(over.status).toBe(413);
    expect(over.json.detail).toMatch(/2 MB/);
    expect((await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).json.version).toBe(2);
  });

  it('runs the json-patch-tests suite through the API', async () => {
    const require = createRequire(import.meta.url);
    interface Case { comment?: string; doc?: unknown; patch: unknown[]; expected?: unknown; error?: string; disabled?: boolean }
    const cases = [
      ...(require('json-patch-test-suite/tests.json') as Case[]),
      ...(require('json-patch-test-suite/spec_tests.json') as Case[]),
    ].filter((c) => !c.disabled && c.doc !== undefined);
    const prefix = (pointer: unknown) =>
      typeof pointer === 'string' && (pointer === '' || pointer.startsWith('/')) ? `/file_data/doc${pointer}` : pointer;
    let passed = 0;
    for (const c of cases) {
      const label = c.comment ?? c.error ?? JSON.stringify(c.patch);
      const uuid = await h.create(alice, { file_name: 'suite', file_data: { doc: c.doc } });
      const ops = c.patch.map((op) =>
        typeof op === 'object' && op !== null
          ? { ...op, ...('path' in op ? { path: prefix(op.path) } : {}), ...('from' in op ? { from: prefix(op.from) } : {}) }
          : op,
      );
      const reply = await patch(uuid, JSON_PATCH, ops);
      if (c.error !== undefined) {
        expect([409, 422], `${label}: ${reply.text}`).toContain(reply.status);
        expect(await dataOf(uuid), label).toEqual({ doc: c.doc });
      } else {
        expect(reply.status, `${label}: ${reply.text}`).toBe(200);
        expect(await dataOf(uuid), label).toEqual({ doc: c.expected ?? c.doc });
      }
      passed++;
    }
    expect(passed).toBe(cases.length);
    expect(passed).toBeGreaterThan(80);
    console.log(`[json-patch-tests] ${passed} cases of tests.json and spec_tests.json through PATCH: all as expected`);
  }, 60_000);
});

describe('a write that leaves every field as it was', () => {
  it('is a new version as every successful write is (contract §4, §9): updated_at, ETag, history and audit entry', async () => {
    const uuid = await h.create(alice, { file_name: 'same', file_data: [{ a: 1 }], is_public: true });
    const before = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) });
    const audited = async () => (await h.client.get('/api/v1/manage/audit?per_page=1', { headers: manage(alice) })).json.metadata.total_items as number;
    const entries = await audited();
    let last = { updated_at: before.json.updated_at as string, etag: before.headers.etag };
    const bodies = [
      [MERGE, {}],
      [JSON_PATCH, []],
      ['application/json', { file_name: 'same', is_public: true }],
      [MERGE, { file_name: 'same', region_name: 'api' }],
    ] as const;
    for (const [i, [type, body]] of bodies.entries()) {
      const reply = await patch(uuid, type, body);
      expect(reply.status, `${type} ${JSON.stringify(body)}`).toBe(200);
      expect(reply.json).toMatchObject({ version: i + 2, file_name: 'same', file_data: [{ a: 1 }] });
      expect(reply.json.updated_at > last.updated_at, `${type} ${JSON.stringify(body)}: updated_at changes`).toBe(true);
      expect(reply.headers.etag).not.toBe(last.etag);
      last = { updated_at: reply.json.updated_at, etag: reply.headers.etag };
    }
    expect((await h.client.get(`/api/v1/manage/${uuid}/versions`, { headers: manage(alice) })).json.versions).toHaveLength(5);
    expect(await audited()).toBe(entries + 4);
  });
});

describe('numbers kept as sent', () => {
  const body = '{"file_name":"n","file_data":{"big":12345678901234567890,"huge":1e400,"tiny":1e-400,"one":1.0,"neg":-0,"pi":3.14159265358979323846264338327950288,"list":[{"n":1.50}]}}';
  const stored = '{"big":12345678901234567890,"huge":1e400,"tiny":1e-400,"one":1.0,"neg":-0,"pi":3.14159265358979323846264338327950288,"list":[{"n":1.50}]}';

  it('stores and serves every number exactly as written, also after patches elsewhere', async () => {
    const created = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body });
    expect(created.status).toBe(201);
    const uuid = created.json.file_uuid as string;
    expect(await rawDataOf(uuid)).toBe(stored);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).text).toBe(`{"data":${stored}}`);
    expect((await patch(uuid, MERGE, { file_data: { added: true } })).status).toBe(200);
    expect(await rawDataOf(uuid)).toBe(`${stored.slice(0, -1)},"added":true}`);
    const append = '[{"op":"add","path":"/file_data/list/-","value":{"n":2.50}},{"op":"test","path":"/file_data/big","value":12345678901234567890}]';
    expect((await patch(uuid, JSON_PATCH, append)).status).toBe(200);
    const raw = '[{"op":"add","path":"/file_data/e","value":1E+2},{"op":"test","path":"/file_data/one","value":1}]';
    expect((await patch(uuid, JSON_PATCH, raw)).status).toBe(200);
    expect(await rawDataOf(uuid)).toBe(`${stored.slice(0, -1).replace('[{"n":1.50}]', '[{"n":1.50},{"n":2.50}]')},"added":true,"e":1E+2}`);
    const exact = await h.client.get(`/${uuid}?path=big`, { headers: access(alice) });
    expect(exact.text).toBe('12345678901234567890');
    const failed = await patch(uuid, JSON_PATCH, '[{"op":"test","path":"/file_data/big","value":12345678901234567891}]');
    expect(failed.status).toBe(409);
  });

  it('keeps numbers as written by a full update too', async () => {
    const uuid = await h.create(alice, { file_name: 'u', file_data: {} });
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body: '{"file_data":{"x":1.000}}' });
    expect(reply.text).toContain('"file_data":{"x":1.000}');
    expect(await rawDataOf(uuid)).toBe('{"x":1.000}');
  });
});
