/**
 * The memory budget over real HTTP (http/admission.ts), with a budget small enough to fill: 16 MiB,
 * so 2 + 2 MiB of caches, 4 MiB for bodies being read and 8 MiB for values being parsed. A large
 * request that does not fit waits (100 ms here), then answers 503 with Retry-After having done
 * nothing; small requests and plain reads go on meanwhile; once memory is free the same request
 * is served. The parsed-data cache charges the estimated heap of a value, not its text.
 *
 * Requests are kept in flight deterministically: the store can hold the next read of a data blob
 * (a read or patch mid-load), and a slow upload is seen being read through its request stream.
 */
import http from 'node:http';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilo } from '../src/index.js';
import { access, manage, startSilo, type Account, type Harness, type Reply } from './support/http.js';

const MiB = 1024 * 1024;

/** An in-memory store that counts reads of data blobs and can hold the next one until released. */
class HoldingMap extends Map<string, unknown> {
  blobReads = 0;
  private hold: { reached: () => void; until: Promise<void> } | undefined;

  /** Holds the next read of a data blob: `reached` once it is held, `release` lets it go on. */
  holdNextBlobRead(): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    const until = new Promise<void>((resolve) => (release = resolve));
    this.hold = { reached, until };
    return { reached: reachedPromise, release };
  }

  override get(key: string): unknown {
    if (!key.includes(':blob:')) return super.get(key);
    this.blobReads++;
    const hold = this.hold;
    if (!hold) return super.get(key);
    this.hold = undefined;
    hold.reached();
    return hold.until.then(() => super.get(key));
  }
}

const store = new HoldingMap();
let h: Harness;
let alice: Account;
/** Resolves the next time Silo starts reading a request body. */
let bodyRead: Promise<void> = Promise.resolve();
let onBodyRead: () => void = () => {};

const elements = (text: string) => [{ s: text }];
const SPARSE = elements('x'.repeat(400_000));
const LARGE = elements('l'.repeat(1_900_000));
/** `[{},{},...]` of about 1 MB: some 21 MB of heap once parsed. */
const DENSE_TEXT = `[${Array(330_000).fill('{}').join(',')}]`;

const readWithParams = (uuid: string, idx = 0) => h.client.get(`/${uuid}?idx=${idx}`, { headers: access(alice) });

function expectBusy(reply: Reply): void {
  expect(reply.status, reply.text.slice(0, 200)).toBe(503);
  expect(reply.headers['retry-after']).toBe('1');
  expect(reply.json).toEqual({ detail: expect.stringMatching(/busy/) });
}

/** A POST whose body is sent but for its last `rest` bytes: those go when `finish` is called. */
function slowUpload(body: Buffer, rest = body.length - 1000): { reply: Promise<{ status: number; text: string }>; finish: () => void } {
  const req = http.request({
    host: '127.0.0.1',
    port: h.server.port,
    path: '/api/v1/manage/',
    method: 'POST',
    agent: false,
    headers: { host: 'api.localhost', 'content-type': 'application/json', 'content-length': body.length, ...manage(alice) },
  });
  const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  // A test that fails before finish() leaves it to the server's close: not an unhandled rejection.
  reply.catch(() => {});
  req.write(body.subarray(0, body.length - rest));
  return { reply, finish: () => req.end(body.subarray(body.length - rest)) };
}

const uploadBody = (name: string, bytes: number) => Buffer.from(JSON.stringify({ file_name: name, file_data: elements('u'.repeat(bytes)) }));

beforeAll(async () => {
  h = await startSilo(
    { store: new Keyv({ store }), memoryBudgetBytes: 16 * MiB, memoryWaitMs: 100, work: { workers: 1, waitMs: 300 }, plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 } } },
    (app, silo) => {
      // Sees Silo start reading a body (it has taken the body's memory by then).
      app.use(async (ctx, next) => {
        const on = ctx.req.on.bind(ctx.req);
        ctx.req.on = ((event: string, listener: (...args: unknown[]) => void) => {
          if (event !== 'data') return on(event, listener);
          onBodyRead();
          let received = 0;
          return on(event, (chunk: Buffer) => {
            listener(chunk);
            received += chunk.length;
            onBodyBytes(received);
          });
        }) as typeof ctx.req.on;
        await next();
      });
      app.use(silo.middleware());
    },
  );
  alice = await h.account('alice');
});
afterAll(() => h.close());

