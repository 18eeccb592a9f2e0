/**
 * `__proto__`, `constructor` and `prototype` everywhere a client can put a name: keys of request
 * bodies (top level and inside file_data), query parameter names and values, path segments,
 * header names, account and key names. Silo runs in this process, so its own Object.prototype is
 * the one checked. Such keys are plain data: stored and served byte for byte, reachable by `path`
 * and `q` as own keys only, never a property of the prototype.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isContractError } from '../support/http-call.js';
import { prototypeSnapshot, startInProcess, type InProcessSilo, type TestAccount } from '../support/in-process.js';

const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'length', 'a'] as const;

let s: InProcessSilo;
let owner: TestAccount;
const before = prototypeSnapshot();
let requests = 0;

const req = async (path: string, options: Parameters<typeof call>[2] = {}) => {
  requests++;
  const reply = await call(s.port, path, { agent: s.agent, ...options });
  expect(reply.status, `${options.method ?? 'GET'} ${path}: ${reply.text.slice(0, 200)}`).toBeLessThan(500);
  if (reply.status >= 400) expect(isContractError(reply.json)).toBe(true);
  return reply;
};

function untouched(): void {
  expect(prototypeSnapshot()).toBe(before);
  const probe = {} as Record<string, unknown>;
  for (const name of ['polluted', 'is_public', 'file_name', 'admin', 'x']) expect(probe[name], name).toBeUndefined();
  expect(typeof Object.prototype.toString).toBe('function');
  expect(typeof ({} as { constructor: unknown }).constructor).toBe('function');
}

/** The contract's path resolution: own keys of objects, canonical indexes of arrays, else null. */
function resolve(value: unknown, segments: string[]): unknown {
  let node = value;
  for (const seg of segments) {
    if (Array.isArray(node)) {
      node = /^(0|[1-9][0-9]*)$/.test(seg) && Number(seg) < node.length ? node[Number(seg)] : null;
    } else if (node !== null && typeof node === 'object' && Object.hasOwn(node, seg)) {
      node = (node as Record<string, unknown>)[seg];
    } else {
      return null;
    }
  }
  return node === undefined ? null : node;
}

beforeAll(async () => {
  s = await startInProcess();
  owner = await s.account('owner');
});

afterAll(async () => {
  await s?.close();
  if (requests > 0 && prototypeSnapshot() === before) {
    console.log(`[reliability] prototype pollution: ${requests} requests with __proto__/constructor/prototype in bodies, queries, paths, header and account names; Object.prototype unchanged`);
  }
});

