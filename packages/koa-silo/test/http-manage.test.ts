/**
 * Contract §3 and §4 over real HTTP: the management API's statuses and bodies, validation bodies,
 * authentication outcomes, listing and pagination, and cross-account isolation. Every response is
 * checked against the served OpenAPI document by the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let bob: Account;

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 100_000, rateLimitPerMinute: 0 } } });
  alice = await h.account('alice');
  bob = await h.account('bob');
});
afterAll(() => h.close());

const post = (account: Account, body: unknown, extra: Record<string, string> = {}) =>
  h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(account, extra), body });
const patch = (account: Account, uuid: string, body: unknown, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(account, extra), body });
const del = (account: Account, uuid: string, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(account, extra) });
const meta = (account: Account, uuid: string) => h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(account) });
const getSilo = (account: Account, uuid: string) => h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(account) });
const list = (account: Account, query = '') => h.client.get(`/api/v1/manage/silos${query}`, { headers: manage(account) });

const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

describe('create', () => {
  it('answers 201 with the contract fields and the defaults (region api, private)', async () => {
    const reply = await post(alice, { file_name: 'first', file_data: { a: 1 } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ file_name: 'first', region_name: 'api', is_public: false });
    expect(reply.json.file_uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(reply.headers.location).toBe(`/api/v1/manage/meta/${reply.json.file_uuid}`);
    expect(reply.headers.etag).toMatch(/^"[^"]+"$/);
    expect(reply.json.created_at).toBe(reply.json.updated_at);
  });

  it('is also served without the trailing slash, and takes region and access mode', async () => {
    const reply = await h.client.request('/api/v1/manage', {
      method: 'POST',
      headers: manage(alice),
      body: { file_name: 'n', file_data: [], region_name: 'sg-01-api', is_public: true },
    });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ region_name: 'sg-01-api', is_public: true });
  });

  it('accepts {} and [] and arrays of objects as file_data, and stores them exactly', async () => {
    for (const file_data of [{}, [], [{ a: 1 }, {}], { nested: { list: [1, 'two', null, true] } }]) {
      const uuid = await h.create(alice, { file_name: 'x', file_data });
      const reply = await getSilo(alice, uuid);
      expect(reply.status).toBe(200);
      expect(reply.text).toBe(`{"data":${JSON.stringify(file_data)}}`);
    }
  });

  it('ignores unknown fields', async () => {
    const reply = await post(alice, { file_name: 'u', file_data: {}, owner: 'mallory', file_uuid: MISSING_UUID, version: 3 });
    expect(reply.status).toBe(201);
    expect(reply.json.file_uuid).not.toBe(MISSING_UUID);
    expect(reply.json).not.toHaveProperty('owner');
  });

  it('lists every problem of a body at once, with loc and a stable type', async () => {
    const reply = await post(alice, { file_name: 5, region_name: 'eu', is_public: 'true' });
    expect(reply.status).toBe(422);
    const byField = Object.fromEntries(reply.json.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]));
    expect(byField).toEqual({
      'body.file_name': 'string_type',
      'body.file_data': 'missing',
      'body.region_name': 'enum',
      'body.is_public': 'bool_type',
    });
  });

  it('gives a value of the wrong type one problem: its type', async () => {
    const reply = await post(alice, { file_name: 'x', file_data: {}, region_name: null });
    expect(reply.json.detail).toEqual([
      { loc: ['body', 'region_name'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('says "Field required" for missing fields', async () => {
    const reply = await post(alice, {});
    expect(reply.status).toBe(422);
    expect(reply.json.detail).toEqual([
      { loc: ['body', 'file_name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'file_data'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('bounds file_name to 1..255 characters (counting code points as JSON Schema does)', async () => {
    expect((await post(alice, { file_name: '', file_data: {} })).json.detail[0]).toMatchObject({
      loc: ['body', 'file_name'],
      type: 'string_too_short',
    });
    expect((await post(alice, { file_name: 'n'.repeat(256), file_data: {} })).json.detail[0]).toMatchObject({
      loc: ['body', 'file_name'],
      type: 'too_long',
    });
    expect((await post(alice, { file_name: 'n'.repeat(255), file_data: {} })).status).toBe(201);
    expect((await post(alice, { file_name: '😀'.repeat(255), file_data: {} })).status).toBe(201);
  });

  it('refuses file_data that is not an object or an array of objects, pointing at the bad item', async () => {
    for (const file_data of ['text', 1, true, null]) {
      const reply = await post(alice, { file_name: 'x', file_data });
      expect(reply.status).toBe(422);
      expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'file_data'], type: 'dict_type' })]);
    }
    const reply = await post(alice, { file_name: 'x', file_data: [{}, 1, [], {}] });
    expect(reply.json.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'file_data', 1],
      ['body', 'file_data', 2],
    ]);
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[]', '"text"', '3', 'null']) {
      const reply = await post(alice, body);
      expect(reply.status).toBe(422);
      expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'model_attributes_type' })]);
    }
  });
});

describe('list', () => {
  let carol: Account;
  /** Carol's silos in the contract's order: created_at descending, ties by file_uuid. */
  let newestFirst: string[] = [];
  beforeAll(async () => {
    carol = await h.account('carol');
    const created: { file_uuid: string; created_at: string }[] = [];
    for (let i = 0; i < 7; i++) {
      created.push((await post(carol, { file_name: `c${i}`, file_data: { i } })).json);
      if (i % 2 === 0) await new Promise((r) => setTimeout(r, 3));
    }
    newestFirst = created
      .sort((a, b) => (a.created_at === b.created_at ? (a.file_uuid < b.file_uuid ? -1 : 1) : a.created_at < b.created_at ? 1 : -1))
      .map((c) => c.file_uuid);
    expect(new Set(created.map((c) => c.created_at)).size).toBeGreaterThan(3);
  });

  it('shows the caller\'s silos newest first with the envelope', async () => {
    const reply = await list(carol);
    expect(reply.status).toBe(200);
    expect(reply.json.metadata).toEqual({ total_items: 7, per_page: 25, page_no: 1 });
    expect(reply.json.silos.map((s: { file_uuid: string }) => s.file_uuid)).toEqual(newestFirst);
    expect(Object.keys(reply.json.silos[0]).sort()).toEqual(
      ['created_at', 'file_name', 'file_uuid', 'is_public', 'region_name', 'size', 'updated_at', 'version'],
    );
    // size: the byte length of the stored file_data text ({"i":N}), as history's entries give it.
    expect(reply.json.silos.map((s: { size: number }) => s.size)).toEqual(newestFirst.map(() => 7));
  });

  it('pages with page (or page_no) and per_page, and a page past the end is empty with the true total', async () => {
    const p2 = await list(carol, '?page=2&per_page=3');
    expect(p2.json.metadata).toEqual({ total_items: 7, per_page: 3, page_no: 2 });
    expect(p2.json.silos.map((s: { file_uuid: string }) => s.file_uuid)).toEqual(newestFirst.slice(3, 6));
    const p3 = await list(carol, '?page_no=3&per_page=3');
    expect(p3.json.silos.map((s: { file_uuid: string }) => s.file_uuid)).toEqual(newestFirst.slice(6));
    const past = await list(carol, '?page=9&per_page=3');
    expect(past.status).toBe(200);
    expect(past.json).toEqual({ metadata: { total_items: 7, per_page: 3, page_no: 9 }, silos: [] });
    expect((await list(carol, '?per_page=100')).json.silos).toHaveLength(7);
  });

  it('refuses bad page and per_page values with 422 at ["query", name]', async () => {
    const cases: [string, string, string][] = [
      ['?page=0', 'page', 'greater_than_equal'],
      ['?page=-1', 'page', 'greater_than_equal'],
      ['?page=1.5', 'page', 'int_parsing'],
      ['?page=x', 'page', 'int_parsing'],
      ['?page=', 'page', 'int_parsing'],
      ['?page_no=0', 'page_no', 'greater_than_equal'],
      // Past 2^53 - 1 it was answered as page 9007199254740991.
      ['?page=99999999999999999999', 'page', 'less_than_equal'],
      // Given twice, it was read as the last one: as the data queries answer, a 422.
      ['?page=1&page=2', 'page', 'multiple_values'],
      ['?per_page=0', 'per_page', 'greater_than_equal'],
      ['?per_page=101', 'per_page', 'less_than_equal'],
      ['?per_page=ten', 'per_page', 'int_parsing'],
    ];
    for (const [query, field, type] of cases) {
      const reply = await list(carol, query);
      expect(reply.status, query).toBe(422);
      expect(reply.json.detail, query).toEqual([expect.objectContaining({ loc: ['query', field], type })]);
    }
    const both = await list(carol, '?page=0&per_page=500');
    expect(both.json.detail).toHaveLength(2);
  });

  it('drops a deleted silo at once', async () => {
    const uuid = await h.create(carol, { file_name: 'gone', file_data: {} });
    expect((await list(carol)).json.metadata.total_items).toBe(8);
    expect((await del(carol, uuid)).status).toBe(200);
    const after = await list(carol);
    expect(after.json.metadata.total_items).toBe(7);
    expect(after.json.silos.map((s: { file_uuid: string }) => s.file_uuid)).not.toContain(uuid);
  });
});

