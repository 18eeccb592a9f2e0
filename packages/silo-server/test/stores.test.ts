import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, TEST_REDIS_URL } from '../../../test/support/redis.js';
import { postgresAvailable, TEST_POSTGRES_URL } from '../../../test/support/postgres.js';
import { clusterAvailable, startOwnCluster } from '../../../test/support/redis-cluster.js';
import { loadStorageConfig } from '../src/config.js';
import { SqliteStore } from '../src/sqlite-store.js';
import { openStores, parseStoreUrl, StartupError } from '../src/stores.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-stores-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('openStores with the embedded store', () => {
  it('puts every role in its own table of one file under the data dir', async () => {
    const { store } = loadStorageConfig({ SILO_DATA_DIR: 'd1' }, {}, tmp);
    const stores = await openStores({ main: store.main, regions: store.regions });
    try {
      await stores.main.keyv.set('k', 'main');
      await stores.regions['sg-01-api'].keyv.set('k', 'sg');
      expect(await stores.main.keyv.get('k')).toBe('main');
      expect(await stores.regions['sg-01-api'].keyv.get('k')).toBe('sg');
      expect(await stores.regions.api.keyv.get('k')).toBeUndefined();
      await stores.check();
      const file = path.join(tmp, 'd1', 'silo.sqlite');
      expect(fs.existsSync(file)).toBe(true);
      const store2 = stores.main.keyv.store as SqliteStore;
      const tables = store2.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      // Beside the stores' tables, the change feed's (sqlite-events.ts; sqlite_sequence is its AUTOINCREMENT's).
      expect(tables).toEqual(['main', 'region_api', 'region_sg_01_api', 'region_usc_01_api', 'silo_event_listeners', 'silo_events', 'sqlite_sequence']);
      expect(stores.events).toBeDefined();
      expect(store2.walEnabled).toBe(true);
      expect(stores.redis).toBeUndefined();
    } finally {
      await stores.close();
    }
  });

  it('a region URL moves that region to its own file', async () => {
    const { store } = loadStorageConfig({ SILO_DATA_DIR: 'd2', SILO_STORE_URL_SG_01_API: 'sqlite://sg/sg.sqlite' }, {}, tmp);
    const stores = await openStores({ main: store.main, regions: store.regions });
    await stores.regions['sg-01-api'].keyv.set('k', 'v');
    await stores.close();
    expect(fs.existsSync(path.join(tmp, 'sg', 'sg.sqlite'))).toBe(true);
  });

  it('an unopenable SQLite path is a StartupError', async () => {
    fs.writeFileSync(path.join(tmp, 'blocker'), '');
    const loc = parseStoreUrl('sqlite://blocker/x.sqlite', tmp);
    await expect(openStores({ main: loc, regions: { api: loc, 'sg-01-api': loc, 'usc-01-api': loc } })).rejects.toThrow(
      /^cannot open the SQLite store .*blocker\/x\.sqlite/,
    );
  });
});

