/**
 * The storage contract on in-memory Keyv, on an adapter with atomic batches shared by several Keyvs, and
 * on real Redis (database 5, keys under a namespace of this run, removed afterwards); then what is
 * specific to the facade: its coordination, the bytes at rest, time limits.
 */
import { randomBytes } from 'node:crypto';
import KeyvRedis from '@keyv/redis';
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, TEST_REDIS_URL } from '../../../test/support/redis.js';
import { StorageUnavailableError } from '../src/model/index.js';
import { createServices } from '../src/service/index.js';
import { createStorage } from '../src/storage/index.js';
import { storageContract } from '../src/testing/index.js';
import { AtomicMapAdapter } from './support/atomic-map-adapter.js';

const haveRedis = await redisAvailable();

function redisUrl(db: number): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}

const REDIS_DB = 5;

/** The single-node client behind an adapter (its declared type also covers clusters). */
async function commandsOf(adapter: KeyvRedis<string>): Promise<{ sendCommand(args: string[]): Promise<unknown> }> {
  return (await adapter.getClient()) as unknown as { sendCommand(args: string[]): Promise<unknown> };
}
const namespace = `silo-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const redisKeyvs: Keyv[] = [];

function makeRedisKeyv(): Keyv {
  const keyv = new Keyv({ store: new KeyvRedis(redisUrl(REDIS_DB)), namespace });
  redisKeyvs.push(keyv);
  return keyv;
}

/** Deletes every key of this run (strings, sorted sets, locks) and closes every client. */
async function cleanRedis(): Promise<void> {
  if (!haveRedis) return;
  const adapter = new KeyvRedis<string>(redisUrl(REDIS_DB));
  const client = await commandsOf(adapter);
  let cursor = '0';
  do {
    const reply = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${namespace}*`, 'COUNT', '1000'])) as [string, string[]];
    cursor = reply[0];
    if (reply[1].length > 0) await client.sendCommand(['UNLINK', ...reply[1]]);
  } while (cursor !== '0');
  await adapter.disconnect();
  await Promise.all(redisKeyvs.splice(0).map((keyv) => keyv.disconnect()));
}

storageContract('in-memory Keyv', () => new Keyv());

// One adapter behind every Keyv: several "instances" sharing one store with atomic batches.
const shared = new AtomicMapAdapter();
storageContract('atomic-batch store', () => new Keyv({ store: shared }), { multiInstance: true });

storageContract('Redis (@keyv/redis)', makeRedisKeyv, { skip: !haveRedis, multiInstance: true, cleanup: cleanRedis });

