/**
 * Several instances (issues 4 and 11): two `silo serve` processes on two ports with one
 * SILO_STORE_URL: redis://127.0.0.1:6379/7, one SQLite file, a schema of this run in the test
 * PostgreSQL, a Redis Cluster of the suite's own. A silo created through one is read, updated, listed
 * and deleted through the other; a key revoked with the `silo` command stops working on both
 * within 1 second. Database 7 of the test Redis is this file's own: emptied before and after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, testSchema, type TestSchema } from './support/postgres.js';
import { clusterAvailable, clusterForSuite } from './support/redis-cluster.js';
import { redisAvailable, TEST_REDIS_URL } from './support/redis.js';
import { openSse } from './support/sse.js';
import { cleanup, ensureBuilt, eventually, runSilo, startSilo, tempDir, type Keys, type SiloServer } from './support/silo-process.js';

const haveRedis = await redisAvailable();
const haveCluster = clusterAvailable();
const havePostgres = await postgresAvailable();
const DB = 7;

function dbUrl(): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${DB}`;
  return url.toString();
}

/** FLUSHDB of database 7 only. */
async function emptyDb(): Promise<void> {
  const client = createClient({ url: dbUrl(), socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHDB']);
  } finally {
    await client.close();
  }
}

/** The same checks on two instances sharing one store: `open` empties it and names it, `close` cleans up. */
function twoInstances(label: string, skip: boolean, open: () => Promise<string>, close: () => Promise<void>, instances = 'every instance given this store URL') {
  describe.skipIf(skip)(label, () => {
    // Made in beforeAll: the cleanup of the describe before this one removes every temporary directory.
    let dir: string;
    let env: Record<string, string>;
    let a: SiloServer;
    let b: SiloServer;
    let keys: Keys;

    beforeAll(async () => {
      ensureBuilt();
      dir = tempDir('multi');
      env = { SILO_STORE_URL: await open(), SILO_RATE_LIMIT_PER_MINUTE: '0' };
      a = await startSilo({ env, cwd: dir });
      b = await startSilo({ env, cwd: dir });
      keys = a.keys!;
    }, 60_000);

    afterAll(async () => {
      await Promise.all([a, b].filter(Boolean).map((s) => s.stop().catch(() => undefined)));
      await cleanup();
      if (!skip) await close();
    }, 30_000);

    const manage = (server: SiloServer, path: string, init: RequestInit = {}) =>
      server.fetch(path, { ...init, headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage, ...init.headers } });

    it('only the first instance on the empty storage printed keys', () => {
      expect(a.keys).toBeDefined();
      expect(b.keys).toBeUndefined();
      expect(a.port).not.toBe(b.port);
      // The start line says plainly that the store serves several instances.
      for (const server of [a, b]) expect(server.logs().find((l) => l.msg === 'listening')).toMatchObject({ instances });
    });

    it('a silo created through one instance is read, updated, listed and deleted through the other', async () => {
      const created = await manage(a, '/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'shared', file_data: [{ id: 1, tag: 'x' }] }) });
      expect(created.status).toBe(201);
      const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };

      const read = await b.fetch(`/${uuid}`, { headers: { 'X-SILO-KEY': keys.access } });
      expect([read.status, await read.json()]).toEqual([200, [{ id: 1, tag: 'x' }]]);
      const meta = await manage(b, `/api/v1/manage/meta/${uuid}`);
      expect(await meta.json()).toMatchObject({ file_uuid: uuid, file_name: 'shared', is_public: false, region_name: 'api' });

      const updated = await manage(b, `/api/v1/manage/${uuid}`, { method: 'PATCH', body: JSON.stringify({ file_name: 'renamed', file_data: [{ id: 2, tag: 'y' }], is_public: true }) });
      expect(updated.status).toBe(200);
      const viaA = await a.fetch(`/public/${uuid}`);
      expect([viaA.status, await viaA.json()]).toEqual([200, [{ id: 2, tag: 'y' }]]);
      const queried = await a.fetch(`/${uuid}?q=tag&value=y&path=id`, { headers: { 'X-SILO-KEY': keys.access } });
      expect(await queried.json()).toEqual([2]);

      const listed = await manage(b, '/api/v1/manage/silos');
      const page = (await listed.json()) as { metadata: { total_items: number }; silos: Array<{ file_uuid: string; file_name: string }> };
      expect(page.metadata.total_items).toBe(1);
      expect(page.silos[0]).toMatchObject({ file_uuid: uuid, file_name: 'renamed' });

      const deleted = await manage(b, `/api/v1/manage/${uuid}`, { method: 'DELETE' });
      expect([deleted.status, await deleted.json()]).toEqual([200, { file_uuid: uuid, deleted: true }]);
      expect((await a.fetch(`/public/${uuid}`)).status).toBe(404);
      expect((await manage(a, `/api/v1/manage/meta/${uuid}`)).status).toBe(404);
      const after = (await (await manage(a, '/api/v1/manage/silos')).json()) as { metadata: { total_items: number } };
      expect(after.metadata.total_items).toBe(0);
    }, 30_000);

    it('a key created with the command works on both; revoked with the command, it fails on both within 1 s', async () => {
      const created = await runSilo(['keys', 'create', '--type', 'manage', '--name', 'ops', '--json'], { env, cwd: dir });
      expect(created.code, created.stderr).toBe(0);
      const ops = (JSON.parse(created.stdout) as { key: string }).key;
      const list = (s: SiloServer) => s.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': ops } }).then((r) => r.status);
      expect(await Promise.all([list(a), list(b)])).toEqual([200, 200]);
      const access = (s: SiloServer) => s.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': keys.manage } }).then((r) => r.status);

      const revoked = await runSilo(['keys', 'revoke', '--type', 'manage', '--name', 'ops', '--confirm', 'ops'], { env, cwd: dir });
      expect(revoked.code, revoked.stderr).toBe(0);
      const took = await eventually(async () => (await Promise.all([list(a), list(b)])).every((s) => s === 401), 1000);
      expect(took).toBeLessThanOrEqual(1000);
      // The other keys of the account are untouched.
      expect(await Promise.all([access(a), access(b)])).toEqual([200, 200]);
    }, 30_000);

    it("a subscriber on one instance sees a write through the other within 1 s (the silo's stream and the account's)", async () => {
      const created = await manage(a, '/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'feed', file_data: { n: 0 } }) });
      const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
      const host = { host: 'api.localhost' };
      const silo = await openSse(b.port, `/${uuid}/events?data=1`, { ...host, 'X-SILO-KEY': keys.access });
      const account = await openSse(b.port, '/api/v1/manage/events', { ...host, 'X-MAN-API': keys.manage });
      expect([silo.status, account.status]).toEqual([200, 200]);
      // Subscribed once the response has started; the listener on the bus may take a moment more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      try {
        for (let n = 1; n <= 3; n++) {
          const sent = Date.now();
          const patched = await manage(a, `/api/v1/manage/${uuid}`, { method: 'PATCH', body: JSON.stringify({ file_data: { n } }) });
          expect(patched.status).toBe(200);
          const event = await silo.next(1000);
          expect(Date.now() - sent).toBeLessThan(1000);
          expect(event).toMatchObject({ event: 'update', id: String(n + 1) });
          expect(JSON.parse(event.data)).toMatchObject({ file_uuid: uuid, version: n + 1, file_data: { n } });
          // The silo's create, published by a just before b's account stream subscribed, may reach
          // b's bus after it did (Redis delivers it then): that event is not the one this waits for.
          let change = await account.next(1000);
          if (n === 1 && change.event === 'create') change = await account.next(1000);
          expect(change.event).toBe('update');
          expect(JSON.parse(change.data)).toMatchObject({ file_uuid: uuid, version: n + 1 });
        }
      } finally {
        silo.close();
        account.close();
      }
    }, 20_000);

    it('a silo made with the command is announced on a server\'s account feed before the command exits', async () => {
      const account = await openSse(b.port, '/api/v1/manage/events', { host: 'api.localhost', 'X-MAN-API': keys.manage });
      expect(account.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      try {
        const made = await runSilo(['silos', 'create', '--name', 'from-the-command', '--data', '{"n":1}', '--json'], { env, cwd: dir });
        expect(made.code, made.stderr).toBe(0);
        const { file_uuid: uuid } = JSON.parse(made.stdout) as { file_uuid: string };
        const event = await account.next(1000);
        expect(event.event).toBe('create');
        expect(JSON.parse(event.data)).toMatchObject({ file_uuid: uuid, file_name: 'from-the-command' });
      } finally {
        account.close();
      }
    }, 30_000);

    it('both are ready and shut down cleanly', async () => {
      expect((await a.fetch('/readyz')).status).toBe(200);
      expect((await b.fetch('/readyz')).status).toBe(200);
      const [ea, eb] = await Promise.all([a.stop('SIGTERM'), b.stop('SIGINT')]);
      expect([ea.code, eb.code]).toEqual([0, 0]);
      for (const s of [a, b]) expect(s.stdout()).not.toMatch(/"level":"error"/);
    }, 20_000);
  });
}

twoInstances('two silo serve processes on one Redis', !haveRedis, async () => {
  await emptyDb();
  return dbUrl();
}, emptyDb);

// A file of its own, outside the temporary directories that each describe's cleanup removes.
let sqliteDir: string | undefined;
twoInstances('two silo serve processes on one SQLite file', false, async () => {
  sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-multi-sqlite-'));
  return `sqlite://${path.join(sqliteDir, 'silo.sqlite')}`;
}, async () => {
  if (sqliteDir) fs.rmSync(sqliteDir, { recursive: true, force: true });
}, 'processes on this machine sharing the file');

let schema: TestSchema | undefined;
twoInstances('two silo serve processes on one PostgreSQL database', !havePostgres, async () => {
  schema = await testSchema('multi');
  return schema.storeUrl();
}, async () => {
  await schema?.drop();
});

const cluster = clusterForSuite();
twoInstances('two silo serve processes on one Redis Cluster', !haveCluster, cluster.open, cluster.close);
