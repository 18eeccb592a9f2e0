/**
 * Retries of 429 and 503 against a tiny local server that is busy first: bounded, waiting as
 * Retry-After says (seconds or a date), never repeating a write whose outcome a 503 leaves
 * unknown, and ended at once by an AbortSignal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SiloClient, SiloError } from '../src/index.js';
import { retryAfterMs } from '../src/errors.js';
import { FIXTURE_UUID, metaText } from './support/fixtures.js';
import { scripted, type Scripted } from './support/servers.js';

const UUID = FIXTURE_UUID;
const META = metaText();
const ok = { status: 200, headers: { ETag: '"v1"' }, body: META };

let server: Scripted | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const clientOf = (s: Scripted, retry = {}) => new SiloClient({ baseUrl: s.url, manageKey: 'silo_man_test', retry: { baseDelayMs: 50, ...retry } });
const gaps = (s: Scripted) => s.requests.slice(1).map((r, i) => r.at - s.requests[i]!.at);

describe('retries', () => {
  it('waits as Retry-After says on a 429, then succeeds', async () => {
    server = await scripted([{ status: 429, headers: { 'Retry-After': '1' } }, ok]);
    const meta = await clientOf(server).meta(UUID);
    expect(meta).toMatchObject({ version: 1, etag: '"v1"' });
    expect(server.requests).toHaveLength(2);
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(950);
  });

  it('reads a Retry-After that is an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('retries a 503 of a read, backing off when the answer gives no Retry-After', async () => {
    server = await scripted([{ status: 503 }, { status: 503 }, ok]);
    await clientOf(server).meta(UUID);
    expect(server.requests).toHaveLength(3);
    // 50 ms, then 100 ms, each ±25 %.
    const [first, second] = gaps(server);
    expect(first).toBeGreaterThanOrEqual(35);
    expect(second).toBeGreaterThanOrEqual(70);
  });

  it('gives up after the retries allowed, with the last answer as a SiloError', async () => {
    server = await scripted([{ status: 429, headers: { 'Retry-After': '0' }, body: JSON.stringify({ detail: 'Too many requests: retry in 0 s' }) }]);
    const error = (await clientOf(server, { retries: 3 })
      .list()
      .catch((e: unknown) => e)) as SiloError;
    expect(error).toBeInstanceOf(SiloError);
    expect(error).toMatchObject({ status: 429, detail: 'Too many requests: retry in 0 s', retryAfter: 0 });
    expect(server.requests).toHaveLength(4);
  });

  it("waits a rate limit's Retry-After of a whole minute by default (the window it counts in)", async () => {
    server = await scripted([{ status: 429, headers: { 'Retry-After': '60' } }, ok]);
    const client = new SiloClient({ baseUrl: server.url, manageKey: 'silo_man_test' });
    const controller = new AbortController();
    const settled = client.meta(UUID, { signal: controller.signal }).then(
      () => 'answered',
      (error: unknown) => (error instanceof SiloError ? `thrown ${error.status}` : 'aborted'),
    );
    const early = await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
    controller.abort();
    expect(early).toBe('waiting');
    expect(await settled).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('does not wait longer than maxDelayMs: a long Retry-After is handed back at once', async () => {
    server = await scripted([{ status: 503, headers: { 'Retry-After': '120' } }, ok]);
    const started = Date.now();
    await expect(clientOf(server, { maxDelayMs: 5000 }).meta(UUID)).rejects.toMatchObject({ status: 503, retryAfter: 120 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('never repeats an unconditional write after a 503 (its outcome is unknown), but does a conditional one, and any write after a 429', async () => {
    server = await scripted([{ status: 503, headers: { 'Retry-After': '0' } }, ok]);
    await expect(clientOf(server).update(UUID, { file_name: 'y' })).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
    await server.close();

    server = await scripted([{ status: 503, headers: { 'Retry-After': '0' } }, ok]);
    await clientOf(server).update(UUID, { file_name: 'y' }, { ifMatch: '"v1"' });
    expect(server.requests.map((r) => r.headers['if-match'])).toEqual(['"v1"', '"v1"']);
    await server.close();

    server = await scripted([{ status: 429, headers: { 'Retry-After': '0' } }, { status: 201, headers: { ETag: '"v1"' }, body: META }]);
    await clientOf(server).create({ file_name: 'x', file_data: {} });
    expect(server.requests).toHaveLength(2);
  });

  it('never repeats a delete after a 503: one that applied would answer its repeat with a 404', async () => {
    for (const ifMatch of [undefined, '"v1"']) {
      server = await scripted([{ status: 503, headers: { 'Retry-After': '0' } }, { status: 404 }]);
      await expect(clientOf(server).delete(UUID, ifMatch ? { ifMatch } : {})).rejects.toMatchObject({ status: 503 });
      expect(server.requests).toHaveLength(1);
      await server.close();
    }
    server = undefined;
  });

  it('sends query parameters where URLSearchParams has no size (browsers before 2023)', async () => {
    server = await scripted(() => ({ status: 200, body: '{"metadata":{"total_items":0,"per_page":1,"page_no":2},"silos":[]}' }));
    const size = Object.getOwnPropertyDescriptor(URLSearchParams.prototype, 'size')!;
    delete (URLSearchParams.prototype as { size?: number }).size;
    try {
      await clientOf(server).list({ page: 2, perPage: 1 });
    } finally {
      Object.defineProperty(URLSearchParams.prototype, 'size', size);
    }
    expect(server.requests[0]!.path).toBe('/api/v1/manage/silos?page=2&per_page=1');
  });

  it('ends a call at once when its signal aborts, even while waiting to retry', async () => {
    server = await scripted([{ status: 429, headers: { 'Retry-After': '10' } }, ok]);
    const controller = new AbortController();
    const started = Date.now();
    const call = clientOf(server).meta(UUID, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('enough')), 200);
    await expect(call).rejects.toThrow('enough');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
    await expect(clientOf(server).meta(UUID, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it('rejects with fetch\'s own TypeError when no server answers (no SiloError, no retry), keeping the cause', async () => {
    const gone = await scripted([ok]);
    await gone.close(); // nothing listens on its port any more
    let calls = 0;
    const client = new SiloClient({
      baseUrl: gone.url,
      manageKey: 'silo_man_m',
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    const error = await client.meta(UUID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(SiloError);
    expect((error as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBe(1);
  });

  it('sends the keys, the content types and If-Match each call needs', async () => {
    server = await scripted(() => ok);
    const client = new SiloClient({ baseUrl: `${server.url}/`, manageKey: 'silo_man_m', accessKey: 'silo_acc_a' });
    await client.mergePatch(UUID, { is_public: true }, { ifMatch: '"v1"' });
    await client.jsonPatch(UUID, [{ op: 'remove', path: '/file_data/0' }]);
    await client.read(UUID, { idx: 0 });
    await client.read(UUID, {}, { address: 'public' });
    const [merge, patch, read, open] = server.requests;
    expect(merge).toMatchObject({ method: 'PATCH', path: `/api/v1/manage/${UUID}`, headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"v1"', 'x-man-api': 'silo_man_m' } });
    expect(patch!.headers['content-type']).toBe('application/json-patch+json');
    expect(read).toMatchObject({ path: `/${UUID}?idx=0`, headers: { 'x-silo-key': 'silo_acc_a' } });
    expect(read!.headers['x-man-api']).toBeUndefined();
    expect(open!.path).toBe(`/public/${UUID}`);
    expect(open!.headers['x-silo-key']).toBeUndefined();
  });
});
