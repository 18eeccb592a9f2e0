/**
 * The read path's caches over real HTTP: data reads and get-silo read the silo's metadata on every
 * request and its data record only when the body (or parsed data) of that version is not cached;
 * concurrent readers share one encoded body; an update or delete made by another instance sharing
 * the storage is seen on the next request (the cache is keyed by the version read from storage).
 */
import Koa from 'koa';
import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSilo, type Silo } from '../src/index.js';
import { createStorage } from '../src/storage/index.js';
import { createServices } from '../src/service/index.js';
import { NotFoundError } from '../src/model/index.js';
import { VersionCache } from '../src/limits/version-cache.js';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

/** An in-memory store that counts reads of data blobs. */
class CountingMap extends Map<string, unknown> {
  dataReads = 0;
  override get(key: string) {
    if (key.includes(':blob:')) this.dataReads++;
    return super.get(key);
  }
}

const store = new CountingMap();
const plans = { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0 } };
let h: Harness;
/** Every body Silo set, in order (captured by a middleware in front of it). */
const bodies: unknown[] = [];
/** A second instance on the same storage: its writes never touch the first one's caches. */
let other: Silo;
let alice: Account;

beforeAll(async () => {
  h = await startSilo({ store: new Keyv({ store }), plans }, (app: Koa, silo) => {
    app.use(async (ctx, next) => {
      await next();
      bodies.push(ctx.body);
    });
    app.use(silo.middleware());
  });
  other = createSilo({ store: new Keyv({ store }), plans });
  alice = await h.account('alice');
});
afterAll(async () => {
  await h.close();
  await other.close();
});
beforeEach(() => {
  bodies.length = 0;
});

const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row-${i}` })) };

describe('data reads', () => {
  it('read the data record once per version; concurrent readers share one Buffer', async () => {
    const uuid = await h.create(alice, { file_name: 'big', file_data: big, is_public: true });
    const before = store.dataReads;
    bodies.length = 0;
    const replies = await Promise.all(Array.from({ length: 8 }, () => h.client.get(`/public/${uuid}`)));
    for (const reply of replies) expect(reply.json).toEqual(big);
    expect(store.dataReads - before).toBe(1);
    expect(bodies).toHaveLength(8);
    expect(Buffer.isBuffer(bodies[0])).toBe(true);
    for (const body of bodies) expect(body).toBe(bodies[0]);
    // Later reads too: metadata only.
    expect((await h.client.get(`/${uuid}`, { headers: access(alice) })).json).toEqual(big);
    expect(store.dataReads - before).toBe(1);
  });

  it('answer 304 from the metadata alone', async () => {
    const uuid = await h.create(alice, { file_name: 'etag', file_data: big, is_public: true });
    const first = await h.client.get(`/public/${uuid}`);
    const before = store.dataReads;
    const again = await h.client.get(`/public/${uuid}`, { headers: { 'If-None-Match': first.headers.etag! } });
    expect(again.status).toBe(304);
    expect(store.dataReads).toBe(before);
  });

  it('never serve a cached body or parsed value after an update by another instance', async () => {
    const uuid = await h.create(alice, { file_name: 'v', file_data: { v: 1 }, is_public: true });
    const query = '?path=v';
    expect((await h.client.get(`/public/${uuid}`)).json).toEqual({ v: 1 });
    expect((await h.client.get(`/${uuid}${query}`, { headers: access(alice) })).json).toBe(1);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).json).toEqual({ data: { v: 1 } });
    const etag = (await h.client.get(`/public/${uuid}`)).headers.etag;

    await other.silos.update('alice', uuid, { file_data: { v: 2 } });
    const plain = await h.client.get(`/public/${uuid}`);
    expect(plain.json).toEqual({ v: 2 });
    expect(plain.headers.etag).not.toBe(etag);
    expect((await h.client.get(`/public/${uuid}`, { headers: { 'If-None-Match': etag! } })).status).toBe(200);
    expect((await h.client.get(`/${uuid}${query}`, { headers: access(alice) })).json).toBe(2);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).json).toEqual({ data: { v: 2 } });

    // Made private elsewhere: the cached public body is not served at /public any more.
    await other.silos.update('alice', uuid, { is_public: false });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(404);
    expect((await h.client.get(`/${uuid}`, { headers: access(alice) })).json).toEqual({ v: 2 });
  });

  it('answer 404 after a delete by another instance, with every cache warm', async () => {
    const uuid = await h.create(alice, { file_name: 'gone', file_data: { x: [1, 2] }, is_public: true });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(200);
    expect((await h.client.get(`/${uuid}?path=x`, { headers: access(alice) })).status).toBe(200);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).status).toBe(200);
    await other.silos.delete('alice', uuid);
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(404);
    expect((await h.client.get(`/${uuid}`, { headers: access(alice) })).status).toBe(404);
    expect((await h.client.get(`/${uuid}?path=x`, { headers: access(alice) })).status).toBe(404);
    expect((await h.client.get(`/api/v1/manage/${uuid}`, { headers: manage(alice) })).status).toBe(404);
  });

  it('answer 404 on the old region host after a move by another instance', async () => {
    const uuid = await h.create(alice, { file_name: 'mover', file_data: { m: 1 }, is_public: true });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(200);
    await other.silos.update('alice', uuid, { region_name: 'sg-01-api' });
    expect((await h.client.get(`/public/${uuid}`)).status).toBe(404);
    expect((await h.client.get(`/public/${uuid}`, { host: 'sg-01-api.localhost' })).json).toEqual({ m: 1 });
  });
});

describe('query answers', () => {
  it('are made once per version and query: 40 concurrent polls of one search of a large silo all answer, with their total', async () => {
    // Over 64 KiB: the query runs on the worker pool, whose line refuses an account's 17th waiting task.
    const items = Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item-${i}`, price: i % 100 }));
    const uuid = await h.create(alice, { file_name: 'polled', file_data: items });
    const search = '?filter=price%20lt%2010&sort=-id&limit=5';
    const before = store.dataReads;
    const replies = await Promise.all(Array.from({ length: 40 }, () => h.client.get(`/${uuid}${search}`, { headers: access(alice) })));
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(200));
    const expected = items.filter((i) => i.price < 10).sort((a, b) => b.id - a.id).slice(0, 5);
    for (const reply of replies) {
      expect(reply.json).toEqual(expected);
      expect(reply.headers['x-total-count']).toBe('300');
    }
    expect(store.dataReads - before).toBe(1);

    // A later poll is answered from the cache, total included; a write makes the next one new.
    const again = await h.client.get(`/${uuid}${search}`, { headers: access(alice) });
    expect([again.json, again.headers['x-total-count'], store.dataReads - before]).toEqual([expected, '300', 1]);
    await other.silos.update('alice', uuid, { file_data: items.slice(0, 100) });
    const after = await h.client.get(`/${uuid}${search}`, { headers: access(alice) });
    expect([after.json, after.headers['x-total-count']]).toEqual([[9, 8, 7, 6, 5].map((id) => items[id]), '10']);
  });
});