describe('meta and get-silo', () => {
  it('meta answers the six fields and version, get-silo the stored JSON under data', async () => {
    const data = { b: [1, 2, { c: 'ü' }], a: 1.5e300 };
    const uuid = await h.create(alice, { file_name: 'm', file_data: data, is_public: true });
    const m = await meta(alice, uuid);
    expect(m.status).toBe(200);
    expect(Object.keys(m.json).sort()).toEqual(['created_at', 'file_name', 'file_uuid', 'is_public', 'region_name', 'updated_at', 'version']);
    expect(m.json).toMatchObject({ file_uuid: uuid, file_name: 'm', is_public: true, region_name: 'api' });
    const g = await getSilo(alice, uuid);
    expect(g.status).toBe(200);
    expect(g.json).toEqual({ data });
    expect(g.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('accepts an upper-case uuid', async () => {
    const uuid = await h.create(alice, { file_name: 'upper', file_data: {} });
    expect((await meta(alice, uuid.toUpperCase())).json.file_uuid).toBe(uuid);
  });

  it('answers 404 for a well-formed uuid that is no silo, 422 for a malformed one', async () => {
    for (const path of [`/api/v1/manage/meta/${MISSING_UUID}`, `/api/v1/manage/${MISSING_UUID}`]) {
      const reply = await h.client.get(path, { headers: manage(alice) });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ detail: expect.any(String) });
    }
    for (const bad of ['abc', `${MISSING_UUID}0`, MISSING_UUID.replace(/-/g, ''), `urn:uuid:${MISSING_UUID}`, 'g'.repeat(36)]) {
      for (const path of [`/api/v1/manage/meta/${bad}`, `/api/v1/manage/${bad}`]) {
        const reply = await h.client.get(path, { headers: manage(alice) });
        expect(reply.status, path).toBe(422);
        expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['path', 'file_uuid'], type: 'uuid_parsing' })]);
      }
    }
  });
});