describe('openStores with Redis', async () => {
  const up = await redisAvailable();

  it('an unreachable Redis fails within the timeout with one clear message', async () => {
    const port = await closedPort();
    const loc = parseStoreUrl(`redis://127.0.0.1:${port}/7`);
    const t0 = Date.now();
    const error = await openStores({ main: loc, regions: { api: loc, 'sg-01-api': loc, 'usc-01-api': loc }, connectTimeoutMs: 1000 }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(new RegExp(`^cannot reach Redis at redis://127.0.0.1:${port}/7: .*ECONNREFUSED`));
  });

  it.skipIf(!up)('namespaces each role in the chosen database and shares one client', async () => {
    const loc = parseStoreUrl(`${TEST_REDIS_URL}/8`);
    const stores = await openStores({ main: loc, regions: { api: loc, 'sg-01-api': loc, 'usc-01-api': loc } });
    const probe = createClient({ url: `${TEST_REDIS_URL}/8` });
    await probe.connect();
    try {
      await stores.main.keyv.set('k', 'main');
      await stores.regions['usc-01-api'].keyv.set('k', 'usc');
      expect(await stores.main.keyv.get('k')).toBe('main');
      expect(await stores.regions['usc-01-api'].keyv.get('k')).toBe('usc');
      expect(await stores.regions.api.keyv.get('k')).toBeUndefined();
      const keys = (await probe.keys('silo:*')).sort();
      expect(keys).toEqual(['silo:main::k', 'silo:region:usc-01-api::k']);
      expect(stores.redis?.isOpen).toBe(true);
      await stores.check();
    } finally {
      await probe.del(await probe.keys('silo:*'));
      await probe.close();
      await stores.close();
    }
    expect(stores.redis?.isOpen).toBe(false);
  });
});

describe.skipIf(!clusterAvailable())('openStores with a Redis Cluster', () => {
  it('detects a cluster from the URL of one node, and refuses a database other than 0', async () => {
    const cluster = await startOwnCluster();
    try {
      const loc = parseStoreUrl(cluster.url);
      const stores = await openStores({ main: loc, regions: { api: loc, 'sg-01-api': loc, 'usc-01-api': loc } });
      try {
        // Keys in every slot are reachable: the client found the other masters.
        for (let i = 0; i < 30; i++) await stores.main.keyv.set(`k${i}`, String(i));
        expect(await stores.main.keyv.getMany(Array.from({ length: 30 }, (_, i) => `k${i}`))).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
        expect('masters' in stores.redis!).toBe(true);
        await stores.check();
      } finally {
        await stores.close();
      }
      const one = parseStoreUrl(`${cluster.url}/1`);
      const error = await openStores({ main: one, regions: { api: one, 'sg-01-api': one, 'usc-01-api': one } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toBe(`${cluster.url}/1 is a Redis Cluster node: a cluster has database 0 only`);
    } finally {
      await cluster.dispose();
    }
    // Three redis-server processes started and joined into a cluster: seconds on two busy cores.
  }, 30_000);
});

const havePostgres = await postgresAvailable();

describe.skipIf(!havePostgres)('openStores on PostgreSQL', () => {
  it('refuses a search_path that names no schema, saying so, before making anything', async () => {
    const url = `${TEST_POSTGRES_URL}?options=${encodeURIComponent('-c search_path=silo_no_such_schema')}`;
    const loc = parseStoreUrl(url);
    const error = await openStores({ main: loc, regions: { api: loc, 'sg-01-api': loc, 'usc-01-api': loc } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/^the search_path of postgres:.* names no schema that exists, so Silo has nowhere to make its tables: create it first/);
  });
});

describe('PostgreSQL store URLs', () => {
  it('takes the pool size and statement limit from the URL, and leaves the rest to the driver', () => {
    const loc = parseStoreUrl('postgres://silo:secret@db.example:5432/silo?sslmode=require&pool_size=25&statement_timeout_ms=8000');
    expect(loc).toEqual({
      kind: 'postgres',
      url: 'postgres://silo:secret@db.example:5432/silo?sslmode=require',
      display: 'postgres://silo:***@db.example:5432/silo?sslmode=require',
      poolSize: 25,
      statementTimeoutMs: 8000,
    });
    expect(parseStoreUrl('postgres://db.example/silo')).toMatchObject({ poolSize: 10, statementTimeoutMs: 5000 });
    expect(() => parseStoreUrl('postgres://u:pw@db.example/silo?pool_size=0')).toThrow(
      new StartupError('pool_size in postgres://u:***@db.example/silo?pool_size=0 must be a whole number from 1 to 1000, got "0"'),
    );
    expect(() => parseStoreUrl('postgres://db.example/silo?statement_timeout_ms=soon')).toThrow(/statement_timeout_ms .* must be a whole number from 100 to 3600000/);
  });
});