describe('appends with a minimal answer', () => {
  it('read none of the array once it has had an append, past the fold of its tails too, and keep every element', async () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item-${i}` }));
    const uuid = await h.create(alice, { file_name: 'log', file_data: items });
    const append = (id: number) =>
      h.client.request(`/api/v1/manage/${uuid}`, {
        method: 'PATCH',
        headers: manage(alice, { 'content-type': 'application/json-patch+json', prefer: 'return=minimal' }),
        body: [{ op: 'add', path: '/file_data/-', value: { id, name: `item-${id}` } }],
      });
    // The first append reads the data once (is it an array?); the next ones only what they add.
    const first = await append(2000);
    expect(first.status, first.text).toBe(200);
    const before = store.dataReads;
    const answers = [];
    for (let id = 2001; id < 2010; id++) answers.push(await append(id));
    expect(store.dataReads - before).toBe(0);
    const last = answers.at(-1)!;
    expect([last.status, last.headers['preference-applied'], last.json.version, last.json.file_data]).toEqual([200, 'return=minimal', 11, undefined]);
    expect(last.headers.etag).toBeDefined();

    // Past 32 tails storage folds them into one text (loaded then); the data is whole either way.
    for (let id = 2010; id < 2050; id++) expect((await append(id)).status).toBe(200);
    const read = await h.client.get(`/${uuid}`, { headers: access(alice) });
    expect(read.json).toEqual(Array.from({ length: 2050 }, (_, i) => ({ id: i, name: `item-${i}` })));
  });
});

describe('the service read in two steps', () => {
  const setup = async () => {
    const storage = createStorage({ main: new Keyv() });
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('alice');
    const record = await silos.create('alice', { file_name: 'n', file_data: { a: 1 }, is_public: true });
    return { storage, silos, record };
  };

  it('loads the version it opened, also when a move took its blob away in between', async () => {
    const { silos, record } = await setup();
    const handle = await silos.openData('api', record.file_uuid, undefined);
    expect(handle.record.version).toBe(1);
    await silos.update('alice', record.file_uuid, { file_data: { a: 2 }, region_name: 'sg-01-api' });
    const data = await handle.load();
    expect(data.record.version).toBe(1);
    expect(data.text).toBe('{"a":1}');
  });

  it('loads the newest version when history no longer holds the one it opened', async () => {
    const storage = createStorage({ main: new Keyv() });
    const { accounts, silos } = createServices(storage, { plans: { default: { maxDataBytes: 1000, historyVersions: 1 } } });
    await accounts.createAccount('alice');
    const record = await silos.create('alice', { file_name: 'n', file_data: { a: 1 }, is_public: true });
    const handle = await silos.open('alice', record.file_uuid);
    await silos.update('alice', record.file_uuid, { file_data: { a: 2 } });
    const data = await handle.load();
    expect(data.record.version).toBe(2);
    expect(data.text).toBe('{"a":2}');
  });

  it('answers 404 when the data is gone between the two steps (deleted or moved away)', async () => {
    const { silos, record } = await setup();
    const handle = await silos.open('alice', record.file_uuid);
    const publicHandle = await silos.openData('api', record.file_uuid, undefined);
    await silos.delete('alice', record.file_uuid);
    await expect(handle.load()).rejects.toBeInstanceOf(NotFoundError);
    await expect(publicHandle.load()).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('VersionCache', () => {
  it('keeps one version per key within its byte budget, least recently used out first', async () => {
    const cache = new VersionCache<string>(10);
    cache.set('a', 'v1', 'A1', 4);
    cache.set('b', 'v1', 'B1', 4);
    expect(cache.get('a', 'v1')).toBe('A1');
    expect(cache.get('a', 'v2')).toBeUndefined();
    cache.set('c', 'v1', 'C1', 4); // over budget: b (least recently used) goes
    expect(cache.get('b', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v1')).toBe('A1');
    cache.set('a', 'v2', 'A2', 4); // replaces a's older version
    expect(cache.get('a', 'v1')).toBeUndefined();
    expect(cache.heldBytes).toBe(8);
    cache.set('huge', 'v1', 'H', 11); // larger than the budget: not kept
    expect(cache.get('huge', 'v1')).toBeUndefined();
  });

  it('gives an entry read since it was stored a second chance before the unread ones', () => {
    const cache = new VersionCache<string>(12);
    for (const key of ['a', 'b', 'c']) cache.set(key, 'v1', key.toUpperCase(), 4);
    expect(cache.get('a', 'v1')).toBe('A');
    cache.set('d', 'v1', 'D', 4); // b is the oldest unread
    cache.set('e', 'v1', 'E', 4); // then c: a was passed over once already, and not read since
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => cache.get(key, 'v1') ?? '-')).toEqual(['A', '-', '-', 'D', 'E']);
    expect(cache.heldBytes).toBe(12);
    cache.set('f', 'v1', 'F', 4); // every other one read just now: each passed over once, then the first of them goes
    expect(['a', 'd', 'e', 'f'].map((key) => cache.get(key, 'v1') ?? '-')).toEqual(['A', '-', 'E', 'F']);
  });

  it('drops, at each period, the entries neither stored nor read in the one before', () => {
    const cache = new VersionCache<string>(100);
    cache.set('a', 'v1', 'A', 4);
    cache.set('b', 'v1', 'B', 4);
    cache.dropIdle(); // both were stored in the period that ends
    expect(cache.get('a', 'v1')).toBe('A');
    cache.dropIdle(); // b was not read in it
    expect([cache.get('a', 'v1'), cache.get('b', 'v1')]).toEqual(['A', undefined]);
    expect(cache.heldBytes).toBe(4);
    cache.dropIdle();
    cache.dropIdle();
    expect(cache.size).toBe(0);
    expect(cache.heldBytes).toBe(0);
  });

  it('runs one loader for concurrent loads of a key, version and scope; a failure is not kept', async () => {
    const cache = new VersionCache<string>(100);
    let calls = 0;
    const loader = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { version: 'v2', value: 'x', bytes: 1 };
    };
    const results = await Promise.all([cache.load('k', 'v1', 's', loader), cache.load('k', 'v1', 's', loader)]);
    expect(calls).toBe(1);
    expect(results.map((r) => r.version)).toEqual(['v2', 'v2']);
    await cache.load('k', 'v1', 'other scope', loader);
    expect(calls).toBe(2);
    expect(cache.get('k', 'v2')).toBe('x'); // kept under the version it is of
    await expect(cache.load('f', 'v1', 's', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect((await cache.load('f', 'v1', 's', async () => ({ version: 'v1', value: 'ok', bytes: 1 }))).value).toBe('ok');
  });
});