describe('update', () => {
  it('changes only the fields sent, replaces file_data whole, answers all seven fields and version', async () => {
    const uuid = await h.create(alice, { file_name: 'u1', file_data: { keep: 1, drop: 2 } });
    const before = (await meta(alice, uuid)).json;
    await new Promise((r) => setTimeout(r, 5));
    const reply = await patch(alice, uuid, { file_data: { fresh: true } });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(
      ['created_at', 'file_data', 'file_name', 'file_uuid', 'is_public', 'region_name', 'updated_at', 'version'],
    );
    expect(reply.json).toMatchObject({ file_name: 'u1', file_uuid: uuid, is_public: false, region_name: 'api', file_data: { fresh: true } });
    expect(reply.json.created_at).toBe(before.created_at);
    expect(reply.json.updated_at > before.updated_at).toBe(true);
    expect((await getSilo(alice, uuid)).json).toEqual({ data: { fresh: true } });

    const renamed = await patch(alice, uuid, { file_name: 'u2', is_public: true });
    expect(renamed.json).toMatchObject({ file_name: 'u2', is_public: true, file_data: { fresh: true } });
  });

  it('changes updated_at on every update, even within one millisecond', async () => {
    const uuid = await h.create(alice, { file_name: 't', file_data: {} });
    const stamps = [];
    for (let i = 0; i < 3; i++) stamps.push((await patch(alice, uuid, { is_public: i % 2 === 0 })).json.updated_at);
    expect(new Set(stamps).size).toBe(3);
  });

  it('refuses a body with none of the four fields', async () => {
    const uuid = await h.create(alice, { file_name: 'e', file_data: {} });
    for (const body of [{}, { other: 1 }]) {
      const reply = await patch(alice, uuid, body);
      expect(reply.status).toBe(422);
      expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'missing' })]);
    }
  });

  it('says which Content-Type a JSON Patch needs when one comes as application/json', async () => {
    const uuid = await h.create(alice, { file_name: 'p', file_data: [] });
    const reply = await patch(alice, uuid, [{ op: 'add', path: '/file_data/-', value: { a: 1 } }]);
    expect(reply.status).toBe(422);
    expect(reply.json.detail).toEqual([
      expect.objectContaining({ loc: ['body'], type: 'model_attributes_type', msg: expect.stringContaining('Content-Type: application/json-patch+json') }),
    ]);
    // Not on a create, where an array is no patch at all.
    expect((await post(alice, '[]')).json.detail[0].msg).not.toContain('JSON Patch');
  });

  it('validates the fields it gets, and reports path and body problems together', async () => {
    const uuid = await h.create(alice, { file_name: 'v', file_data: {} });
    const reply = await patch(alice, uuid, { file_name: null, is_public: 1, file_data: 'x' });
    expect(reply.status).toBe(422);
    expect(reply.json.detail.map((d: { loc: string[]; type: string }) => `${d.loc.join('.')}:${d.type}`).sort()).toEqual([
      'body.file_data:dict_type',
      'body.file_name:string_type',
      'body.is_public:bool_type',
    ]);
    const both = await patch(alice, 'nope', { region_name: 'mars' });
    expect(both.json.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['path.file_uuid', 'body.region_name']);
    expect((await getSilo(alice, uuid)).json).toEqual({ data: {} });
  });

  it('answers 404 for a silo that does not exist', async () => {
    const reply = await patch(alice, MISSING_UUID, { file_name: 'x' });
    expect(reply.status).toBe(404);
  });
});