describe('storage facade', () => {
  it('chooses its coordination from what the main store can do', () => {
    expect(createStorage({ main: new Keyv() }).coordination).toBe('in-process');
    expect(createStorage({ main: new Keyv({ store: new AtomicMapAdapter() }) }).coordination).toBe('store');
  });

  it('refuses a Keyv store that cannot commit atomically, saying which can', () => {
    const plain: KeyvStoreAdapter = {
      opts: {},
      on() {
        return this;
      },
      get: () => Promise.resolve(undefined),
      set: () => Promise.resolve(true),
      delete: () => Promise.resolve(true),
      clear: () => Promise.resolve(),
    };
    expect(() => createStorage({ main: new Keyv({ store: plain }) })).toThrow(/cannot commit atomically.*SqliteStore/);
  });

  it('stores the data as its bare text, and the head as small JSON naming it', async () => {
    const map = new Map<string, unknown>();
    const storage = createStorage({ main: new Keyv({ store: map }) });
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const created = await silos.create('acme', { file_name: 'f', file_data: { a: 'é\n' } });
    const blobs = [...map.entries()].filter(([key]) => String(key).startsWith(`keyv:silo:blob:api:${created.file_uuid}:`));
    expect(blobs.map(([, value]) => value)).toEqual(['{"a":"é\\n"}']);
    const head = JSON.parse(String(map.get(`keyv:silo:head:${created.file_uuid}`))) as Record<string, unknown>;
    expect(head).toMatchObject({ version: 1, oldest: 1, etag: created.etag, file_name: 'f' });
    expect(`keyv:silo:blob:api:${created.file_uuid}:${String(head.blob)}`).toBe(blobs[0]![0]);
  });

  it('turns off a TTL and the default serializer of the Keyv it is given', async () => {
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map, ttl: 5 });
    const storage = createStorage({ main: keyv });
    await storage.insertAccount({ name: 'acme', plan: 'default', created_at: 'now' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await storage.getAccount('acme')).toEqual({ name: 'acme', plan: 'default', created_at: 'now' });
    expect(map.get('keyv:silo:account:acme')).toBe('{"name":"acme","plan":"default","created_at":"now"}');
  });

  it('keeps several storages on one Keyv apart by prefix', async () => {
    const keyv = new Keyv();
    const one = createStorage({ main: keyv, prefix: 'one' });
    const two = createStorage({ main: keyv, prefix: 'two' });
    await one.insertAccount({ name: 'acme', plan: 'default', created_at: 'x' });
    expect(await two.getAccount('acme')).toBeUndefined();
    expect(await two.insertAccount({ name: 'acme', plan: 'pro', created_at: 'y' })).toBe(true);
  });

  it('answers 503 within its time limit when a store never answers', async () => {
    const silent = new Promise<never>(() => undefined);
    const hanging = {
      opts: {},
      on() {
        return this;
      },
      get: () => silent,
      set: () => silent,
      delete: () => silent,
      clear: () => silent,
      atomic: () => silent,
      sortedIndex: { count: () => silent, range: () => silent },
    } as KeyvStoreAdapter;
    const storage = createStorage({ main: new Keyv({ store: hanging }), timeoutMs: 50 });
    const started = Date.now();
    await expect(storage.getAccount('acme')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.index.page('acme', 0, 10)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reports store errors to onError and raises them', async () => {
    const failing = {
      opts: {},
      on() {
        return this;
      },
      get: () => Promise.reject(new Error('disk on fire')),
      set: () => Promise.reject(new Error('disk on fire')),
      delete: () => Promise.reject(new Error('disk on fire')),
      clear: () => Promise.resolve(),
      atomic: () => Promise.reject(new Error('disk on fire')),
      sortedIndex: { count: () => 0, range: () => [] },
    } as KeyvStoreAdapter;
    const seen: unknown[] = [];
    const storage = createStorage({ main: new Keyv({ store: failing }), onError: (e) => seen.push(e) });
    const silo = {
      file_uuid: '00000000-0000-4000-8000-000000000000',
      file_name: 'n',
      region_name: 'api' as const,
      is_public: false,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      account: 'a',
      size: 2,
    };
    const error = await storage.createSilo(silo, '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as StorageUnavailableError).cause).toBeInstanceOf(Error);
    expect(seen).toHaveLength(1);
  });
});

describe.skipIf(!haveRedis)('storage facade on Redis', () => {
  afterAll(cleanRedis);

  it('uses native Redis structures for the listing index and locks', async () => {
    const keyv = makeRedisKeyv();
    const storage = createStorage({ main: keyv, prefix: 'native' });
    expect(storage.coordination).toBe('redis');
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const created = await silos.create('acme', { file_name: 'f', file_data: { a: 1 } });
    const client = await commandsOf(keyv.store as KeyvRedis<string>);
    const indexKey = `${namespace}::${namespace}:native:index:acme`;
    expect(await client.sendCommand(['TYPE', indexKey])).toBe('zset');
    const headKey = `${namespace}::${namespace}:native:head:${created.file_uuid}`;
    const head = JSON.parse(String(await client.sendCommand(['GET', headKey]))) as { blob: string };
    const blobKey = `${namespace}::${namespace}:native:blob:api:${created.file_uuid}:${head.blob}`;
    expect(await client.sendCommand(['GET', blobKey])).toBe('{"a":1}');
  });

  it('lists silos when the Keyv namespace equals the storage prefix', async () => {
    // Keyv prefixes `ns:`-keys once for get but twice for getMany; listings read many at once.
    const storage = createStorage({ main: makeRedisKeyv(), prefix: namespace });
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const created = await silos.create('acme', { file_name: 'f', file_data: {} });
    const page = await silos.list('acme', 1, 10);
    expect(page.metadata.total_items).toBe(1);
    expect(page.silos.map((s) => s.file_uuid)).toEqual([created.file_uuid]);
  });

  it('answers 503 within its time limit when Redis cannot be reached', async () => {
    // Port 1 on loopback: nothing listens there.
    const adapter = new KeyvRedis('redis://127.0.0.1:1');
    const storage = createStorage({ main: new Keyv({ store: adapter }), timeoutMs: 300 });
    const started = Date.now();
    await expect(storage.getAccount('acme')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.index.page('acme', 0, 1)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(Date.now() - started).toBeLessThan(3000);
    await adapter.disconnect(true).catch(() => undefined);
  });
});
