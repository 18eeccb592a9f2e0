/**
 * The change feed's data (`?data=1`, contract §11) over real HTTP, one process: a public address
 * never replays a past version's data (an overwritten secret stays gone) while a keyed one does;
 * data of several MB is delivered whole, loaded once for every stream sending it; a stream closed
 * halfway through a replay reads no further version; and loaded texts count against the memory
 * budget, a stream that cannot get its text in time ending cleanly.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSse, type SseEvent, type SseStream } from '../../../test/support/sse.js';
import { access, HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

const SECRET = 'LEAKED-SECRET-123';

/** `[{i, text}, ...]` of about `bytes` bytes of JSON, different for each `seed`. */
const bulky = (bytes: number, seed: number) => Array.from({ length: Math.ceil(bytes / 1000) }, (_, i) => ({ i, seed, text: 'x'.repeat(970) }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every event of `stream` until one with id `lastId` (replays and live events, in order). */
async function eventsUntil(stream: SseStream, lastId: string, timeoutMs = 10_000): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await stream.next(timeoutMs);
    events.push(event);
    if (event.id === lastId) return events;
  }
}

/**
 * A raw client of `path` that reads the first bytes of the answer and then nothing: the server's
 * writes to it wait for the socket to drain. close() goes away as a browser tab does.
 */
