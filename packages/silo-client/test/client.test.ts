/**
 * The client against a real `silo serve`, on SQLite and on Redis: every call, its errors, exact
 * numbers both ways, conditional writes racing from two clients, and change feeds (one silo's and
 * the account's) resumed after the server restarts.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { isSiloError, JsonNumber, parseJson, SiloClient, SiloError, toJSON, where, type AuditEvent, type JsonValue, type SiloEvent } from '../src/index.js';
import { redisAvailable, removeDataDirs, startSilo, type Running, type Store } from './support/servers.js';

const haveRedis = await redisAvailable();
const stores: Store[] = haveRedis ? ['sqlite', 'redis'] : ['sqlite'];

afterAll(() => removeDataDirs());

/** Takes events from a feed until `count` arrived (or `ms` passed: then fails). */
async function take(feed: AsyncGenerator<SiloEvent>, count: number, ms = 10_000): Promise<SiloEvent[]> {
  const got: SiloEvent[] = [];
  const timer = setTimeout(() => void feed.return(undefined), ms);
  try {
    for await (const event of feed) {
      got.push(event);
      if (got.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  if (got.length < count) throw new Error(`only ${got.length} of ${count} events within ${ms} ms: ${JSON.stringify(got)}`);
  return got;
}

describe.each(stores)('silo-client against silo serve on %s', (store) => {
  let silo: Running;
  let client: SiloClient;

  beforeAll(async () => {
    silo = await startSilo(store);
    client = new SiloClient({ baseUrl: silo.baseUrl, manageKey: silo.keys.manage, accessKey: silo.keys.access, regionUrls: silo.regionUrls });
  }, 60_000);

  afterAll(async () => {
    await silo?.stop();
  });

  it('creates, lists (a page, and every page), reads metadata and data, updates, patches both ways, deletes', async () => {
    const created = await client.create({ file_name: 'users', file_data: [{ name: 'Ada', age: 36 }, { name: 'Linus', age: 28 }] });
    expect(created).toMatchObject({ file_name: 'users', region_name: 'api', is_public: false, version: 1 });
    expect(created.etag).toMatch(/^"/);
    expect(created.created_at).toBe(created.updated_at);
    const uuid = created.file_uuid;

    for (let i = 0; i < 4; i++) await client.create({ file_name: `extra-${i}`, file_data: {} });
    const page = await client.list({ page: 1, perPage: 2 });
    expect(page.metadata).toEqual({ total_items: 5, per_page: 2, page_no: 1 });
    const all: string[] = [];
    for await (const item of client.listAll({ perPage: 2 })) all.push(item.file_name);
    expect(all).toHaveLength(5);
    expect(all.at(-1)).toBe('users');

    const meta = await client.meta(uuid);
    expect(meta).toMatchObject({ file_uuid: uuid, version: 1, etag: created.etag });
    expect((await client.get(uuid)).data).toEqual([{ name: 'Ada', age: 36 }, { name: 'Linus', age: 28 }]);

    const renamed = await client.update(uuid, { file_name: 'people' }, { ifMatch: meta.etag });
    expect(renamed).toMatchObject({ file_name: 'people', version: 2 });
    const merged = await client.mergePatch(uuid, { is_public: true });
    expect(merged).toMatchObject({ is_public: true, version: 3 });
    const appended = await client.jsonPatch(uuid, [{ op: 'add', path: '/file_data/-', value: { name: 'Grace', age: 45 } }]);
    expect(appended.file_data).toHaveLength(3);
    expect(appended.version).toBe(4);

    const deleted = await client.delete(uuid);
    expect(deleted).toEqual({ file_uuid: uuid, deleted: true });
    const gone = await client.meta(uuid).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(SiloError);
    expect(gone).toMatchObject({ status: 404, detail: 'Silo not found' });
  });

  it('reads history, one version, and restores it', async () => {
    const { file_uuid: uuid } = await client.create({ file_name: 'history', file_data: { n: 1 } });
    await client.update(uuid, { file_data: { n: 2 } });
    await client.update(uuid, { file_data: { n: 3 } });
    const list = await client.versions(uuid, { perPage: 2 });
    expect(list.metadata.total_items).toBe(3);
    expect(list.versions.map((v) => v.version)).toEqual([3, 2]);
    expect(await client.version(uuid, 1)).toMatchObject({ version: 1, data: { n: 1 } });
    const restored = await client.restore(uuid, 1);
    expect(restored).toMatchObject({ version: 4, file_data: { n: 1 } });
    await expect(client.version(uuid, 99)).rejects.toMatchObject({ status: 404 });
  });

  it('answers writes without the document on request (Prefer: return=minimal): metadata, version and an etag that works', async () => {
    // What each call sent and got back, seen from the client's fetch.
    const seen: { method: string; prefer: string | null; applied: string | null }[] = [];
    const recording = new SiloClient({
      baseUrl: silo.baseUrl,
      manageKey: silo.keys.manage,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        seen.push({ method: init?.method ?? 'GET', prefer: new Headers(init?.headers).get('Prefer'), applied: response.headers.get('Preference-Applied') });
        return response;
      },
    });
    const { file_uuid: uuid } = await recording.create({ file_name: 'lean', file_data: { n: 1 } });
    const lean = (version: number) => ({ file_uuid: uuid, file_name: 'lean', region_name: 'api', is_public: false, version });

    const updated = await recording.update(uuid, { file_data: { n: 2 } }, { minimal: true });
    expectTypeOf(updated).not.toHaveProperty('file_data');
    expect(updated).not.toHaveProperty('file_data');
    expect(updated).toMatchObject(lean(2));
    // Its etag is the new version's: a conditional write with it applies.
    const merged = await recording.mergePatch(uuid, { file_data: { m: 3 } }, { minimal: true, ifMatch: updated.etag });
    expect(merged).not.toHaveProperty('file_data');
    expect(merged).toMatchObject(lean(3));
    const patched = await recording.jsonPatch(uuid, [{ op: 'remove', path: '/file_data/n' }], { minimal: true });
    expect(patched).not.toHaveProperty('file_data');
    expect(patched).toMatchObject(lean(4));
    const restored = await recording.restore(uuid, 1, { minimal: true, ifMatch: patched.etag });
    expect(restored).not.toHaveProperty('file_data');
    expect(restored).toMatchObject(lean(5));
    const counted = await recording.retryOnConflict(uuid, ({ data }) => ({ file_data: { ...(data as { n: number }), counted: true } }), { minimal: true });
    expect(counted).not.toHaveProperty('file_data');
    expect(counted).toMatchObject(lean(6));
    // Each write was made: the data is what they wrote, the etag the last answer's.
    const now = await recording.get(uuid);
    expect(now.data).toEqual({ n: 1, counted: true });
    expect(now.etag).toBe(counted!.etag);

    // Without the option, the answer has the document, and no preference was sent.
    const full = await recording.update(uuid, { is_public: true });
    expect(full).toMatchObject({ ...lean(7), is_public: true, file_data: { n: 1, counted: true } });
    const writes = seen.filter((s) => s.method !== 'GET');
    expect(writes.map((s) => [s.prefer, s.applied])).toEqual([
      [null, null], // create
      ...Array.from({ length: 5 }, () => ['return=minimal', 'return=minimal']),
      [null, null], // update without the option
    ]);
  });

  it('reads with idx, path and output, searches, and filters with the builder (items and the total)', async () => {
    const people = [
      { name: 'Ada', age: 36, tags: ['math'], address: { city: 'London' } },
      { name: 'Linus', age: 28, tags: ['kernel'], address: { city: 'Helsinki' } },
      { name: 'Grace', age: 45, tags: ['navy', 'math'], address: { city: 'Arlington' } },
    ];
    const { file_uuid: uuid } = await client.create({ file_name: 'people', file_data: people });
    expect((await client.read(uuid)).data).toEqual(people);
    expect((await client.read(uuid, { idx: 1, path: 'address.city' })).data).toBe('Helsinki');
    expect((await client.read(uuid, { idx: 0, path: 'age', output: 'text' })).data).toBe('36');
    const search = await client.read(uuid, { q: 'age', value: 30, op: 'gt', path: 'name' });
    expect(search).toMatchObject({ data: ['Ada', 'Grace'], total: 2 });
    const filtered = await client.read(uuid, {
      filter: where('tags').has('math').and(where('age').ge(40).or(where(['address', 'city']).eq('London'))),
      sort: ['-age'],
      limit: 1,
      fields: ['name', 'address.city'],
    });
    expect(filtered).toMatchObject({ data: [{ name: 'Grace', address: { city: 'Arlington' } }], total: 2 });
    expect(filtered.etag).toMatch(/^"/);
    const none = await client.read(uuid, { filter: where('name').ilike('z%'), limit: 0 });
    expect(none).toMatchObject({ data: [], total: 0 });
  });

  it('reads a silo of another region on that region\'s port, public silos without a key', async () => {
    const created = await client.create({ file_name: 'far', file_data: { where: 'sg' }, region_name: 'sg-01-api', is_public: true });
    // The client saw its region in the answer: the read goes to the sg-01-api port.
    expect((await client.read(created.file_uuid)).data).toEqual({ where: 'sg' });
    const anonymous = new SiloClient({ baseUrl: silo.baseUrl, regionUrls: silo.regionUrls });
    expect((await anonymous.read(created.file_uuid, {}, { region: 'sg-01-api' })).data).toEqual({ where: 'sg' });
    // On the api region's host the silo does not exist.
    await expect(anonymous.read(created.file_uuid)).rejects.toMatchObject({ status: 404 });
    const moved = await client.update(created.file_uuid, { region_name: 'usc-01-api' });
    expect(moved.region_name).toBe('usc-01-api');
    expect((await client.read(created.file_uuid, {}, { address: 'public' })).data).toEqual({ where: 'sg' });
  });

  it('throws SiloError with the status and the detail: 401, 409, 412, 422 with its problems', async () => {
    const wrong = new SiloClient({ baseUrl: silo.baseUrl, manageKey: 'silo_man_nope' });
    const unauthorized = await wrong.list().catch((e: unknown) => e);
    expect(isSiloError(unauthorized, 401)).toBe(true);
    expect(typeof (unauthorized as SiloError).detail).toBe('string');

    const created = await client.create({ file_name: 'errors', file_data: [{ id: 1 }] });
    const conflict = await client.jsonPatch(created.file_uuid, [{ op: 'test', path: '/file_data/0/id', value: 2 }]).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, detail: expect.stringContaining('test') });

    await client.update(created.file_uuid, { file_name: 'moved on' });
    const stale = await client.update(created.file_uuid, { file_name: 'late' }, { ifMatch: created.etag }).catch((e: unknown) => e);
    expect(isSiloError(stale, 412)).toBe(true);

    const invalid = (await client.create({ file_name: '', file_data: [{ id: 1 }] }).catch((e: unknown) => e)) as SiloError;
    expect(invalid.status).toBe(422);
    expect(invalid.issues).toEqual([expect.objectContaining({ loc: ['body', 'file_name'], type: 'string_too_short' })]);
    await expect(client.version(created.file_uuid, 0)).rejects.toThrow(RangeError);
    await expect(new SiloClient({ baseUrl: silo.baseUrl }).list()).rejects.toThrow(/manage key/);
  });

  it('keeps numbers exactly as written, both ways (12345678901234567890, 1.0, 1e-400)', async () => {
    const data = [{ big: 12345678901234567890n, one: new JsonNumber('1.0'), tiny: new JsonNumber('1e-400'), plain: 1.5 }];
    const created = await client.create({ file_name: 'numbers', file_data: data });
    const raw = await fetch(`${silo.baseUrl}/api/v1/manage/${created.file_uuid}`, { headers: { 'X-MAN-API': silo.keys.manage } });
    expect(await raw.text()).toBe('{"data":[{"big":12345678901234567890,"one":1.0,"tiny":1e-400,"plain":1.5}]}');

    const [item] = (await client.get(created.file_uuid)).data as Record<string, unknown>[];
    expect(item!.big).toBeInstanceOf(JsonNumber);
    expect(String(item!.big)).toBe('12345678901234567890');
    expect(String(item!.one)).toBe('1.0');
    expect(String(item!.tiny)).toBe('1e-400');
    expect(item!.plain).toBe(1.5);

    // Written as text with the client's own toJSON (JSON.stringify refuses a JsonNumber), and read back.
    expect(() => JSON.stringify(item)).toThrow(TypeError);
    expect(toJSON(item)).toBe('{"big":12345678901234567890,"one":1.0,"tiny":1e-400,"plain":1.5}');
    expect(toJSON(parseJson(toJSON(item)))).toBe(toJSON(item));

    // What was read goes back unchanged.
    await client.update(created.file_uuid, { file_data: [item!] });
    const again = await fetch(`${silo.baseUrl}/api/v1/manage/${created.file_uuid}`, { headers: { 'X-MAN-API': silo.keys.manage } });
    expect(await again.text()).toBe('{"data":[{"big":12345678901234567890,"one":1.0,"tiny":1e-400,"plain":1.5}]}');
    expect(String((await client.read(created.file_uuid, { idx: 0, path: 'big' })).data)).toBe('12345678901234567890');
    const found = await client.read<JsonValue[]>(created.file_uuid, { filter: where('big').eq(12345678901234567890n), path: 'one' });
    expect(found.data.map(String)).toEqual(['1.0']);
    await client.jsonPatch(created.file_uuid, [{ op: 'add', path: '/file_data/0/more', value: 98765432109876543210n }]);
    expect(String(((await client.version(created.file_uuid, 3)).data as Record<string, unknown>[])[0]!.more)).toBe('98765432109876543210');
  });

  it("reads plain doubles with numbers: 'double', answers and events alike", async () => {
    const created = await client.create({ file_name: 'doubles', file_data: { count: new JsonNumber('5.0'), id: 12345678901234567890n } });
    const doubles = new SiloClient({ baseUrl: silo.baseUrl, manageKey: silo.keys.manage, accessKey: silo.keys.access, numbers: 'double' });
    expect((await doubles.get(created.file_uuid)).data).toEqual({ count: 5, id: 12345678901234567000 });
    expect((await doubles.read(created.file_uuid)).data).toEqual({ count: 5, id: 12345678901234567000 });
    // The default keeps the texts.
    expect((await client.get(created.file_uuid)).data).toEqual({ count: new JsonNumber('5.0'), id: new JsonNumber('12345678901234567890') });
    const feed = doubles.events(created.file_uuid, { since: 0, data: true });
    const [first] = await take(feed, 1);
    await feed.return(undefined);
    expect(first!.type === 'update' && first!.data.file_data).toEqual({ count: 5, id: 12345678901234567000 });
    expect(() => new SiloClient({ baseUrl: silo.baseUrl, numbers: 'float' as 'double' })).toThrow(TypeError);
  });

  it('lets exactly one of two clients win a conditional write, and retryOnConflict lose nothing', async () => {
    const other = new SiloClient({ baseUrl: silo.baseUrl, manageKey: silo.keys.manage });
    const { file_uuid: uuid, etag } = await client.create({ file_name: 'race', file_data: { count: 0 } });
    const outcomes = await Promise.allSettled([
      client.update(uuid, { file_data: { count: 1, by: 'a' } }, { ifMatch: etag }),
      other.update(uuid, { file_data: { count: 1, by: 'b' } }, { ifMatch: etag }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected');
    expect(isSiloError(lost?.reason, 412)).toBe(true);

    // 2 × 15 increments, interleaved: each lost race re-reads and re-applies.
    let calls = 0;
    const increment = (c: SiloClient) =>
      c.retryOnConflict(
        uuid,
        ({ data }) => {
          calls++;
          const count = (data as { count: number }).count;
          return { file_data: { count: count + 1 } };
        },
        { attempts: 60 },
      );
    await Promise.all(Array.from({ length: 15 }, () => [increment(client), increment(other)]).flat());
    expect((await client.get(uuid)).data).toEqual({ count: 31 });
    expect(calls).toBeGreaterThan(30);
    const unchanged = await client.retryOnConflict(uuid, () => undefined);
    expect(unchanged).toBeUndefined();
  }, 60_000);

  it('manages webhooks: create (the secret once), list, get, deliveries, retry, delete', async () => {
    const hook = await client.webhooks.create({ url: 'http://127.0.0.1:9/silo-hook', events: ['silo.updated'] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).map((h) => h.id)).toContain(hook.id);
    const one = await client.webhooks.get(hook.id);
    expect(one).toMatchObject({ id: hook.id, url: hook.url, events: ['silo.updated'] });
    expect(one).not.toHaveProperty('secret');
    expect(Array.isArray(await client.webhooks.deliveries(hook.id))).toBe(true);
    expect((await client.webhooks.retry(hook.id)).id).toBe(hook.id);
    await client.webhooks.delete(hook.id);
    expect((await client.webhooks.list()).map((h) => h.id)).not.toContain(hook.id);
    await expect(client.webhooks.deliveries(hook.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lists the audit log (a page, every page, by silo, time and actor) and follows its feed, live and from since', async () => {
    const live: AuditEvent[] = [];
    const controller = new AbortController();
    const following = (async () => {
      for await (const event of client.audit.events({ signal: controller.signal })) live.push(event);
    })();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the feed has the entries after it opens
    const { file_uuid: uuid } = await client.create({ file_name: 'audited', file_data: {} });

    const created = await client.audit.list({ silo: uuid });
    expect(created.metadata).toEqual({ total_items: 1, per_page: 25, page_no: 1 });
    expect(created.entries).toEqual([
      expect.objectContaining({ action: 'silo.create', file_uuid: uuid, version: 1, outcome: 'success', actor: expect.objectContaining({ type: 'manage' }) }),
    ]);
    const createdAt = created.entries[0]!.time;

    await client.update(uuid, { file_name: 'audited again' });
    const all: string[] = [];
    for await (const entry of client.audit.listAll({ silo: uuid, perPage: 1 })) all.push(entry.action);
    expect(all).toEqual(['silo.update', 'silo.create']); // newest first
    expect((await client.audit.list({ silo: uuid, since: new Date(Date.now() + 60_000) })).entries).toEqual([]);
    expect((await client.audit.list({ actor: 'nobody by this name' })).metadata.total_items).toBe(0);
    await expect(client.audit.list({ since: 'yesterday' })).rejects.toMatchObject({ status: 422 });

    // The live feed heard both, oldest first.
    const mine = () => live.filter((e) => e.type === 'audit' && e.data.file_uuid === uuid).map((e) => e.type === 'audit' && e.data.action);
    await expect.poll(mine, { timeout: 10_000 }).toEqual(['silo.create', 'silo.update']);
    controller.abort();
    await following;

    // A feed from since replays the entries at or after it, then goes on live.
    const replay = client.audit.events({ since: createdAt });
    const first = await replay.next();
    await replay.return(undefined);
    expect(first.value).toMatchObject({ type: 'audit', id: createdAt, data: { action: 'silo.create', file_uuid: uuid } });
  });

  it("streams a silo's feed (replay from since, then live, with data) and the account's", async () => {
    const { file_uuid: uuid } = await client.create({ file_name: 'feed', file_data: { n: 1 } });
    await client.update(uuid, { file_data: { n: 2 } });
    const feed = client.events(uuid, { since: 1, data: true });
    const events: SiloEvent[] = [];
    const reading = (async () => {
      for await (const event of feed) events.push(event);
    })();
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1);
    await client.update(uuid, { file_data: { n: 3 } });
    // (Deleted only once version 3 is in: a delete racing the read of version 3's data may end the
    // stream before its `delete` event, and the reconnection then finds no silo: a 404.)
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(2);
    await client.delete(uuid);
    await reading;
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ['update', 2],
      ['update', 3],
      ['delete', 3],
    ]);
    expect(events[1]!.data).toMatchObject({ version: 3, file_data: { n: 3 } });

    const account = client.events('account');
    const seen = take(account, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const made = await client.create({ file_name: 'account feed', file_data: {} });
    await client.delete(made.file_uuid);
    expect((await seen).map((e) => [e.type, e.data.file_uuid])).toEqual([
      ['create', made.file_uuid],
      ['delete', made.file_uuid],
    ]);
  });

  it('refuses a feed from a version the silo never had (422), and ends a feed when its signal aborts', async () => {
    const { file_uuid: uuid } = await client.create({ file_name: 'ahead', file_data: {} });
    const ahead = client.events(uuid, { since: 5 });
    await expect(ahead.next()).rejects.toMatchObject({ status: 422, issues: [expect.objectContaining({ type: 'less_than_equal' })] });
    const controller = new AbortController();
    const feed = client.events(uuid, { signal: controller.signal });
    const next = feed.next();
    setTimeout(() => controller.abort(), 200);
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it('resumes a feed with Last-Event-ID after the server restarts: no version missed, none twice', async () => {
    const { file_uuid: uuid } = await client.create({ file_name: 'restart', file_data: { n: 1 } });
    const feed = client.events(uuid);
    const got: SiloEvent[] = [];
    const reading = (async () => {
      for await (const event of feed) {
        got.push(event);
        if (event.id === 5) return;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.update(uuid, { file_data: { n: 2 } });
    await expect.poll(() => got.length, { timeout: 10_000 }).toBe(1);
    await silo.restart();
    // Written while the client is still reconnecting: replayed from history on its return.
    await client.update(uuid, { file_data: { n: 3 } });
    await client.update(uuid, { file_data: { n: 4 } });
    await expect.poll(() => got.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    await client.update(uuid, { file_data: { n: 5 } });
    await reading;
    expect(got.map((e) => [e.type, e.id])).toEqual([
      ['update', 2],
      ['update', 3],
      ['update', 4],
      ['update', 5],
    ]);
  }, 60_000);
});