describe('prototype pollution', () => {
  it('takes such keys in request bodies as plain data and never as fields or prototypes', async () => {
    const text =
      '{"__proto__":{"is_public":true,"file_name":"evil","polluted":1},"constructor":{"prototype":{"polluted":1}},' +
      '"file_name":"proto","file_data":{"__proto__":{"polluted":2},"constructor":{"prototype":{"polluted":3}},"prototype":[{"__proto__":null}]}}';
    const created = await req('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: text });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ file_name: 'proto', is_public: false, region_name: 'api' });
    const uuid = created.json.file_uuid as string;
    const got = await req(`/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
    expect(got.text).toBe('{"data":{"__proto__":{"polluted":2},"constructor":{"prototype":{"polluted":3}},"prototype":[{"__proto__":null}]}}');

    // An update body whose only "fields" are under __proto__ has none of the four: 422, nothing changes.
    const sneaky = await req(`/api/v1/manage/${uuid}`, {
      method: 'PATCH',
      headers: { 'X-MAN-API': owner.manage },
      body: '{"__proto__":{"is_public":true,"region_name":"sg-01-api"}}',
    });
    expect(sneaky.status).toBe(422);
    const meta = await req(`/api/v1/manage/meta/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
    expect(meta.json).toMatchObject({ is_public: false, region_name: 'api' });
    expect((await req(`/public/${uuid}`)).status).toBe(404);
    untouched();
  });

  it('resolves path and q over own keys only (property over generated data and paths)', async () => {
    const key = fc.constantFrom(...NAMES);
    const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean(), fc.constant(null));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), fc.array(tie('node'), { maxLength: 3 })),
      object: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    }));
    const elements = fc.array(tree.object as fc.Arbitrary<Record<string, unknown>>, { minLength: 1, maxLength: 5 });
    const segs = fc.array(fc.oneof(key, fc.constantFrom('0', '1')), { minLength: 1, maxLength: 4 });

    await fc.assert(
      fc.asyncProperty(elements, segs, fc.constantFrom(...NAMES), async (data, path, field) => {
        const created = await req('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: { file_name: 'p', file_data: data } });
        expect(created.status).toBe(201);
        const uuid = created.json.file_uuid as string;
        const headers = { 'X-SILO-KEY': owner.access };
        // Byte for byte: own __proto__ keys survive the round trip.
        expect((await req(`/${uuid}`, { headers })).text).toBe(JSON.stringify(data));

        const byPath = await req(`/${uuid}?path=${encodeURIComponent(path.join('.'))}`, { headers });
        expect(byPath.status).toBe(200);
        expect(byPath.json).toEqual(resolve(data, path));

        // Search: eq on a string field that holds "x" matches; ne is its complement over objects.
        const hit = await req(`/${uuid}?q=${encodeURIComponent(field)}&value=x`, { headers });
        expect(hit.json).toEqual(data.filter((e) => Object.hasOwn(e, field) && e[field] === 'x'));
        const miss = await req(`/${uuid}?q=${encodeURIComponent(field)}&value=x&op=ne`, { headers });
        expect(miss.json).toEqual(data.filter((e) => !(Object.hasOwn(e, field) && e[field] === 'x')));
        untouched();
      }),
      { numRuns: 80 },
    );
  }, 30_000);

  it('ignores such query parameter names and refuses such path segments as it does any other', async () => {
    const created = await req('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: { file_name: 'q', file_data: [{ a: 1 }], is_public: true } });
    const uuid = created.json.file_uuid as string;
    const hostile = ['__proto__[polluted]=1', 'constructor[prototype][polluted]=1', '__proto__=1', 'constructor=1', 'prototype.polluted=1', '__proto__.polluted=1'];
    for (const q of hostile) {
      expect((await req(`/api/v1/manage/silos?${q}`, { headers: { 'X-MAN-API': owner.manage } })).status).toBe(200);
      expect((await req(`/${uuid}?${q}`, { headers: { 'X-SILO-KEY': owner.access } })).json).toEqual([{ a: 1 }]);
      expect((await req(`/public/${uuid}?${q}`)).status).toBeLessThan(500);
    }
    for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
      expect((await req(`/${uuid}?q=a&value=1&op=${name}`, { headers: { 'X-SILO-KEY': owner.access } })).status).toBe(422);
      expect((await req(`/${uuid}?output=${name}`, { headers: { 'X-SILO-KEY': owner.access } })).status).toBe(422);
      expect((await req(`/${uuid}?idx=${name}`, { headers: { 'X-SILO-KEY': owner.access } })).status).toBe(422);
      expect((await req(`/api/v1/manage/silos?page=${name}`, { headers: { 'X-MAN-API': owner.manage } })).status).toBe(422);
      for (const path of [`/${name}`, `/public/${name}`, `/api/v1/manage/${name}/x`]) {
        expect((await req(path, { headers: { 'X-MAN-API': owner.manage } })).status, path).toBe(404);
      }
      for (const [method, path] of [['GET', `/api/v1/manage/meta/${name}`], ['GET', `/api/v1/manage/${name}`], ['PATCH', `/api/v1/manage/${name}`], ['DELETE', `/api/v1/manage/${name}`]] as const) {
        const r = await req(path, { method, headers: { 'X-MAN-API': owner.manage }, ...(method === 'PATCH' ? { body: { file_name: 'x' } } : {}) });
        expect(r.status).toBe(422);
        expect(r.json.detail[0].loc).toEqual(['path', 'file_uuid']);
      }
    }
    untouched();
  });

  it('takes such header names and such account, plan and key names without harm', async () => {
    const created = await req('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: { file_name: 'h', file_data: { a: 1 } } });
    const uuid = created.json.file_uuid as string;
    for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']) {
      const headers: [string, string][] = [[name, 'polluted'], ['X-SILO-KEY', owner.access], [`${name}-x`, '1']];
      expect((await req(`/${uuid}`, { headers })).json).toEqual({ a: 1 });
      expect((await req(`/${uuid}`, { headers: [[name, owner.access]] })).status).toBe(401);
    }
    // Account and key names that are property names of every object.
    for (const name of ['constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']) {
      const account = await s.account(name);
      const mine = await req('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': account.manage }, body: { file_name: name, file_data: { who: name } } });
      expect(mine.status).toBe(201);
      const listed = await req('/api/v1/manage/silos', { headers: { 'X-MAN-API': account.manage } });
      expect(listed.json.silos.map((x: { file_name: string }) => x.file_name)).toEqual([name]);
      expect((await req(`/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': account.manage } })).status).toBe(404);
      await s.silo.accounts.createKey({ account: name, type: 'access', name: '__proto__' });
      await expect(s.silo.accounts.createAccount(`${name}2`, name)).rejects.toThrow(/Unknown plan/);
    }
    await expect(s.silo.accounts.createAccount('x3', '__proto__')).rejects.toThrow(/Unknown plan/);
    await expect(s.silo.accounts.createAccount('__proto__')).rejects.toThrow();
    const keys = await s.silo.accounts.listKeys('constructor');
    expect(keys.map((k) => k.name).sort()).toEqual(['__proto__', 'a', 'm']);
    untouched();
  });
});