async function stalledClient(port: number, path: string, headers: Record<string, string>) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOSTS.api}\r\n${lines.join('')}\r\n`);
  await new Promise((resolve) => socket.once('data', resolve));
  socket.pause();
  return { close: () => socket.destroy() };
}

describe('server-sent events with data', () => {
  let h: Harness;
  let alice: Account;
  const open: SseStream[] = [];

  const sse = async (path: string, headers: Record<string, string> = {}) => {
    const stream = await openSse(h.server.port, path, { host: HOSTS.api, ...headers });
    open.push(stream);
    return stream;
  };
  const patch = (uuid: string, body: object) => h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body });

  beforeAll(async () => {
    h = await startSilo({ plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0, historyVersions: 30 } } });
    alice = await h.account('alice');
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    for (const stream of open.splice(0)) stream.close();
    await sleep(50);
  });

  afterAll(() => h.close());

  it('never replays an overwritten version’s data on the public address; a keyed stream still does', async () => {
    const uuid = await h.create(alice, { file_name: 'leaky', file_data: { api_token: SECRET }, is_public: true });
    expect((await patch(uuid, { file_data: { api_token: 'rotated' } })).status).toBe(200);
    expect((await patch(uuid, { file_name: 'leaky, renamed' })).status).toBe(200);

    for (const from of [{ path: `/public/${uuid}/events?since=0&data=1` }, { path: `/public/${uuid}/events?data=1`, headers: { 'Last-Event-ID': '0' } }]) {
      const stream = await sse(from.path, from.headers);
      const events = await eventsUntil(stream, '3');
      const data = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
      // Every version's metadata, in order; only the current one carries data.
      expect(events.map((e) => [e.event, e.id])).toEqual([
        ['update', '1'],
        ['update', '2'],
        ['update', '3'],
      ]);
      expect(data[0]).toEqual({
        file_uuid: uuid,
        file_name: 'leaky',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        is_public: true,
        region_name: 'api',
        version: 1,
      });
      expect(data[1]).toMatchObject({ version: 2, file_name: 'leaky' });
      expect(data[1]).not.toHaveProperty('file_data');
      expect(data[2]).toMatchObject({ version: 3, file_name: 'leaky, renamed', file_data: { api_token: 'rotated' } });
      stream.close();
      expect(await stream.text()).not.toContain(SECRET);
    }

    // The owner's own (keyed) stream replays history with its data, as before.
    const keyed = await sse(`/${uuid}/events?since=0&data=1`, access(alice));
    const history = (await eventsUntil(keyed, '3')).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(history.map((d) => d.file_data)).toEqual([{ api_token: SECRET }, { api_token: 'rotated' }, { api_token: 'rotated' }]);
  });

  it('delivers data of 5 MB whole (live and replayed), loaded once for every stream sending it', async () => {
    const uuid = await h.create(alice, { file_name: 'large', file_data: bulky(5_000_000, 1), is_public: true });
    const streams = [
      await sse(`/public/${uuid}/events?data=1`),
      await sse(`/public/${uuid}/events?data=1`),
      await sse(`/${uuid}/events?data=1`, access(alice)),
    ];
    const reads = vi.spyOn(h.silo.silos, 'version');
    const next = bulky(5_000_000, 2);
    expect((await patch(uuid, { file_data: next })).status).toBe(200);
    for (const stream of streams) {
      const event = await stream.next(10_000);
      expect(event).toMatchObject({ event: 'update', id: '2' });
      expect(event.data.length).toBeGreaterThan(JSON.stringify(next).length);
      expect(JSON.parse(event.data)).toMatchObject({ file_uuid: uuid, version: 2, file_data: next });
    }
    // One read of version 2 for the three streams.
    expect(reads.mock.calls.filter(([, , version]) => version === 2)).toHaveLength(1);

    // A replay sends it whole too.
    const replay = await sse(`/public/${uuid}/events?since=1&data=1`);
    expect(JSON.parse((await replay.next(10_000)).data)).toMatchObject({ version: 2, file_data: next });
  }, 60_000);

  it('sends an update whose data went while it loaded without that data, then the delete that took it', async () => {
    const uuid = await h.create(alice, { file_name: 'short-lived', file_data: { n: 1 } });
    const stream = await sse(`/${uuid}/events?data=1`, access(alice));
    // The stream's read of version 2 waits until the silo is deleted.
    let deleted!: () => void;
    const gone = new Promise<void>((resolve) => (deleted = resolve));
    const { silos } = h.silo;
    const read = silos.version.bind(silos);
    const reads = vi.spyOn(silos, 'version').mockImplementation(async (...args) => {
      await gone;
      return read(...args);
    });
    try {
      expect((await patch(uuid, { file_data: { n: 2 } })).status).toBe(200);
      await sleep(50);
      expect(reads).toHaveBeenCalled();
      expect((await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice) })).status).toBe(200);
      deleted();
      const update = await stream.next(5000);
      expect(update.event).toBe('update');
      expect(JSON.parse(update.data)).toMatchObject({ file_uuid: uuid, version: 2 });
      expect(JSON.parse(update.data)).not.toHaveProperty('file_data');
      const deletion = await stream.next(5000);
      expect(deletion.event).toBe('delete');
      expect(JSON.parse(deletion.data)).toMatchObject({ file_uuid: uuid });
      await stream.ended;
    } finally {
      reads.mockRestore();
    }
  });

  it('stops reading versions for a stream closed halfway through its replay', async () => {
    const uuid = await h.create(alice, { file_name: 'history', file_data: bulky(1_000_000, 0) });
    for (let n = 1; n < 20; n++) expect((await patch(uuid, { file_data: bulky(1_000_000, n) })).status).toBe(200);
    const reads = vi.spyOn(h.silo.silos, 'version');
    const client = await stalledClient(h.server.port, `/${uuid}/events?since=0&data=1`, access(alice));
    // Its socket fills within a few versions; the replay waits for it to drain.
    await sleep(300);
    client.close();
    await sleep(100);
    const atClose = reads.mock.calls.length;
    await sleep(700);
    expect(reads.mock.calls.length).toBe(atClose);
    expect(atClose).toBeGreaterThan(0);
    expect(atClose).toBeLessThan(20);
  });
});

describe('server-sent events with data, under a small memory budget', () => {
  let h: Harness;
  let alice: Account;
  const open: SseStream[] = [];

  beforeAll(async () => {
    // 12 MiB for requests in flight, a third of it (4 MiB) for texts; a full budget fails a load after 200 ms.
    h = await startSilo({
      plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0, historyVersions: 5 } },
      memoryBudgetBytes: 12 * 1024 * 1024,
      parsedCacheBytes: 0,
      bodyCacheBytes: 0,
      memoryWaitMs: 200,
    });
    alice = await h.account('alice');
  });

  afterAll(async () => {
    for (const stream of open.splice(0)) stream.close();
    await h.close();
  });

  it('charges held texts to the budget: a stream that cannot get its text in time ends cleanly, and later gets it', async () => {
    const held = (await h.silo.silos.create(alice.name, { file_name: 'held', file_data: bulky(2_500_000, 1) })).file_uuid;
    const other = (await h.silo.silos.create(alice.name, { file_name: 'other', file_data: bulky(2_000_000, 2) })).file_uuid;
    await h.silo.silos.update(alice.name, held, { file_data: bulky(2_500_000, 3) });
    await h.silo.silos.update(alice.name, other, { file_data: bulky(2_000_000, 4) });

    // A client that stops reading holds its 2.5 MB text (charged) while the server waits for it.
    const holder = await stalledClient(h.server.port, `/${held}/events?since=1&data=1`, access(alice));
    await sleep(200);
    // 2 MB more (4 MB while it is converted) does not fit the 4 MiB left beside it: 200 ms, then the stream ends.
    const refused = await openSse(h.server.port, `/${other}/events?since=1&data=1`, { host: HOSTS.api, ...access(alice) });
    open.push(refused);
    await refused.ended;
    expect(await refused.text()).toBe('');

    // Once the holder is gone (its text given back), the same replay goes through.
    holder.close();
    await sleep(1500);
    const served = await openSse(h.server.port, `/${other}/events?since=1&data=1`, { host: HOSTS.api, ...access(alice) });
    open.push(served);
    expect(JSON.parse((await served.next(10_000)).data)).toMatchObject({ version: 2, file_data: bulky(2_000_000, 4) });
  });
});
