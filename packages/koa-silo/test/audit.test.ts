/**
 * Contract §19's audit log over real HTTP (every answer checked against the OpenAPI document):
 * every management action makes exactly one entry with the right actor and address, and an action
 * refused or failed makes none; one account never sees another's entries; the listing pages newest
 * first and filters by time, silo and actor; no entry holds a key value, a password or silo data;
 * retention removes what is past the plan's auditDays and nothing else.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryInfo } from '../src/model/index.js';
import { access, manage, rawRequest, startSilo, type Account, type Harness } from './support/http.js';

const SEGMENT_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';

describe('audit log', () => {
  let h: Harness;
  let acme: Account;
  let beta: Account;
  let password: string;
  const store = new Keyv();
  const ORIGIN = () => `http://api.localhost:${h.server.port}`;

  /** Every entry of `account`, newest first, through every page. */
  async function entries(account: Account, query = ''): Promise<AuditEntryInfo[]> {
    const all: AuditEntryInfo[] = [];
    for (let page = 1; ; page++) {
      const reply = await h.client.get(`/api/v1/manage/audit?per_page=100&page=${page}${query ? `&${query}` : ''}`, { headers: manage(account) });
      expect(reply.status, reply.text).toBe(200);
      all.push(...reply.json.entries);
      if (all.length >= reply.json.metadata.total_items || reply.json.entries.length === 0) {
        expect(all.length).toBe(reply.json.metadata.total_items);
        return all;
      }
    }
  }

  /** The entries made by `action()`, oldest first: what the log holds after it and did not before. */
  async function madeBy(account: Account, action: () => Promise<unknown>): Promise<AuditEntryInfo[]> {
    const before = (await entries(account)).length;
    await action();
    await h.silo.console.settled();
    const after = await entries(account);
    return after.slice(0, after.length - before).reverse();
  }

  beforeAll(async () => {
    h = await startSilo({ store, console: true, trustProxy: true, webhooks: { deliver: false, allowPrivate: true } });
    acme = await h.account('acme');
    beta = await h.account('beta');
    ({ password } = await h.silo.console.createUser({ account: 'acme', name: 'ann' }));
  });

  afterAll(() => h.close());

  it('records each silo action once, with the key that acted and the client address', async () => {
    const headers = (extra: Record<string, string> = {}) => ({ ...manage(acme, extra), 'x-forwarded-for': '203.0.113.7' });
    let uuid = '';
    const create = await madeBy(acme, async () => {
      const reply = await h.client.request('/api/v1/manage/', { method: 'POST', headers: headers(), body: { file_name: 'a', file_data: [{ n: 1 }] } });
      uuid = reply.json.file_uuid;
    });
    const by = { actor: { type: 'manage', name: 'm' }, address: '203.0.113.7', outcome: 'success' };
    expect(create).toEqual([{ ...by, action: 'silo.create', file_uuid: uuid, version: 1, time: expect.any(String) }]);

    const steps: [string, () => Promise<unknown>, Partial<AuditEntryInfo>][] = [
      ['silo.update', () => h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: headers(), body: { file_name: 'b' } }), { version: 2 }],
      ['silo.patch', () => h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: headers({ 'content-type': SEGMENT_PATCH }), body: [{ op: 'add', path: '/file_data/-', value: { n: 2 } }] }), { version: 3 }],
      ['silo.patch', () => h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: headers({ 'content-type': MERGE }), body: { is_public: true } }), { version: 4 }],
      ['silo.restore', () => h.client.request(`/api/v1/manage/${uuid}/versions/1/restore`, { method: 'POST', headers: headers() }), { version: 5 }],
      ['silo.move', () => h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: headers(), body: { region_name: 'sg-01-api' } }), { version: 6, subject: 'sg-01-api' }],
      ['silo.delete', () => h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: headers() }), { version: 6 }],
    ];
    for (const [action, run, more] of steps) {
      const made = await madeBy(acme, async () => expect([200, 201]).toContain((await run() as { status: number }).status));
      expect(made, action).toEqual([{ ...by, action, file_uuid: uuid, time: expect.any(String), ...more }]);
    }
  });

  it('records nothing for an action that did not happen', async () => {
    const uuid = await h.create(acme, { file_name: 'x', file_data: {} });
    const none = await madeBy(acme, async () => {
      // A stale If-Match (412), a patch that cannot apply (409), an invalid body (422), a missing silo (404), another account's key (404), no key (401).
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(acme, { 'If-Match': '"stale"' }), body: { file_name: 'y' } })).status).toBe(412);
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(acme, { 'content-type': SEGMENT_PATCH }), body: [{ op: 'remove', path: '/file_data/nope' }] })).status).toBe(409);
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(acme), body: { file_name: '' } })).status).toBe(422);
      expect((await h.client.request('/api/v1/manage/00000000-0000-4000-8000-000000000000', { method: 'DELETE', headers: manage(acme) })).status).toBe(404);
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(beta) })).status).toBe(404);
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE' })).status).toBe(401);
      await expect(h.silo.accounts.revokeKey({ account: 'acme', type: 'manage', name: 'nope', confirm: 'nope' })).rejects.toThrow();
      expect((await h.client.request('/api/v1/manage/webhooks/wh_nope', { method: 'DELETE', headers: manage(acme) })).status).toBe(404);
    });
    expect(none).toEqual([]);
  });

  it('records keys, webhooks, console users, sign-ins (failed too) and sign-outs, each with its actor', async () => {
    const hook = await madeBy(acme, async () => {
      const reply = await h.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(acme), body: { url: 'http://127.0.0.1:9/hook', events: ['silo.created'] } });
      expect(reply.status, reply.text).toBe(201);
      const removed = await h.client.request(`/api/v1/manage/webhooks/${reply.json.id}`, { method: 'DELETE', headers: manage(acme) });
      expect(removed.status).toBeLessThan(300);
    });
    expect(hook.map((e) => [e.action, e.actor, e.subject?.startsWith('wh_')])).toEqual([
      ['webhook.create', { type: 'manage', name: 'm' }, true],
      ['webhook.delete', { type: 'manage', name: 'm' }, true],
    ]);

    const program = { type: 'program', name: 'koa-silo' };
    const users = await madeBy(acme, async () => {
      await h.silo.console.createUser({ account: 'acme', name: 'bob' });
      await h.silo.console.deleteUser('bob', 'bob', { actor: { type: 'command', name: 'silo' }, address: null });
    });
    expect(users.map((e) => [e.action, e.actor, e.subject, e.address])).toEqual([
      ['user.create', program, 'bob', null],
      ['user.delete', { type: 'command', name: 'silo' }, 'bob', null],
    ]);

    const page = (path: string, options: { method?: string; body?: unknown; cookie?: string } = {}) =>
      rawRequest(h.server.port, path, {
        method: options.method ?? 'GET',
        headers: { origin: ORIGIN(), 'x-forwarded-for': '198.51.100.4', ...(options.cookie ? { cookie: options.cookie } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
        ...(options.body ? { body: options.body } : {}),
      });
    let cookie = '';
    const console = await madeBy(acme, async () => {
      expect((await page('/console/api/sign-in', { method: 'POST', body: { user: 'ann', password: 'wrong password' } })).status).toBe(401);
      // An unknown user has no account to record it in, and answers the same.
      expect((await page('/console/api/sign-in', { method: 'POST', body: { user: 'nobody', password: 'wrong password' } })).status).toBe(401);
      const ok = await page('/console/api/sign-in', { method: 'POST', body: { user: 'ann', password } });
      expect(ok.status).toBe(200);
      cookie = String(ok.headers['set-cookie']).split(';')[0]!;
      const key = await page('/console/api/keys', { method: 'POST', cookie, body: { type: 'access', name: 'from-console' } });
      expect(key.status, key.text).toBe(201);
      expect((await page('/console/api/keys/access/from-console', { method: 'DELETE', cookie })).status).toBe(204);
      // A silo written with the session: the console user is the actor.
      expect((await page('/api/v1/manage/', { method: 'POST', cookie, body: { file_name: 'c', file_data: {} } })).status).toBe(201);
      expect((await page('/console/api/sign-out', { method: 'POST', cookie })).status).toBe(204);
      // Signing out again (no session left) does nothing.
      expect((await page('/console/api/sign-out', { method: 'POST', cookie })).status).toBe(204);
    });
    const ann = { type: 'console', name: 'ann' };
    expect(console.map((e) => [e.action, e.actor, e.address, e.outcome, e.subject])).toEqual([
      ['console.sign_in_failed', ann, '198.51.100.4', 'failure', undefined],
      ['console.sign_in', ann, '198.51.100.4', 'success', undefined],
      ['key.create', ann, '198.51.100.4', 'success', 'access:from-console'],
      ['key.revoke', ann, '198.51.100.4', 'success', 'access:from-console'],
      ['silo.create', ann, '198.51.100.4', 'success', undefined],
      ['console.sign_out', ann, '198.51.100.4', 'success', undefined],
    ]);

    const keys = await madeBy(acme, async () => {
      await h.silo.accounts.createKey({ account: 'acme', type: 'manage', name: 'ci', duration: '7d' });
      await h.silo.accounts.revokeKey({ account: 'acme', type: 'manage', name: 'ci', confirm: 'ci' });
    });
    expect(keys.map((e) => [e.action, e.actor, e.subject])).toEqual([
      ['key.create', program, 'manage:ci'],
      ['key.revoke', program, 'manage:ci'],
    ]);
  });

  it("shows an account its own entries only, and never a key value, password or silo data", async () => {
    const secret = 'top-secret-data-7c1e';
    const uuid = await h.create(beta, { file_name: 'beta-only', file_data: { secret } });
    const mine = await entries(beta);
    const theirs = await entries(acme);
    expect(mine.every((e) => e.actor.type !== 'console')).toBe(true);
    expect(mine.find((e) => e.file_uuid === uuid)?.action).toBe('silo.create');
    expect(theirs.some((e) => e.file_uuid === uuid)).toBe(false);
    // Filtering by another account's silo finds nothing either.
    expect(await entries(acme, `silo=${uuid}`)).toEqual([]);
    const text = JSON.stringify([...mine, ...theirs]);
    for (const value of [acme.manage, acme.access, beta.manage, beta.access, password, secret, 'wrong password']) expect(text).not.toContain(value);
    // An access key cannot read the log.
    expect((await h.client.get('/api/v1/manage/audit', { headers: access(acme) })).status).toBe(401);
  });

  it('pages newest first as the silo list does, and filters by since, silo and actor', async () => {
    const all = await entries(acme);
    const times = all.map((e) => e.time);
    expect([...times].sort().reverse()).toEqual(times);
    const first = await h.client.get('/api/v1/manage/audit?per_page=2', { headers: manage(acme) });
    expect(first.json.metadata).toEqual({ total_items: all.length, per_page: 2, page_no: 1 });
    expect(first.json.entries).toEqual(all.slice(0, 2));
    const second = await h.client.get('/api/v1/manage/audit?per_page=2&page_no=2', { headers: manage(acme) });
    expect(second.json.entries).toEqual(all.slice(2, 4));
    const past = await h.client.get(`/api/v1/manage/audit?page=${all.length + 1}&per_page=1`, { headers: manage(acme) });
    expect(past.json).toEqual({ metadata: { total_items: all.length, per_page: 1, page_no: all.length + 1 }, entries: [] });

    const middle = all[Math.floor(all.length / 2)]!.time;
    expect(await entries(acme, `since=${encodeURIComponent(middle)}`)).toEqual(all.filter((e) => e.time >= middle));
    expect(await entries(acme, 'since=2000-01-01T00:00:00Z')).toEqual(all);
    expect(await entries(acme, 'since=2999-01-01T00:00:00Z')).toEqual([]);

    const uuid = all.find((e) => e.action === 'silo.move')!.file_uuid!;
    const ofSilo = await entries(acme, `silo=${uuid.toUpperCase()}`);
    expect(ofSilo).toEqual(all.filter((e) => e.file_uuid === uuid));
    expect(ofSilo.map((e) => e.action)).toEqual(['silo.delete', 'silo.move', 'silo.restore', 'silo.patch', 'silo.patch', 'silo.update', 'silo.create']);
    expect(await entries(acme, 'actor=ann')).toEqual(all.filter((e) => e.actor.name === 'ann'));
    expect(await entries(acme, `actor=m&silo=${uuid}`)).toEqual(ofSilo);
    expect(await entries(acme, `actor=ann&silo=${uuid}`)).toEqual([]);
    expect(await entries(acme, `actor=m&since=${encodeURIComponent(middle)}`)).toEqual(all.filter((e) => e.actor.name === 'm' && e.time >= middle));

    for (const bad of ['since=yesterday', 'since=2026-11-27', 'since=2026-13-45T00:00:00Z', 'since=2026-02-30T00:00:00Z', 'since=2026-01-01T24:00:00Z', 'silo=nope', 'per_page=101', 'page=0', 'actor=']) {
      const reply = await h.client.get(`/api/v1/manage/audit?${bad}`, { headers: manage(acme) });
      expect(reply.status, bad).toBe(422);
      expect(reply.json.detail[0].loc[0]).toBe('query');
      if (bad.startsWith('since')) {
        expect(reply.json.detail[0].type, bad).toBe('datetime_parsing');
        // A date alone is the usual mistake: the answer shows the form.
        expect(reply.json.detail[0].msg, bad).toContain('such as 2026-05-01T00:00:00Z');
      }
    }
  });

  it("removes entries past the plan's auditDays, and only those", async () => {
    const kept = await startSilo({ plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 0, auditDays: 7 } }, auditPruneIntervalMs: 0 });
    try {
      const gamma = await kept.account('gamma');
      await kept.create(gamma, { file_name: 'fresh', file_data: {} });
      const live = await kept.client.get('/api/v1/manage/audit', { headers: manage(gamma) });
      const now = Date.now();
      const days = (d: number) => new Date(now - d * 86_400_000).toISOString();
      // Old entries, as a server running for weeks would have (record() keeps the time given).
      for (const [d, action] of [[30, 'silo.create'], [8, 'key.create'], [6, 'key.revoke'], [1, 'silo.delete']] as const) {
        await kept.silo.audit.record({ account: 'gamma', time: days(d), action, actor: { type: 'program', name: 'old' }, address: null, outcome: 'success', ...(action.startsWith('silo') ? { file_uuid: '00000000-0000-4000-8000-000000000001', version: 1 } : {}) });
      }
      expect((await kept.client.get('/api/v1/manage/audit?per_page=100', { headers: manage(gamma) })).json.metadata.total_items).toBe(live.json.metadata.total_items + 4);
      expect(await kept.silo.audit.prune()).toBe(2);
      const after = (await kept.client.get('/api/v1/manage/audit?per_page=100', { headers: manage(gamma) })).json.entries as AuditEntryInfo[];
      expect(after.filter((e) => e.actor.name === 'old').map((e) => e.action)).toEqual(['silo.delete', 'key.revoke']);
      expect(after.filter((e) => e.actor.name !== 'old')).toEqual(live.json.entries);
      // The pruned entries left their silo's and actor's indexes too.
      expect((await kept.client.get('/api/v1/manage/audit?silo=00000000-0000-4000-8000-000000000001', { headers: manage(gamma) })).json.entries.map((e: AuditEntryInfo) => e.action)).toEqual(['silo.delete']);
      expect((await kept.client.get('/api/v1/manage/audit?actor=old', { headers: manage(gamma) })).json.metadata.total_items).toBe(2);
      expect(await kept.silo.audit.prune()).toBe(0);
    } finally {
      await kept.close();
    }
  });
});