describe('delete', () => {
  it('answers 200 {file_uuid, deleted: true}, then 404 at every address', async () => {
    const uuid = await h.create(alice, { file_name: 'd', file_data: { x: 1 }, is_public: true });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(200);
    const reply = await del(alice, uuid);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ file_uuid: uuid, deleted: true });
    expect((await meta(alice, uuid)).status).toBe(404);
    expect((await getSilo(alice, uuid)).status).toBe(404);
    expect((await patch(alice, uuid, { file_name: 'back' })).status).toBe(404);
    expect((await del(alice, uuid)).status).toBe(404);
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(404);
    expect((await h.client.get(`/${uuid}`, { headers: access(alice) })).status).toBe(404);
    expect((await h.client.get(`/${uuid}?path=x`, { headers: access(alice) })).status).toBe(404);
  });

  it('refuses a malformed uuid with 422', async () => {
    const reply = await del(alice, 'not-a-uuid');
    expect(reply.status).toBe(422);
    expect(reply.json.detail[0].loc).toEqual(['path', 'file_uuid']);
  });
});

describe('authentication (contract §3)', () => {
  let uuid: string;
  beforeAll(async () => {
    uuid = await h.create(alice, { file_name: 'secret', file_data: { s: 1 } });
  });

  const endpoints = (id: string): [string, string, unknown?][] => [
    ['POST', '/api/v1/manage/', { file_name: 'x', file_data: {} }],
    ['GET', '/api/v1/manage/silos'],
    ['GET', `/api/v1/manage/meta/${id}`],
    ['GET', `/api/v1/manage/${id}`],
    ['PATCH', `/api/v1/manage/${id}`, { file_name: 'x' }],
    ['DELETE', `/api/v1/manage/${id}`],
  ];

  it('answers 401 {detail} without X-MAN-API, with an unknown key, or with an access key', async () => {
    for (const [method, path, body] of endpoints(uuid)) {
      for (const headers of [{} as Record<string, string>, { 'X-MAN-API': 'silo_man_unknown' }, { 'X-MAN-API': alice.access }, { 'X-MAN-API': '' }]) {
        const reply = await h.client.request(path, { method, headers, body });
        expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(typeof reply.json.detail).toBe('string');
      }
    }
    expect((await getSilo(alice, uuid)).json).toEqual({ data: { s: 1 } });
  });

  it('says which header a key of the other type goes in, by its prefix, whether or not it is valid', async () => {
    const asManage = await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': alice.access } });
    expect(asManage.status).toBe(401);
    expect(asManage.json.detail).toBe('X-MAN-API holds an access key (silo_acc_…): it goes in X-SILO-KEY; X-MAN-API takes a manage key (silo_man_…)');
    const asAccess = await h.client.get(`/${uuid}`, { headers: { 'X-SILO-KEY': 'silo_man_not-even-a-key' } });
    expect(asAccess.status).toBe(401);
    expect(asAccess.json.detail).toBe('X-SILO-KEY holds a manage key (silo_man_…): it goes in X-MAN-API; X-SILO-KEY takes an access key (silo_acc_…)');
    expect(JSON.stringify(asManage.json)).not.toContain(alice.access);
  });

  it('answers 401 before validating, so nothing is revealed to a caller without a key', async () => {
    const reply = await h.client.request('/api/v1/manage/not-a-uuid', { method: 'PATCH', body: '{bad' });
    expect(reply.status).toBe(401);
  });

  it('takes header names in any case', async () => {
    const reply = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: { 'x-man-api': alice.manage } });
    expect(reply.status).toBe(200);
  });

  it('refuses a revoked key at once', async () => {
    const dave = await h.account('dave');
    expect((await list(dave)).status).toBe(200);
    await h.silo.accounts.revokeKey({ account: 'dave', type: 'manage', name: 'm', confirm: 'm' });
    expect((await list(dave)).status).toBe(401);
    const spare = await h.silo.accounts.createKey({ account: 'dave', type: 'manage', name: 'spare', duration: '7d' });
    expect((await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': spare.key } })).status).toBe(200);
  });

  it('never lets one account see, list, change or delete another account\'s silo', async () => {
    const missing = await meta(bob, MISSING_UUID);
    const checks = [
      await meta(bob, uuid),
      await getSilo(bob, uuid),
      await patch(bob, uuid, { file_name: 'pwned', file_data: { pwned: true } }),
      await del(bob, uuid),
    ];
    for (const reply of checks) {
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual(missing.json);
    }
    expect((await list(bob)).json.silos.map((s: { file_uuid: string }) => s.file_uuid)).not.toContain(uuid);
    // Alice's silo is untouched.
    expect((await meta(alice, uuid)).json.file_name).toBe('secret');
    expect((await getSilo(alice, uuid)).json).toEqual({ data: { s: 1 } });
  });
});