let onBodyBytes: (received: number) => void = () => {};
/** Resolves once Silo has received `bytes` of the body it reads next (and charged them by then). */
const bodyBytesRead = (bytes: number) =>
  new Promise<void>((resolve) => {
    onBodyBytes = (received) => {
      if (received < bytes) return;
      onBodyBytes = () => {};
      resolve();
    };
  });

const nextBodyRead = () => {
  bodyRead = new Promise<void>((resolve) => (onBodyRead = resolve));
  return bodyRead;
};

describe('reads with parameters', () => {
  it('of large silos wait for their worker, answer 503 with Retry-After, and are served once it is free; other reads go on', async () => {
    // The first read's turn has come: it is loading its text (held here), 1.9 MB held twice over.
    const first = await h.create(alice, { file_name: 'first', file_data: LARGE });
    const second = await h.create(alice, { file_name: 'second', file_data: SPARSE });
    const tiny = await h.create(alice, { file_name: 'tiny', file_data: [{ a: 1 }] });

    const held = store.holdNextBlobRead();
    const firstRead = readWithParams(first);
    try {
      await held.reached;
      expectBusy(await readWithParams(second));
      // Small reads with parameters and plain reads do not wait for that memory.
      expect((await readWithParams(tiny)).json).toEqual({ a: 1 });
      expect((await h.client.get(`/${tiny}`, { headers: access(alice) })).json).toEqual([{ a: 1 }]);
    } finally {
      held.release();
    }
    expect((await firstRead).json).toEqual(LARGE[0]);
    expect((await readWithParams(second)).json).toEqual(SPARSE[0]);
  });

  it('answer 503 naming the budget for a silo whose parse needs more heap than a worker may use, and the server goes on', async () => {
    // About 21 MB of heap once parsed: more than the 8 MiB a worker's task and 1.75 MiB its cache may use.
    const dense = await h.create(alice, { file_name: 'dense', file_data: JSON.parse(DENSE_TEXT) });
    const reply = await readWithParams(dense);
    expect(reply.status).toBe(503);
    expect(reply.json.detail).toMatch(/SILO_MEMORY_BUDGET/);
    expect((await h.client.get(`/${dense}`, { headers: access(alice) })).status).toBe(200);
  });
});

describe('the parsed-data cache', () => {
  it('keeps a sparse silo but not a dense one of the same text size, whose heap is over its budget', async () => {
    const sparse = await h.create(alice, { file_name: 'sparse', file_data: elements('y'.repeat(150_000)) });
    const dense = await h.create(alice, { file_name: 'dense', file_data: JSON.parse(`[${Array(50_000).fill('{}').join(',')}]`) });
    const loads = async (uuid: string) => {
      const before = store.blobReads;
      // Three different queries: each answer is cached on its own, the parsed data is what is shared.
      for (let i = 0; i < 3; i++) expect((await readWithParams(uuid, i)).status).toBe(200);
      return store.blobReads - before;
    };
    // 150 KB of text each: the sparse one holds about 150 KB of heap, the dense one 3.2 MB (> 2 MiB).
    expect(await loads(sparse)).toBe(1);
    expect(await loads(dense)).toBe(3);
  });
});

