/**
 * Contract §1 and §5 over real HTTP: data access at /<uuid> and /public/<uuid>, region hosts and
 * moves, parameters (silo-query), ETags and conditional requests, CORS, HEAD and OPTIONS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let bob: Account;

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0 } } });
  alice = await h.account('alice');
  bob = await h.account('bob');
});
afterAll(() => h.close());

const read = (uuid: string, account?: Account, host: string = HOSTS.api, extra: Record<string, string> = {}, query = '') =>
  h.client.get(`/${uuid}${query}`, { host, headers: account ? access(account, extra) : extra });
const readPublic = (uuid: string, host: string = HOSTS.api, extra: Record<string, string> = {}, query = '') =>
  h.client.get(`/public/${uuid}${query}`, { host, headers: extra });
const patch = (account: Account, uuid: string, body: unknown, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(account, extra), body });

// Written as JSON text: an object literal would take `__proto__` as the prototype, not as a key.
const ROWS_TEXT =
  '[{"id":1,"name":"Ada","tags":["x"],"score":9.5,"__proto__":"own","constructor":"also own"},' +
  '{"id":2,"name":"Bob","nested":{"deep":[10,20]}},{"id":3,"name":"ada"}]';

describe('private address /<uuid>', () => {
  let uuid: string;
  beforeAll(async () => {
    const created = await h.client.request('/api/v1/manage/', {
      method: 'POST',
      headers: manage(alice),
      body: `{"file_name":"rows","file_data":${ROWS_TEXT}}`,
    });
    expect(created.status).toBe(201);
    uuid = created.json.file_uuid;
  });

  it('sends the stored JSON as application/json to a key of the owner', async () => {
    const reply = await read(uuid, alice);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.text).toBe(ROWS_TEXT);
  });

  it('marks a keyed answer private (no shared cache keeps it), a public one not', async () => {
    const keyed = await read(uuid, alice);
    expect(keyed.status).toBe(200);
    expect(keyed.headers['cache-control']).toBe('private');
    const listing = await h.client.get('/api/v1/manage/silos', { headers: manage(alice) });
    expect(listing.headers['cache-control']).toBe('private');
    const made = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: { file_name: 'pub', file_data: {}, is_public: true } });
    const pub = await readPublic(made.json.file_uuid as string);
    expect(pub.status).toBe(200);
    expect(pub.headers['cache-control']).toBeUndefined();
  });

  it('answers 401 without X-SILO-KEY, with an unknown key, and with a manage key', async () => {
    for (const headers of [{} as Record<string, string>, { 'X-SILO-KEY': 'silo_acc_nope' }, { 'X-SILO-KEY': alice.manage }]) {
      const reply = await h.client.get(`/${uuid}`, { headers });
      expect(reply.status).toBe(401);
      expect(typeof reply.json.detail).toBe('string');
    }
  });

  it('answers another account\'s key with the same 404 as a missing silo', async () => {
    const missing = await read('00000000-0000-4000-8000-000000000000', bob);
    const other = await read(uuid, bob);
    expect(other.status).toBe(404);
    expect(other.json).toEqual(missing.json);
    expect((await read(uuid, bob, HOSTS.api, {}, '?idx=0')).status).toBe(404);
  });

  it('is not served at the public address', async () => {
    const reply = await readPublic(uuid);
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual((await readPublic('00000000-0000-4000-8000-000000000000')).json);
  });

  it('runs idx, path and output, in any order', async () => {
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=1&path=nested.deep.1')).json).toBe(20);
    expect((await read(uuid, alice, HOSTS.api, {}, '?path=name&idx=0')).json).toBe('Ada');
    expect((await read(uuid, alice, HOSTS.api, {}, '?output=text&path=id&idx=2')).json).toBe('3');
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=9')).json).toBeNull();
  });

  it('returns __proto__ and constructor keys as plain data, and never a prototype property', async () => {
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=0&path=__proto__')).json).toBe('own');
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=0&path=constructor')).json).toBe('also own');
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=1&path=constructor')).json).toBeNull();
    expect((await read(uuid, alice, HOSTS.api, {}, '?idx=1&path=__proto__')).json).toBeNull();
    const first = (await read(uuid, alice, HOSTS.api, {}, '?idx=0')).json;
    expect(Object.hasOwn(first, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(JSON.stringify(first)).toBe(JSON.stringify(JSON.parse(ROWS_TEXT)[0]));
    const got = await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) });
    expect(got.text).toBe(`{"data":${ROWS_TEXT}}`);
  });

  it('runs a search and answers the matches in array order', async () => {
    const reply = await read(uuid, alice, HOSTS.api, {}, '?q=name&value=Ada');
    expect(reply.status).toBe(200);
    expect(reply.json.map((r: { id: number }) => r.id)).toEqual([1]);
    expect((await read(uuid, alice, HOSTS.api, {}, '?q=name&value=nobody')).json).toEqual([]);
  });

  it('answers bad parameters with 422 in the validation shape', async () => {
    const reply = await read(uuid, alice, HOSTS.api, {}, '?idx=-1');
    expect(reply.status).toBe(422);
    expect(reply.json.detail[0].loc).toEqual(['query', 'idx']);
    const missingSilo = await read('00000000-0000-4000-8000-000000000000', alice, HOSTS.api, {}, '?idx=x');
    expect(missingSilo.status).toBe(422);
  });

  it('answers a search on an object silo with 422 at ["query","q"]', async () => {
    const obj = await h.create(alice, { file_name: 'obj', file_data: { a: 1 } });
    const reply = await read(obj, alice, HOSTS.api, {}, '?q=a&value=1');
    expect(reply.status).toBe(422);
    expect(reply.json.detail[0].loc).toEqual(['query', 'q']);
  });

  it('ignores parameters that are not query parameters', async () => {
    const reply = await read(uuid, alice, HOSTS.api, {}, '?cachebust=1');
    expect(reply.text).toBe(ROWS_TEXT);
  });

  it('reads a public silo of the same account with parameters', async () => {
    const pub = await h.create(alice, { file_name: 'pub', file_data: [{ a: 1 }], is_public: true });
    expect((await read(pub, alice, HOSTS.api, {}, '?idx=0&path=a')).json).toBe(1);
    expect((await read(pub, bob)).status).toBe(404);
  });

  it('never serves a parsed value older than the last acknowledged update', async () => {
    const id = await h.create(alice, { file_name: 'cache', file_data: [{ v: 0 }] });
    for (let i = 1; i <= 5; i++) {
      expect((await read(id, alice, HOSTS.api, {}, '?idx=0&path=v')).json).toBe(i - 1);
      expect((await patch(alice, id, { file_data: [{ v: i }] })).status).toBe(200);
      expect((await read(id, alice, HOSTS.api, {}, '?idx=0&path=v')).json).toBe(i);
    }
  });
});

describe('public address /public/<uuid>', () => {
  let uuid: string;
  beforeAll(async () => {
    uuid = await h.create(alice, { file_name: 'open', file_data: { hello: 'world' }, is_public: true });
  });

  it('serves a public silo without credentials, to any origin', async () => {
    const reply = await readPublic(uuid, HOSTS.api, { Origin: 'https://example.org' });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ hello: 'world' });
    expect(reply.headers['access-control-allow-origin']).toBe('*');
  });

  it('refuses query and search parameters with a 400 that points to the private address', async () => {
    for (const query of ['?path=hello', '?idx=0', '?q=a&value=b', '?output=text', '?op=eq']) {
      const reply = await readPublic(uuid, HOSTS.api, {}, query);
      expect(reply.status, query).toBe(400);
      expect(reply.json.detail).toMatch(/private address/);
      expect(reply.headers['access-control-allow-origin']).toBe('*');
    }
    // The 400 does not depend on whether the silo exists.
    expect((await readPublic('00000000-0000-4000-8000-000000000000', HOSTS.api, {}, '?path=a')).status).toBe(400);
  });

  it('answers a CORS preflight', async () => {
    const reply = await h.client.request(`/public/${uuid}`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.headers['access-control-allow-methods']).toContain('GET');
    expect(reply.headers['access-control-allow-headers']?.toLowerCase()).toContain('if-none-match');
  });

  it('stops serving a silo made private', async () => {
    const id = await h.create(alice, { file_name: 'flip', file_data: {}, is_public: true });
    expect((await readPublic(id)).status).toBe(200);
    expect((await patch(alice, id, { is_public: false })).status).toBe(200);
    expect((await readPublic(id)).status).toBe(404);
    expect((await read(id, alice)).status).toBe(200);
  });
});

describe('public queries when the operator turns them on', () => {
  it('runs parameters at the public address', async () => {
    const open = await startSilo({ publicQueries: true, plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 0 } } });
    try {
      const owner = await open.account('o');
      const id = await open.create(owner, { file_name: 'p', file_data: [{ a: 'b' }], is_public: true });
      const reply = await open.client.get(`/public/${id}?idx=0&path=a`);
      expect(reply.status).toBe(200);
      expect(reply.json).toBe('b');
      expect((await open.client.get(`/public/${id}?idx=zz`)).status).toBe(422);
    } finally {
      await open.close();
    }
  });
});

describe('regions (contract §1)', () => {
  it('serves data only on the silo\'s region host, and management on every host', async () => {
    const created = await h.client.request('/api/v1/manage/', {
      method: 'POST',
      host: `${HOSTS.usc}:8080`,
      headers: manage(alice),
      body: { file_name: 'sg', file_data: { where: 'sg' }, region_name: 'sg-01-api', is_public: true },
    });
    expect(created.status).toBe(201);
    const uuid = created.json.file_uuid as string;
    expect((await read(uuid, alice, `${HOSTS.sg}:8080`)).status).toBe(200);
    expect((await read(uuid, alice, 'SG-01-API.LOCALHOST')).status).toBe(200);
    expect((await readPublic(uuid, HOSTS.sg)).status).toBe(200);
    for (const host of [HOSTS.api, HOSTS.usc, 'localhost:8080', 'example.com']) {
      expect((await read(uuid, alice, host)).status, host).toBe(404);
      expect((await readPublic(uuid, host)).status, host).toBe(404);
    }
    for (const host of [HOSTS.api, HOSTS.sg, HOSTS.usc, 'localhost']) {
      const meta = await h.client.get(`/api/v1/manage/meta/${uuid}`, { host, headers: manage(alice) });
      expect(meta.status, host).toBe(200);
    }
  });

  it('serves region api on a host that matches no region', async () => {
    const uuid = await h.create(alice, { file_name: 'a', file_data: { r: 'api' }, is_public: true });
    expect((await readPublic(uuid, 'localhost:8080')).status).toBe(200);
    expect((await read(uuid, alice, '127.0.0.1')).status).toBe(200);
    expect((await readPublic(uuid, HOSTS.sg)).status).toBe(404);
  });

  it('moves a silo: after the PATCH the old host answers 404 and the new one serves it', async () => {
    const uuid = await h.create(alice, { file_name: 'mover', file_data: { payload: [1, 2, 3] }, is_public: true });
    const moved = await patch(alice, uuid, { region_name: 'usc-01-api' });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ region_name: 'usc-01-api', file_data: { payload: [1, 2, 3] } });
    expect((await readPublic(uuid, HOSTS.api)).status).toBe(404);
    expect((await read(uuid, alice, HOSTS.api)).status).toBe(404);
    expect((await readPublic(uuid, HOSTS.usc)).json).toEqual({ payload: [1, 2, 3] });
    expect((await read(uuid, alice, HOSTS.usc, {}, '?path=payload.2')).json).toBe(3);
    const back = await patch(alice, uuid, { region_name: 'api', file_data: { payload: [] } });
    expect(back.status).toBe(200);
    expect((await readPublic(uuid, HOSTS.usc)).status).toBe(404);
    expect((await readPublic(uuid, HOSTS.api)).json).toEqual({ payload: [] });
  });
});

describe('ETag and conditional requests', () => {
  it('gives a strong ETag that changes with the data, and 304 for If-None-Match', async () => {
    const uuid = await h.create(alice, { file_name: 'e', file_data: [{ n: 1 }], is_public: true });
    const first = await readPublic(uuid);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[!#-~]+"$/);
    expect((await readPublic(uuid)).headers.etag).toBe(etag);
    const cached = await readPublic(uuid, HOSTS.api, { 'If-None-Match': etag });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers.etag).toBe(etag);
    expect((await readPublic(uuid, HOSTS.api, { 'If-None-Match': `"other", W/${etag}` })).status).toBe(304);
    expect((await read(uuid, alice, HOSTS.api, { 'If-None-Match': etag })).status).toBe(304);

    const got = await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) });
    expect(got.headers.etag).toBe(etag);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice, { 'If-None-Match': etag }) })).status).toBe(304);

    await patch(alice, uuid, { file_data: [{ n: 2 }] });
    const fresh = await readPublic(uuid, HOSTS.api, { 'If-None-Match': etag });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.etag).not.toBe(etag);
  });

  it('gives parameterised reads their own ETag', async () => {
    const uuid = await h.create(alice, { file_name: 'q', file_data: [{ a: 1, b: 2 }] });
    const a = await read(uuid, alice, HOSTS.api, {}, '?idx=0&path=a');
    const b = await read(uuid, alice, HOSTS.api, {}, '?idx=0&path=b');
    const whole = await read(uuid, alice);
    expect(new Set([a.headers.etag, b.headers.etag, whole.headers.etag]).size).toBe(3);
    expect((await read(uuid, alice, HOSTS.api, { 'If-None-Match': a.headers.etag as string }, '?idx=0&path=a')).status).toBe(304);
    expect((await read(uuid, alice, HOSTS.api, { 'If-None-Match': a.headers.etag as string }, '?idx=0&path=b')).status).toBe(200);
  });

  it('answers If-Match on PATCH and DELETE with 412 when the silo changed since', async () => {
    const uuid = await h.create(alice, { file_name: 'lock', file_data: {} });
    const etag = (await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).headers.etag as string;
    const ok = await patch(alice, uuid, { file_name: 'one' }, { 'If-Match': etag });
    expect(ok.status).toBe(200);
    const stale = await patch(alice, uuid, { file_name: 'two' }, { 'If-Match': etag });
    expect(stale.status).toBe(412);
    expect(typeof stale.json.detail).toBe('string');
    expect((await patch(alice, uuid, { file_name: 'weak' }, { 'If-Match': `W/${ok.headers.etag}` })).status).toBe(412);
    // `*` is the whole header or nothing: in a list it matches no version (it was "any" before).
    for (const list of ['"x", *', '*, "x"', '"""garbage, W/"x", *']) {
      expect((await patch(alice, uuid, { file_name: 'star' }, { 'If-Match': list })).status).toBe(412);
    }
    expect((await patch(alice, uuid, { file_name: 'three' }, { 'If-Match': `"x", ${ok.headers.etag}` })).status).toBe(200);
    const del = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice, { 'If-Match': etag }) });
    expect(del.status).toBe(412);
    expect((await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).json.file_name).toBe('three');
    const gone = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice, { 'If-Match': ' * ' }) });
    expect(gone.status).toBe(200);
  });

  it("takes a query answer's ETag in If-Match as its version's: 200 while the silo is at that version, 412 once it is not", async () => {
    const uuid = await h.create(alice, { file_name: 'rows', file_data: [{ a: 1 }, { a: 2 }] });
    const answer = await read(uuid, alice, HOSTS.api, {}, '?limit=1');
    expect(answer.headers.etag).toMatch(/^"[^".]+\.[^".]+"$/);
    const ok = await patch(alice, uuid, { file_name: 'rows-1' }, { 'If-Match': answer.headers.etag as string });
    expect(ok.status).toBe(200);
    expect((await patch(alice, uuid, { file_name: 'rows-2' }, { 'If-Match': answer.headers.etag as string })).status).toBe(412);
    // Only a whole query part: a version's tag with anything else after it names no version.
    const [tag] = (ok.headers.etag as string).slice(1, -1).split('.');
    expect((await patch(alice, uuid, { file_name: 'rows-3' }, { 'If-Match': `"${tag}.short"` })).status).toBe(412);
    expect((await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).json.file_name).toBe('rows-1');
  });

  it('answers If-None-Match on writes as RFC 9110 does: 412 for * or the current version, and writes nothing', async () => {
    const uuid = await h.create(alice, { file_name: 'guard', file_data: { v: 1 } });
    const etag = (await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).headers.etag as string;
    for (const header of ['*', etag, `W/${etag}`, `"x", ${etag}`]) {
      const refused = await patch(alice, uuid, { file_data: { v: 2 } }, { 'If-None-Match': header });
      expect(refused.status, header).toBe(412);
      expect(typeof refused.json.detail).toBe('string');
    }
    const del = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice, { 'If-None-Match': etag }) });
    expect(del.status).toBe(412);
    const restore = await h.client.request(`/api/v1/manage/${uuid}/versions/1/restore`, { method: 'POST', headers: manage(alice, { 'If-None-Match': '*' }) });
    expect(restore.status).toBe(412);
    // Another version's tag: the write goes ahead; with If-Match too, both must hold.
    const ok = await patch(alice, uuid, { file_data: { v: 3 } }, { 'If-None-Match': '"someone-else"', 'If-Match': etag });
    expect(ok.status).toBe(200);
    expect((await patch(alice, uuid, { file_data: { v: 4 } }, { 'If-None-Match': '"x"', 'If-Match': etag })).status).toBe(412);
    // A blank If-Match names no version: it fails, rather than writing without a condition.
    expect((await patch(alice, uuid, { file_data: { v: 5 } }, { 'If-Match': '' })).status).toBe(412);
    // An If-None-Match the server cannot read is refused too, never taken as no condition.
    const current = ok.headers.etag as string;
    for (const header of ['*, *', 'W/*', `${current} "x"`, `${current};x`, `w/${current}`]) {
      const refused = await patch(alice, uuid, { file_data: { v: 6 } }, { 'If-None-Match': header });
      expect(refused.status, header).toBe(412);
      expect(refused.json.detail, header).toMatch(/not a list of entity tags/);
    }
    const meta = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) });
    expect(meta.json).toMatchObject({ version: 2 });
    expect((await read(uuid, alice)).json).toEqual({ v: 3 });
  });

  it('answers 428 without If-Match when the operator requires it', async () => {
    const strict = await startSilo({ requireIfMatch: true, plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 0 } } });
    try {
      const owner = await strict.account('o');
      const uuid = await strict.create(owner, { file_name: 'p', file_data: {} });
      const patched = await strict.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(owner), body: { file_name: 'x' } });
      expect(patched.status).toBe(428);
      const deleted = await strict.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(owner) });
      expect(deleted.status).toBe(428);
      // The document says so, for every write that takes If-Match.
      const { paths } = (await strict.client.get('/api/v1/openapi.json')).json as { paths: Record<string, Record<string, { responses: object }>> };
      for (const [path, method] of [['/api/v1/manage/{file_uuid}', 'patch'], ['/api/v1/manage/{file_uuid}', 'delete'], ['/api/v1/manage/{file_uuid}/versions/{version}/restore', 'post']] as const) {
        expect(paths[path]![method]!.responses, `${method} ${path}`).toHaveProperty('428');
      }
      const etag = (await strict.client.get(`/api/v1/manage/${uuid}`, { headers: manage(owner) })).headers.etag as string;
      const ok = await strict.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(owner, { 'If-Match': etag }) });
      expect(ok.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('HEAD', () => {
  it('answers like GET without a body, wherever GET works', async () => {
    const uuid = await h.create(alice, { file_name: 'head', file_data: { a: 'b' }, is_public: true });
    const get = await readPublic(uuid);
    const head = await h.client.request(`/public/${uuid}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect((await h.client.request(`/${uuid}`, { method: 'HEAD', headers: access(alice) })).status).toBe(200);
    expect((await h.client.request('/api/v1/manage/silos', { method: 'HEAD', headers: manage(alice) })).status).toBe(200);
    expect((await h.client.request('/api/v1/manage/silos', { method: 'HEAD' })).status).toBe(401);
  });
});
