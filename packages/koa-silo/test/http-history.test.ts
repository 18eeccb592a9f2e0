/**
 * Contract §9 over real HTTP: `version` in every metadata answer, history newest first with the
 * silo list's pagination rules, one version's data, restore (with If-Match), and the 404s and 422s
 * of versions that are not there. Every response is checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let bob: Account;

beforeAll(async () => {
  h = await startSilo({ plans: { default: { maxDataBytes: 100_000, rateLimitPerMinute: 0, historyVersions: 3 } } });
  alice = await h.account('alice');
  bob = await h.account('bob');
});
afterAll(() => h.close());

const update = (uuid: string, body: unknown, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice, extra), body });
const versions = (account: Account, uuid: string, query = '') =>
  h.client.get(`/api/v1/manage/${uuid}/versions${query}`, { headers: manage(account) });
const version = (uuid: string, v: string | number) => h.client.get(`/api/v1/manage/${uuid}/versions/${v}`, { headers: manage(alice) });
const restore = (uuid: string, v: string | number, extra: Record<string, string> = {}) =>
  h.client.request(`/api/v1/manage/${uuid}/versions/${v}/restore`, { method: 'POST', headers: manage(alice, extra) });

describe('versions', () => {
  it('numbers every write, in every metadata answer', async () => {
    const created = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: { file_name: 'v', file_data: { n: 1 } } });
    expect(created.json.version).toBe(1);
    const uuid = created.json.file_uuid as string;
    const updated = await update(uuid, { file_data: { n: 2 } });
    expect(updated.json.version).toBe(2);
    expect((await h.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(alice) })).json.version).toBe(2);
    const listed = (await h.client.get('/api/v1/manage/silos', { headers: manage(alice) })).json.silos as { file_uuid: string; version: number }[];
    expect(listed.find((s) => s.file_uuid === uuid)?.version).toBe(2);
    expect(updated.headers.etag).not.toBe(created.headers.etag);
  });

  it('lists history newest first, paginated, and keeps the plan’s number of versions', async () => {
    const uuid = await h.create(alice, { file_name: 'h', file_data: [{ n: 1 }] });
    for (let n = 2; n <= 4; n++) await update(uuid, { file_data: [{ n }], file_name: `h${n}` });
    const page = await versions(alice, uuid, '?per_page=2');
    expect(page.status).toBe(200);
    expect(page.json.metadata).toEqual({ total_items: 3, per_page: 2, page_no: 1 });
    expect(page.json.versions.map((v: { version: number }) => v.version)).toEqual([4, 3]);
    expect(page.json.versions[0]).toMatchObject({ file_name: 'h4', is_public: false, region_name: 'api', size: 9 });
    expect((await versions(alice, uuid, '?per_page=2&page=2')).json.versions.map((v: { version: number }) => v.version)).toEqual([2]);
    expect((await versions(alice, uuid, '?page=9')).json).toMatchObject({ metadata: { total_items: 3 }, versions: [] });
    expect(await version(uuid, 2)).toMatchObject({ status: 200, json: { version: 2, data: [{ n: 2 }] } });
    expect((await version(uuid, 1)).status).toBe(404); // pruned
    expect((await version(uuid, 5)).status).toBe(404); // never written
  });

  it('refuses a version that is not a positive integer, and a page out of range', async () => {
    const uuid = await h.create(alice, { file_name: 'bad', file_data: {} });
    for (const bad of ['0', '-1', '01', '1.5', 'x', '99999999999999999999']) {
      const reply = await version(uuid, bad);
      expect(reply.status, bad).toBe(422);
      expect(reply.json.detail[0].loc).toEqual(['path', 'version']);
    }
    expect((await versions(alice, uuid, '?per_page=0')).status).toBe(422);
    expect((await versions(alice, 'not-a-uuid')).json.detail[0].loc).toEqual(['path', 'file_uuid']);
  });

  it('refuses a version past Number.MAX_SAFE_INTEGER rather than round it to a neighbour', async () => {
    const uuid = await h.create(alice, { file_name: 'big', file_data: {} });
    // 2^53 + 1 reads as the number 2^53; 2^53 is itself past the largest exact integer.
    for (const big of ['9007199254740993', '9007199254740992', '9999999999999999', '99999999999999999999', `9${'0'.repeat(400)}`]) {
      for (const reply of [await version(uuid, big), await restore(uuid, big)]) {
        expect(reply.status, big).toBe(422);
        expect(reply.json.detail, big).toEqual([
          { loc: ['path', 'version'], msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`, type: 'less_than_equal' },
        ]);
      }
    }
    // The largest exact one is a version like any other: not written, so 404.
    expect((await version(uuid, String(Number.MAX_SAFE_INTEGER))).status).toBe(404);
    expect((await restore(uuid, String(Number.MAX_SAFE_INTEGER))).status).toBe(404);
  });

  it('shows history to the owner only, with the same 404 as a missing silo', async () => {
    const uuid = await h.create(alice, { file_name: 'mine', file_data: {} });
    const theirs = await versions(bob, uuid);
    const missing = await versions(bob, '00000000-0000-4000-8000-000000000000');
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
    expect((await h.client.get(`/api/v1/manage/${uuid}/versions`)).status).toBe(401);
  });
});

describe('restore', () => {
  it('writes a new version with the old data, name and flags unchanged, honouring If-Match', async () => {
    const uuid = await h.create(alice, { file_name: 'r', file_data: { v: 'one' }, is_public: true });
    const second = await update(uuid, { file_data: { v: 'two' }, file_name: 'renamed' });
    const stale = await restore(uuid, 1, { 'If-Match': '"not-current"' });
    expect(stale.status).toBe(412);
    const restored = await restore(uuid, 1, { 'If-Match': second.headers.etag! });
    expect(restored.status).toBe(200);
    expect(restored.json).toMatchObject({ version: 3, file_name: 'renamed', is_public: true, file_data: { v: 'one' } });
    expect(restored.headers.etag).not.toBe(second.headers.etag);
    expect((await h.client.get(`/public/${uuid}`)).json).toEqual({ v: 'one' });
    expect((await h.client.get(`/${uuid}`, { headers: access(alice) })).json).toEqual({ v: 'one' });
    expect((await restore(uuid, 42)).status).toBe(404);
  });

  it('serves 304 to a holder of the current ETag only', async () => {
    const uuid = await h.create(alice, { file_name: 'e', file_data: { v: 1 }, is_public: true });
    const before = await h.client.get(`/public/${uuid}`);
    await restore(uuid, 1);
    const after = await h.client.get(`/public/${uuid}`, { headers: { 'If-None-Match': before.headers.etag! } });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await h.client.get(`/public/${uuid}`, { headers: { 'If-None-Match': after.headers.etag! } })).status).toBe(304);
  });
});
