/**
 * Locks of dead owners (issue 10): a `silo` process killed with `kill -9` while it holds a silo's
 * lock does not stall that silo's writers. Its lease expires after the lock TTL (it is no longer
 * renewed), and the next writer takes the lock over, long before the wait limit after which
 * writers would go ahead without it. A live holder renews its lease for as long as it works.
 * On SQLite (a temporary file, two processes) and on Redis (a namespace of this run in database
 * 5 of the test Redis, removed afterwards).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { afterAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../packages/koa-silo/src/storage/index.js';
import type { SiloStorage } from '../../packages/koa-silo/src/storage/types.js';
import { SqliteStore, sqliteKeyv } from '../../packages/silo-server/src/sqlite-store.js';
import { redisAvailable, TEST_REDIS_URL } from '../support/redis.js';

const haveRedis = await redisAvailable();
if (!haveRedis && process.env.CI === 'true') throw new Error('Redis is required in CI for the dead lock owner test');

const TTL_MS = 1_000;

/** The fields of the silo the test writes (its uuid is fresh per test). */
const SILO = {
  file_name: 'dead-lock',
  region_name: 'api' as const,
  is_public: false,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  account: 'dead-lock',
  size: 7,
};
/** Far above the TTL: a takeover within it is the lease expiring, not the wait giving up. */
const WAIT_MS = 20_000;
const namespace = `silo-dead-lock-${process.pid}-${randomBytes(4).toString('hex')}`;
const redisUrl = (() => {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = '/5';
  return url.toString();
})();
const root = fileURLToRoot();

function fileURLToRoot(): string {
  return path.resolve(new URL('.', import.meta.url).pathname, '../..');
}

/** Starts a lock holder process; resolves once it holds `name`. */
async function holder(where: string, name: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/lock-holder.ts', where, namespace, name, String(TTL_MS)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code} before taking the lock`)));
  });
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function suite(label: string, where: () => string, open: () => SiloStorage, skip = false): void {
  describe.skipIf(skip)(label, () => {
    it('a lock whose holder was killed is taken over once its lease expires', async () => {
      const storage = open();
      try {
        const head = await storage.createSilo({ ...SILO, file_uuid: randomUUID() }, '{"v":1}');
        const name = `silo:${head.file_uuid}`;
        const child = await holder(where(), name);
        // A write's commit carries the lock's fence: it fails while the holder is alive.
        const next = { ...head, updated_at: new Date().toISOString(), data: { text: '{"v":2}', size: 7 } };
        const fenced = await storage.locks.withLock(name, (lock) => storage.writeVersion(head, next, 5, lock.fence));
        expect(fenced, 'a commit fenced by a live lease').toBeUndefined();
        // Then the writer waits for the lock: alive, the holder keeps it past the TTL.
        const waitForLock = () =>
          storage.locks.withLock(name, async (lock) => {
            await lock.contended();
            return 'entered';
          });
        const early = await Promise.race([waitForLock(), sleep(TTL_MS * 3).then(() => 'waiting')]);
        expect(early).toBe('waiting');
        const killedAt = performance.now();
        await killed(child);
        // The waiter started above gets in once the dead lease expires (its promise is ignored);
        // a fresh writer too, and long before WAIT_MS.
        await waitForLock();
        const tookOver = performance.now() - killedAt;
        expect(tookOver).toBeLessThan(WAIT_MS / 2);
        // And the write that was fenced goes through under the lock it now holds.
        const written = await storage.locks.withLock(name, async (lock) => {
          await lock.contended();
          return storage.writeVersion(head, next, 5, lock.fence);
        });
        expect(written?.version).toBe(2);
        console.log(`[reliability] ${label}: a lock whose holder got kill -9 was taken over ${Math.round(tookOver)} ms after the kill (lease ${TTL_MS} ms)`);
      } finally {
        await storage.close();
      }
    }, 60_000);
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-dead-lock-'));
const file = path.join(dir, 'silo.sqlite');
const timing = { ttlMs: TTL_MS, waitMs: WAIT_MS };

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  if (!haveRedis) return;
  const cleaner = new Keyv({ store: new KeyvRedis(redisUrl), namespace });
  const client = (await (cleaner.store as KeyvRedis<string>).getClient()) as unknown as { sendCommand(args: string[]): Promise<unknown> };
  const keys = (await client.sendCommand(['KEYS', `${namespace}*`])) as string[];
  if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
  await cleaner.disconnect();
});

suite('SQLite, two processes', () => `sqlite:${file}`, () =>
  createStorage({ main: sqliteKeyv(new SqliteStore({ path: file, table: 'main' })), prefix: namespace, lockTiming: timing }),
);
suite(
  'Redis, two processes',
  () => `redis:${redisUrl}`,
  () => createStorage({ main: new Keyv({ store: new KeyvRedis(redisUrl), namespace }), prefix: namespace, lockTiming: timing }),
  !haveRedis,
);
