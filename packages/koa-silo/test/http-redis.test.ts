/**
 * A smoke subset of the HTTP suite on real Redis (database 6, keys under a namespace of this run,
 * removed afterwards): two server instances sharing one Redis serve the same silos and keys, a
 * region with its own store, a move between stores, revocation seen by the other instance, and
 * the rate limit counted on Redis across instances.
 */
import { randomBytes } from 'node:crypto';
import KeyvRedis, { createClient } from '@keyv/redis';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, TEST_REDIS_URL } from '../../../test/support/redis.js';
import { access, HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

const haveRedis = await redisAvailable();

const url = new URL(TEST_REDIS_URL);
url.pathname = '/6';
const REDIS_URL = url.toString();
const namespace = `silo-http-test-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A connected node-redis client, as the rate limiter and the clean-up use it. */
const connect = async () => (await createClient({ url: REDIS_URL }).connect()) as unknown as RedisClient;
type RedisClient = {
  quit(): Promise<unknown>;
  unlink(keys: string[]): Promise<unknown>;
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
};

describe.skipIf(!haveRedis)('HTTP on Redis', () => {
  let one: Harness;
  let two: Harness;
  let limiterClients: RedisClient[] = [];
  let owner: Account;

  const instance = async (): Promise<Harness> => {
    const client = await connect();
    limiterClients.push(client);
    return startSilo({
      store: new Keyv({ store: new KeyvRedis(REDIS_URL), namespace }),
      regionStores: { 'sg-01-api': new Keyv({ store: new KeyvRedis(REDIS_URL), namespace: `${namespace}-sg` }) },
      rateLimit: { redis: client, keyPrefix: `${namespace}:rl` },
      plans: { default: { maxDataBytes: 10_000, rateLimitPerMinute: 1000 }, tight: { maxDataBytes: 10_000, rateLimitPerMinute: 4 } },
    });
  };

  beforeAll(async () => {
    one = await instance();
    two = await instance();
    owner = await one.account('owner');
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    const cleaner = await connect();
    for await (const keys of cleaner.scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 })) {
      if (keys.length > 0) await cleaner.unlink(keys);
    }
    await cleaner.quit();
    await Promise.all(limiterClients.map((c) => c.quit()));
    limiterClients = [];
  });

  it('serves on one instance what the other created, in every address', async () => {
    const uuid = await one.create(owner, { file_name: 'shared', file_data: [{ a: 1 }, { a: 2 }], is_public: true });
    expect((await two.client.get(`/public/${uuid}`)).json).toEqual([{ a: 1 }, { a: 2 }]);
    expect((await two.client.get(`/${uuid}?q=a&value=2`, { headers: access(owner) })).json).toEqual([{ a: 2 }]);
    expect((await two.client.get(`/api/v1/manage/meta/${uuid}`, { headers: manage(owner) })).json.file_name).toBe('shared');
    const listed = await two.client.get('/api/v1/manage/silos', { headers: manage(owner) });
    expect(listed.json.silos.map((s: { file_uuid: string }) => s.file_uuid)).toContain(uuid);
  });

  it('moves a silo into a region with its own store and back, and deletes it everywhere', async () => {
    const uuid = await one.create(owner, { file_name: 'mover', file_data: { v: 1 }, is_public: true });
    const moved = await two.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(owner), body: { region_name: 'sg-01-api' } });
    expect(moved.status).toBe(200);
    expect((await one.client.get(`/public/${uuid}`, { host: HOSTS.api })).status).toBe(404);
    expect((await one.client.get(`/public/${uuid}`, { host: HOSTS.sg })).json).toEqual({ v: 1 });
    const deleted = await one.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(owner) });
    expect(deleted.status).toBe(200);
    expect((await two.client.get(`/public/${uuid}`, { host: HOSTS.sg })).status).toBe(404);
    expect((await two.client.get(`/api/v1/manage/${uuid}`, { headers: manage(owner) })).status).toBe(404);
  });

  it('refuses a key revoked on the other instance', async () => {
    const spare = await one.silo.accounts.createKey({ account: 'owner', type: 'access', name: 'spare' });
    const uuid = await one.create(owner, { file_name: 'r', file_data: {} });
    expect((await two.client.get(`/${uuid}`, { headers: { 'X-SILO-KEY': spare.key } })).status).toBe(200);
    await one.silo.accounts.revokeKey({ account: 'owner', type: 'access', name: 'spare', confirm: 'spare' });
    expect((await two.client.get(`/${uuid}`, { headers: { 'X-SILO-KEY': spare.key } })).status).toBe(401);
  });

  it('counts the rate limit on Redis, across instances', async () => {
    const tight = await one.account('tight', 'tight');
    const statuses = [];
    for (const h of [one, two, one, two, one]) {
      statuses.push((await h.client.get('/api/v1/manage/silos', { headers: manage(tight) })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});
