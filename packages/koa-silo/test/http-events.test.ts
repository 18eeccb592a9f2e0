/**
 * Contract §11 over real HTTP, one process: the change feed of a silo (private and public
 * addresses) and of an account, replay and reset, the ends of a stream, and its limits.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../../../test/support/sse.js';
import { LocalBus } from '../src/events/local-bus.js';
import { STALL_MS } from '../src/http/event-stream.js';
import { access, HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

describe('server-sent events', () => {
  let h: Harness;
  let alice: Account;
  const open: SseStream[] = [];

  const sse = async (path: string, headers: Record<string, string> = {}) => {
    const stream = await openSse(h.server.port, path, { host: HOSTS.api, ...headers });
    open.push(stream);
    return stream;
  };
  const patch = (uuid: string, body: object, host: string = HOSTS.api) =>
    h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body, host });

  beforeAll(async () => {
    h = await startSilo({ plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0, historyVersions: 3 } }, maxStreamsPerClient: 4, eventsKeepAliveMs: 200 });
    alice = await h.account('alice');
  });

  afterEach(async () => {
    // Each client may hold 4 streams: every test starts with none open.
    for (const stream of open.splice(0)) stream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  afterAll(() => h.close());

  it('sends each committed write as an update with its version as id, and file_data with ?data=1', async () => {
    const uuid = await h.create(alice, { file_name: 'feed', file_data: { n: 0 } });
    const plain = await sse(`/${uuid}/events`, access(alice));
    const withData = await sse(`/${uuid}/events?data=1`, access(alice));
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect((await patch(uuid, { file_data: { n: 1 } })).status).toBe(200);
    const event = await plain.next();
    expect(event).toMatchObject({ event: 'update', id: '2' });
    expect(JSON.parse(event.data)).toEqual({
      file_uuid: uuid,
      file_name: 'feed',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      is_public: false,
      region_name: 'api',
      version: 2,
    });
    expect(JSON.parse((await withData.next()).data)).toMatchObject({ version: 2, file_data: { n: 1 } });
    // Keep-alive comments while nothing happens.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(plain.comments).toBeGreaterThan(0);
  });

  it('replays the versions after Last-Event-ID (or ?since=) from history, then goes on live', async () => {
    const uuid = await h.create(alice, { file_name: 'replay', file_data: [{ n: 1 }] });
    await patch(uuid, { file_data: [{ n: 1 }, { n: 2 }] });
    await patch(uuid, { file_name: 'renamed' });
    const stream = await sse(`/${uuid}/events`, access(alice, { 'Last-Event-ID': '1' }));
    expect([await stream.next(), await stream.next()].map((e) => [e.event, e.id, JSON.parse(e.data).file_name])).toEqual([
      ['update', '2', 'replay'],
      ['update', '3', 'renamed'],
    ]);
    await patch(uuid, { is_public: true });
    expect(await stream.next()).toMatchObject({ event: 'update', id: '4' });
    const since = await sse(`/${uuid}/events?since=3&data=1`, access(alice));
    expect(JSON.parse((await since.next()).data)).toMatchObject({ version: 4, file_data: [{ n: 1 }, { n: 2 }], is_public: true });
  });

  it('sends reset with the current version when history no longer holds what the client lacks', async () => {
    const uuid = await h.create(alice, { file_name: 'pruned', file_data: {} });
    for (let i = 1; i <= 5; i++) await patch(uuid, { file_data: { i } });
    // History keeps 3 versions (4, 5, 6): version 2 is gone.
    const stream = await sse(`/${uuid}/events`, access(alice, { 'Last-Event-ID': '1' }));
    const reset = await stream.next();
    expect(reset).toMatchObject({ event: 'reset', id: '6' });
    expect(JSON.parse(reset.data)).toEqual({ file_uuid: uuid, version: 6 });
  });

  it('ends the stream after delete, and after move (with the new region)', async () => {
    const moved = await h.create(alice, { file_name: 'mover', file_data: {} });
    const deleted = await h.create(alice, { file_name: 'goner', file_data: {} });
    const moving = await sse(`/${moved}/events`, access(alice));
    const deleting = await sse(`/${deleted}/events`, access(alice));
    await patch(moved, { region_name: 'sg-01-api' });
    const move = await moving.next();
    expect(move.event).toBe('move');
    expect(JSON.parse(move.data)).toEqual({ file_uuid: moved, region_name: 'sg-01-api', version: 2 });
    await moving.ended;
    expect((await h.client.request(`/api/v1/manage/${deleted}`, { method: 'DELETE', headers: manage(alice) })).status).toBe(200);
    expect(await deleting.next()).toMatchObject({ event: 'delete', id: '1' });
    await deleting.ended;
    // The moved silo's stream is on its new region's host now.
    const there = await sse(`/${moved}/events`, access(alice, { host: HOSTS.sg }));
    expect(there.status).toBe(200);
    expect((await sse(`/${moved}/events`, access(alice))).status).toBe(404);
  });

  it('serves public silos on /public/<uuid>/events to any origin, and ends when the silo turns private', async () => {
    const uuid = await h.create(alice, { file_name: 'open', file_data: {}, is_public: true });
    const hidden = await h.create(alice, { file_name: 'closed', file_data: {} });
    expect((await sse(`/public/${hidden}/events`)).status).toBe(404);
    const stream = await sse(`/public/${uuid}/events`, { origin: 'https://example.org' });
    expect(stream.status).toBe(200);
    expect(stream.headers['access-control-allow-origin']).toBe('*');
    await patch(uuid, { file_name: 'still open' });
    expect(JSON.parse((await stream.next()).data)).toMatchObject({ file_name: 'still open', version: 2 });
    await patch(uuid, { is_public: false, file_name: 'secret name' });
    await stream.ended;
    expect(await stream.text()).not.toContain('secret name');
  });

  it('ends a stream within about a second of its key being revoked', async () => {
    const bob = await h.account('bob');
    const uuid = await h.create(bob, { file_name: 'revoked', file_data: {} });
    const stream = await sse(`/${uuid}/events`, access(bob));
    const revokedAt = Date.now();
    await h.silo.accounts.revokeKey({ account: 'bob', type: 'access', name: 'a', confirm: 'a' });
    await stream.ended;
    expect(Date.now() - revokedAt).toBeLessThan(1500);
  });

  it("streams the account's creates, updates and deletes on /api/v1/manage/events", async () => {
    const carol = await h.account('carol');
    const feed = await sse('/api/v1/manage/events', manage(carol));
    const others = await sse('/api/v1/manage/events', manage(alice));
    const uuid = await h.create(carol, { file_name: 'c', file_data: {} });
    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(carol), body: { file_name: 'c2' } });
    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(carol) });
    const events = [await feed.next(), await feed.next(), await feed.next()];
    expect(events.map((e) => [e.event, JSON.parse(e.data).file_uuid, JSON.parse(e.data).version])).toEqual([
      ['create', uuid, 1],
      ['update', uuid, 2],
      ['delete', uuid, 2],
    ]);
    // Another account hears nothing of carol's silos.
    await expect(others.next(300)).rejects.toThrow(/no event/);
  });

  it('refuses a client more streams than its limit (429), a bad since (422) and a missing key (401)', async () => {
    const dave = await h.account('dave');
    const uuid = await h.create(dave, { file_name: 'limit', file_data: {} });
    const streams = await Promise.all(Array.from({ length: 4 }, () => sse(`/${uuid}/events`, access(dave))));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const fifth = await sse(`/${uuid}/events`, access(dave));
    expect(fifth.status).toBe(429);
    expect(JSON.parse(await fifth.text())).toEqual({ detail: 'Too many open event streams: a client may hold 4 at once' });
    streams[0]!.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await sse(`/${uuid}/events`, access(dave))).status).toBe(200);
    expect((await sse(`/${uuid}/events?since=abc`, access(alice))).status).toBe(422);
    // Given twice, a resume point is refused, not read as none (which replayed nothing).
    const twice = await sse(`/${uuid}/events?since=1&since=2`, access(dave));
    expect(twice.status).toBe(422);
    expect(JSON.parse(await twice.text())).toEqual({ detail: [expect.objectContaining({ loc: ['query', 'since'], type: 'multiple_values' })] });
    // data takes 1 or 0: `true` carried no data, and nothing said so.
    const truthy = await sse(`/${uuid}/events?data=true`, access(dave));
    expect(truthy.status).toBe(422);
    expect(JSON.parse(await truthy.text())).toEqual({ detail: [expect.objectContaining({ loc: ['query', 'data'] })] });
    for (const stream of streams) stream.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await sse(`/${uuid}/events?data=0`, access(dave))).status).toBe(200);
    expect((await sse(`/${uuid}/events`)).status).toBe(401);
  });

  it('drops a subscriber that does not read, rather than buffer for it, and writers do not wait', async () => {
    const big = Array.from({ length: 1000 }, (_, i) => ({ i, text: 'x'.repeat(80) }));
    const uuid = await h.create(alice, { file_name: 'big', file_data: big });
    const socket = net.connect(h.server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /${uuid}/events?data=1 HTTP/1.1\r\nHost: ${HOSTS.api}\r\nX-SILO-KEY: ${alice.access}\r\n\r\n`);
    // Reads nothing from now on: the server's writes pile up in the socket.
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    for (let n = 0; n < 80; n++) {
      big[0] = { i: n, text: 'y'.repeat(80) };
      expect((await patch(uuid, { file_data: big })).status).toBe(200);
    }
    const writing = Date.now() - started;
    // Its socket was full before the writes ended (8 MB is more than loopback buffers hold): still
    // not reading, it is dropped STALL_MS later. (A second more for a loaded machine.)
    await new Promise((resolve) => setTimeout(resolve, STALL_MS + 1000));
    // 80 events of ~100 KB (8 MB) did not all wait in memory: the stream was ended.
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.resume();
    await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream was not ended')), 5000))]);
    expect(received).toBeLessThan(80 * 100_000);
    expect(writing / 80).toBeLessThan(250);
  }, 30_000);
});

describe("the account's feed under a burst", () => {
  it('takes hundreds of events heard at once (another instance polled) without taking its client for a slow one', async () => {
    const bus = new LocalBus();
    const own = await startSilo({ events: bus });
    try {
      const erin = await own.account('erin');
      const feed = await openSse(own.server.port, '/api/v1/manage/events', { host: HOSTS.api, ...manage(erin) });
      expect(feed.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const silo = { file_uuid: '0b000fb4-d5f4-4616-b584-c0deef5ef1d9', file_name: 'burst', region_name: 'api', is_public: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } as const;
      // 300 in one go: more than the 100 a stream may have waiting.
      for (let version = 2; version <= 301; version++) bus.publish({ type: 'update', account: 'erin', silo: { ...silo, version } });
      const versions: number[] = [];
      for (let i = 0; i < 300; i++) versions.push((JSON.parse((await feed.next(2000)).data) as { version: number }).version);
      expect(versions).toEqual(Array.from({ length: 300 }, (_, i) => i + 2));
      feed.close();
    } finally {
      await own.close();
    }
  });
});
