/**
 * Contract §17 over real HTTP: what a request may cost is bounded before the work. A 422 lists at
 * most 100 problems and then how many more; a JSON Patch has at most 1000 operations and a work
 * budget; `copy` shares rather than clones, so a patch that doubles a value into itself is a quick
 * 413 rather than minutes of cloning; an account has a cap on keys and a request budget beside
 * each key's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;

const jsonPatch = (account: Account, body: unknown) => ({
  method: 'PATCH',
  headers: manage(account, { 'content-type': 'application/json-patch+json' }),
  body,
});

beforeAll(async () => {
  h = await startSilo({
    plans: {
      default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 },
      small: { maxDataBytes: 10_000, rateLimitPerMinute: 100, accountRateLimitPerMinute: 5, maxKeys: 3 },
      // No limit per key, one per account: the account's was skipped with the key's.
      accounts: { maxDataBytes: 10_000, rateLimitPerMinute: 0, accountRateLimitPerMinute: 3 },
    },
  });
  alice = await h.account('alice');
});
afterAll(() => h.close());

describe('422 answers', () => {
  it('list the first 100 problems, then one too_many_errors item with how many more', async () => {
    const uuid = await h.create(alice, { file_name: 'target', file_data: {} });
    // 900 operations, each with an unknown op and a path that is no JSON Pointer.
    const started = performance.now();
    const body = Array.from({ length: 900 }, () => ({ op: 'nope', path: 'x' }));
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, jsonPatch(alice, body));
    expect(reply.status).toBe(422);
    const detail = reply.json.detail as { loc: unknown[]; type: string; ctx?: { more: number } }[];
    expect(detail).toHaveLength(101);
    // Each operation's two problems once each: 1800 in all, 100 listed.
    expect(detail.at(-1)).toMatchObject({ type: 'too_many_errors', ctx: { more: 1700 } });
    expect(reply.text.length).toBeLessThan(20_000);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('for a create of a million non-objects: 100 items and a count, not a 26 MB answer or a crash', async () => {
    const body = `{"file_name":"ones","file_data":[${Array(1_000_000).fill('1').join(',')}]}`;
    const reply = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body });
    expect(reply.status).toBe(422);
    const detail = reply.json.detail as { loc: unknown[]; type: string; ctx?: { more: number } }[];
    expect(detail).toHaveLength(101);
    expect(detail[0]).toEqual({ loc: ['body', 'file_data', 0], msg: 'Input should be a valid dictionary (a JSON object)', type: 'dict_type' });
    expect(detail.at(-1)).toMatchObject({ type: 'too_many_errors', ctx: { more: 999_900 } });
  });
});

describe('JSON Patch bounds', () => {
  it('refuses more than 1000 operations with a 422 naming the bound', async () => {
    const uuid = await h.create(alice, { file_name: 'ops', file_data: {} });
    const body = Array.from({ length: 1001 }, (_, i) => ({ op: 'add', path: `/file_data/k${i}`, value: i }));
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, jsonPatch(alice, body));
    expect(reply.status).toBe(422);
    expect(reply.json.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'too_long', ctx: { max_length: 1000 } })]);
  });

  it('refuses a patch whose array shifts pass the work budget, before doing them, and leaves the silo as it was', async () => {
    const items = Array.from({ length: 200_000 }, () => ({}));
    const uuid = await h.create(alice, { file_name: 'long', file_data: items });
    // Each move from the front shifts the whole array twice: 1000 × 400 000 element moves.
    const body = Array.from({ length: 1000 }, () => ({ op: 'move', from: '/file_data/0', path: '/file_data/1' }));
    const started = performance.now();
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, jsonPatch(alice, body));
    expect(reply.status, reply.text.slice(0, 300)).toBe(422);
    expect(reply.json.detail[0]).toMatchObject({ type: 'patch_too_costly', loc: ['body', expect.any(Number)] });
    expect(performance.now() - started).toBeLessThan(2000);
    const meta = await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) });
    expect(meta.json.version).toBe(1);
  });

  it('shares copied values: 22 copies of a value into itself answer 413 at once', async () => {
    const uuid = await h.create(alice, { file_name: 'copies', file_data: [{ e: [] }] });
    const body = [
      { op: 'add', path: '/file_data/0/e/-', value: { x: 'y'.repeat(100) } },
      ...Array.from({ length: 22 }, () => ({ op: 'copy', from: '/file_data/0/e', path: '/file_data/0/e/-' })),
    ];
    const started = performance.now();
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, jsonPatch(alice, body));
    expect(reply.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('applies copies correctly: a later write into one place leaves the other as it was', async () => {
    const uuid = await h.create(alice, { file_name: 'cow', file_data: { a: { list: [1] } } });
    const body = [
      { op: 'add', path: '/file_data/a/list/-', value: 2 },
      { op: 'copy', from: '/file_data/a', path: '/file_data/b' },
      { op: 'add', path: '/file_data/a/list/-', value: 3 },
      { op: 'add', path: '/file_data/b/extra', value: true },
    ];
    const reply = await h.client.request(`/api/v1/manage/${uuid}`, jsonPatch(alice, body));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.file_data).toEqual({ a: { list: [1, 2, 3] }, b: { list: [1, 2], extra: true } });
  });
});

describe('per account', () => {
  it('caps the keys of an account by its plan', async () => {
    await h.silo.accounts.createAccount('capped', 'small');
    await h.silo.accounts.createKey({ account: 'capped', type: 'manage', name: 'k1' });
    await h.silo.accounts.createKey({ account: 'capped', type: 'access', name: 'k2' });
    await h.silo.accounts.createKey({ account: 'capped', type: 'access', name: 'k3' });
    await expect(h.silo.accounts.createKey({ account: 'capped', type: 'access', name: 'k4' })).rejects.toMatchObject({
      status: 422,
      detail: [expect.objectContaining({ type: 'too_many_keys', ctx: { max: 3 } })],
    });
    await h.silo.accounts.revokeKey({ account: 'capped', type: 'access', name: 'k3', confirm: 'k3' });
    await expect(h.silo.accounts.createKey({ account: 'capped', type: 'access', name: 'k4' })).resolves.toMatchObject({ name: 'k4' });
  });

  it('limits the requests of an account across its keys, whatever each key has left', async () => {
    await h.silo.accounts.createAccount('busy', 'small');
    const keys = await Promise.all(['a', 'b', 'c'].map((name) => h.silo.accounts.createKey({ account: 'busy', type: 'manage', name })));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const key = keys[i % keys.length]!.key;
      statuses.push((await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': key } })).status);
    }
    // Five a minute for the account, though each key (100 a minute) has used two.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("limits an account's requests when its plan has no limit per key", async () => {
    await h.silo.accounts.createAccount('unkeyed', 'accounts');
    const { key } = await h.silo.accounts.createKey({ account: 'unkeyed', type: 'manage', name: 'only' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': key } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
