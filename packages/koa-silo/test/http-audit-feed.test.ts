/**
 * The account's audit feed over real HTTP (`GET /api/v1/manage/audit/events`): each committed
 * management action as an `audit` event, only the account's own, resumable from an event id, and
 * ended when its key is revoked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../../../test/support/sse.js';
import { HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

describe('the audit feed', () => {
  let h: Harness;
  let alice: Account;
  let mallory: Account;
  const open: SseStream[] = [];

  const feed = async (account: Account, query = '', headers: Record<string, string> = {}) => {
    const stream = await openSse(h.server.port, `/api/v1/manage/audit/events${query}`, { host: HOSTS.api, ...manage(account), ...headers });
    open.push(stream);
    return stream;
  };
  const entryOf = async (stream: SseStream) => {
    const event = await stream.next(4000);
    expect(event.event).toBe('audit');
    return { id: event.id, entry: JSON.parse(event.data) as { action: string; actor: { name: string }; file_uuid?: string; version?: number; time: string } };
  };

  beforeAll(async () => {
    h = await startSilo({ plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0 } } });
    alice = await h.account('alice');
    mallory = await h.account('mallory');
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(() => h.close());

  it("streams each of the account's actions as it commits, and never another account's", async () => {
    const mine = await feed(alice);
    const theirs = await feed(mallory);
    expect(mine.status).toBe(200);
    expect(mine.headers['content-type']).toBe('text/event-stream; charset=utf-8');

    const uuid = await h.create(alice, { file_name: 'audited', file_data: { n: 1 } });
    const patched = await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body: { file_data: { n: 2 } } });
    expect(patched.status).toBe(200);

    const first = await entryOf(mine);
    const second = await entryOf(mine);
    expect([first.entry, second.entry]).toMatchObject([
      { action: 'silo.create', actor: { name: 'm' }, file_uuid: uuid, version: 1 },
      { action: 'silo.update', actor: { name: 'm' }, file_uuid: uuid, version: 2 },
    ]);
    expect(second.id).toBe(second.entry.time);
    // Nothing of alice's reaches mallory's feed.
    await expect(theirs.next(1500)).rejects.toThrow();
  });

  it('replays from Last-Event-ID (or ?since=), then goes on live', async () => {
    const uuid = await h.create(alice, { file_name: 'replayed', file_data: [] });
    const listing = await h.client.get(`/api/v1/manage/audit?silo=${uuid}`, { headers: manage(alice) });
    const created = listing.json.entries[0] as { time: string };

    const resumed = await feed(alice, '', { 'Last-Event-ID': created.time });
    expect((await entryOf(resumed)).entry).toMatchObject({ action: 'silo.create', file_uuid: uuid });
    const since = await feed(alice, `?since=${encodeURIComponent(created.time)}`);
    expect((await entryOf(since)).entry).toMatchObject({ action: 'silo.create', file_uuid: uuid });

    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice) });
    expect((await entryOf(resumed)).entry).toMatchObject({ action: 'silo.delete', file_uuid: uuid });
  });

  it('still sends an entry that commits after a newer one was sent (timed when its action began)', async () => {
    const opened = Date.now();
    const stream = await feed(alice);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await h.create(alice, { file_name: 'quick', file_data: {} });
    expect((await entryOf(stream)).entry).toMatchObject({ action: 'silo.create' });
    // A slow action that began before the quick one, committed after it was sent.
    const late = new Date(opened + 600).toISOString();
    await h.silo.audit.record({ time: late, account: 'alice', action: 'import', actor: { type: 'command', name: 'silo' }, address: null, outcome: 'success' });
    expect((await entryOf(stream)).entry).toMatchObject({ action: 'import', time: late });
  });

  it('answers 422 for a resume point that is not a time, and 401 without a manage key', async () => {
    const bad = await feed(alice, '?since=yesterday');
    expect(bad.status).toBe(422);
    expect(JSON.parse(await bad.text()).detail[0].loc).toEqual(['query', 'since']);
    const anonymous = await openSse(h.server.port, '/api/v1/manage/audit/events', { host: HOSTS.api });
    open.push(anonymous);
    expect(anonymous.status).toBe(401);
  });

  it('ends within about a second of its key being revoked', async () => {
    const bob = await h.account('bob');
    const stream = await feed(bob);
    const revokedAt = Date.now();
    await h.silo.accounts.revokeKey({ account: 'bob', type: 'manage', name: 'm', confirm: 'm' });
    await stream.ended;
    expect(Date.now() - revokedAt).toBeLessThan(2500);
  });
});
