/**
 * Contract §6 rate limiting over real HTTP: per client (key, or address for public reads and for
 * refused keys), by plan, with RateLimit-* headers on every limited response and a 429 with
 * Retry-After over the limit; `0` turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

let h: Harness;
let alice: Account;
let bob: Account;
let free: Account;

beforeAll(async () => {
  h = await startSilo({
    trustProxy: true,
    plans: {
      default: { maxDataBytes: 10_000, rateLimitPerMinute: 3 },
      unlimited: { maxDataBytes: 10_000, rateLimitPerMinute: 0 },
    },
  });
  alice = await h.account('alice');
  bob = await h.account('bob');
  free = await h.account('free', 'unlimited');
});
afterAll(() => h.close());

const list = (account: Account, ip = '10.0.0.1') =>
  h.client.get('/api/v1/manage/silos', { headers: manage(account, { 'X-Forwarded-For': ip }) });

describe('rate limit', () => {
  it('counts down in RateLimit headers, then answers 429 with Retry-After', async () => {
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const reply = await list(alice);
      expect(reply.status).toBe(200);
      expect(reply.headers['ratelimit-limit']).toBe('3');
      const reset = Number(reply.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
      remaining.push(reply.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await list(alice);
    expect(limited.status).toBe(429);
    expect(typeof limited.json.detail).toBe('string');
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe(String(retry));
  });

  it('counts each key apart: another client is not limited by the first', async () => {
    expect((await list(bob)).status).toBe(200);
  });

  it('counts data reads with an access key by that key', async () => {
    const uuid = await h.create(free, { file_name: 'x', file_data: {} });
    // `free` is unlimited: no headers, never a 429.
    for (let i = 0; i < 6; i++) {
      const reply = await h.client.get(`/${uuid}`, { headers: access(free) });
      expect(reply.status).toBe(200);
      expect(reply.headers['ratelimit-limit']).toBeUndefined();
    }
    const carol = await h.account('carol');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.client.get(`/${uuid}`, { headers: access(carol) })).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it('counts public reads by client address (X-Forwarded-For behind a trusted proxy)', async () => {
    const uuid = await h.create(free, { file_name: 'pub', file_data: { a: 1 }, is_public: true });
    const read = (ip: string) => h.client.get(`/public/${uuid}`, { headers: { 'X-Forwarded-For': `1.2.3.4, ${ip}` } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await read('192.0.2.1')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await read('192.0.2.1');
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await read('192.0.2.2')).status).toBe(200);
  });

  it('counts IPv6 clients by their /64, public reads and refused keys alike', async () => {
    const uuid = await h.create(free, { file_name: 'v6', file_data: { a: 1 }, is_public: true });
    const read = (ip: string) => h.client.get(`/public/${uuid}`, { headers: { 'X-Forwarded-For': ip } });
    const statuses = [];
    // Three addresses of one subscriber's network: one budget between them.
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3', '2001:db8:1:2::4']) statuses.push((await read(ip)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await read('2001:db8:1:3::1')).status).toBe(200); // the next /64: another client
    const guess = (ip: string) => h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': 'silo_man_guess', 'X-Forwarded-For': ip } });
    const guesses = [];
    for (let i = 1; i <= 4; i++) guesses.push((await guess(`2001:db8:9:9::${i}`)).status);
    expect(guesses).toEqual([401, 401, 401, 429]);
  });

  it('takes a forwarded value only when it is an IP address: junk counts as the socket, and reaches no log as written', async () => {
    const uuid = await h.create(free, { file_name: 'junk', file_data: { a: 1 }, is_public: true });
    // Four different junk values: as written they would be four buckets; they are the socket's one.
    const junk = ['<script>x</script>', 'silo_man_abcdef', 'unknown', '1.2.3.4:80'];
    const statuses = [];
    for (const value of junk) statuses.push((await h.client.get(`/public/${uuid}`, { headers: { 'X-Forwarded-For': value } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('counts refused keys by address, so keys cannot be guessed without limit', async () => {
    const guess = () => h.client.get('/api/v1/manage/silos', { headers: { 'X-MAN-API': 'silo_man_guess', 'X-Forwarded-For': '198.51.100.7' } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await guess()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('rate limit off', () => {
  it('never limits when the plan says 0, and sends no RateLimit headers', async () => {
    const off = await startSilo({ plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 0 } } });
    try {
      const owner = await off.account('o');
      for (let i = 0; i < 20; i++) {
        const reply = await off.client.get('/api/v1/manage/silos', { headers: manage(owner) });
        expect(reply.status).toBe(200);
        expect(reply.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await off.close();
    }
  });
});