describe('uploads', () => {
  it('wait for memory while a large body is read, answer 503 with Retry-After, and write nothing', async () => {
    // 1.3 MB received, held three times over (its chunks, their concatenation, its text): the 4 MiB for bodies.
    const received = bodyBytesRead(1_300_000);
    const slow = slowUpload(uploadBody('slow', 1_900_000), 600_000);
    await received;

    const refused = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: uploadBody('refused', 300_000) });
    expectBusy(refused);
    // A small body is never kept waiting.
    expect((await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: uploadBody('small', 20_000) })).status).toBe(201);

    slow.finish();
    expect((await slow.reply).status).toBe(201);
    expect((await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: uploadBody('retried', 300_000) })).status).toBe(201);

    const list = await h.client.get('/api/v1/manage/silos?per_page=100', { headers: manage(alice) });
    const names = list.json.silos.map((s: { file_name: string }) => s.file_name);
    expect(names).toEqual(expect.arrayContaining(['slow', 'small', 'retried']));
    expect(names).not.toContain('refused');
  });

  it('charge a body by what has arrived: one trickled in holds what it sent, not what it announced', async () => {
    // Announced as 1.9 MB (5.7 MB to charge, more than the 4 MiB for bodies), 1 000 bytes sent so far.
    const reading = nextBodyRead();
    const trickled = slowUpload(uploadBody('trickled', 1_900_000));
    await reading;
    // Others' uploads, large and small, chunked or not, go on meanwhile.
    expect((await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: uploadBody('beside', 300_000) })).status).toBe(201);
    const chunked = await fetch(`http://127.0.0.1:${h.server.port}/api/v1/manage/`, {
      method: 'POST',
      headers: { host: 'api.localhost', 'content-type': 'application/json', ...manage(alice) },
      body: new Blob([uploadBody('chunked', 1_000)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(201);
    trickled.finish();
    expect((await trickled.reply).status).toBe(201);
  });

  it('take a body larger than the whole budget for bodies when it is alone', async () => {
    const reply = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice), body: uploadBody('large', 2_500_000) });
    expect(reply.status).toBe(201);
  });
});

describe('patches', () => {
  it('of large silos wait for memory like reads; appends and renames, which do not parse the stored data, go on', async () => {
    const big = await h.create(alice, { file_name: 'big', file_data: SPARSE });
    const other = await h.create(alice, { file_name: 'other', file_data: LARGE });
    const jsonPatch = (body: unknown) => ({ method: 'PATCH', headers: manage(alice, { 'content-type': 'application/json-patch+json' }), body });
    const change = jsonPatch([{ op: 'replace', path: '/file_data/0', value: { changed: true } }]);
    const rename = { method: 'PATCH', headers: manage(alice, { 'content-type': 'application/merge-patch+json' }), body: { file_name: 'renamed' } };
    const held = store.holdNextBlobRead();
    const read = readWithParams(other);
    try {
      await held.reached;
      expectBusy(await h.client.request(`/api/v1/manage/${big}`, change));
      const append = await h.client.request(`/api/v1/manage/${big}`, jsonPatch([{ op: 'add', path: '/file_data/-', value: { added: true } }]));
      expect(append.status, append.text.slice(0, 200)).toBe(200);
      const renamed = await h.client.request(`/api/v1/manage/${big}`, rename);
      expect(renamed.status, renamed.text.slice(0, 200)).toBe(200);
      expect(renamed.json.file_name).toBe('renamed');
    } finally {
      held.release();
    }
    expect((await read).status).toBe(200);
    const changed = await h.client.request(`/api/v1/manage/${big}`, change);
    expect(changed.status, changed.text.slice(0, 200)).toBe(200);
    expect(changed.json.file_data[0]).toEqual({ changed: true });
  });
});

describe('collectGarbage', () => {
  it('runs after a quarter of the budget for requests has been released', async () => {
    let collections = 0;
    const own = await startSilo({ memoryBudgetBytes: 16 * MiB, collectGarbage: () => collections++ });
    try {
      const bob = await own.account('bob');
      // Each 1 MB upload releases its bytes and text (2 MB) and its value: two pass the 3 MiB.
      await own.create(bob, { file_name: 'a', file_data: elements('a'.repeat(1_000_000)) });
      expect(collections).toBe(0);
      await own.create(bob, { file_name: 'b', file_data: elements('b'.repeat(1_000_000)) });
      // The server releases a request's memory when its response is over, then collects in the next turn.
      for (let turn = 0; turn < 100 && collections === 0; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(collections).toBe(1);
    } finally {
      await own.close();
    }
  });
});

describe('the budget option', () => {
  it('refuses caches that leave less than half of it to requests, and a budget under 1 MiB', () => {
    expect(() => createSilo({ memoryBudgetBytes: 16 * MiB, parsedCacheBytes: 6 * MiB, bodyCacheBytes: 4 * MiB })).toThrow(/at most half/);
    expect(() => createSilo({ memoryBudgetBytes: 1000 })).toThrow(/at least 1 MiB/);
  });
});
