/**
 * The silo locks of koa-silo's storage on a Redis that hangs (SIGSTOP on a redis-server of the
 * test's own): writers queued behind a holder fail with it, in one storage time limit rather than
 * one each; and a lock whose SET timed out but ran when Redis resumed is freed at once, not after
 * its TTL (which would refuse every write of that silo, on every instance, for 15 s).
 */
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../packages/koa-silo/src/model/index.js';
import { createStorage } from '../../packages/koa-silo/src/storage/index.js';
import type { SiloStorage } from '../../packages/koa-silo/src/storage/types.js';
import { haveRedisServer, startOwnRedis, type OwnRedis } from '../support/redis-server.js';

const canRun = haveRedisServer();
if (!canRun && process.env.CI === 'true') throw new Error('redis-server is required in CI for the lock outage tests');

const TIMEOUT_MS = 400;

describe.skipIf(!canRun)('silo locks while Redis hangs', () => {
  let redis: OwnRedis;
  let one: SiloStorage;
  let two: SiloStorage;

  beforeAll(async () => {
    redis = await startOwnRedis();
    const storage = () =>
      createStorage({
        main: new Keyv({ store: new KeyvRedis(redis.url), namespace: 'locks' }),
        timeoutMs: TIMEOUT_MS,
        lockTiming: { ttlMs: 15_000, waitMs: 3000 },
      });
    one = storage();
    two = storage();
    // Connected before the freeze, as a running server is.
    await one.locks.withLock('warm', async () => undefined);
    await two.locks.withLock('warm', async () => undefined);
  }, 20_000);

  afterAll(async () => {
    redis?.signal('SIGCONT');
    await one?.close();
    await two?.close();
    await redis?.dispose();
  });

  it('fails 20 queued writers within about one storage time limit, then frees the lock as soon as Redis resumes', async () => {
    redis.signal('SIGSTOP');
    let results: PromiseSettledResult<string>[];
    const started = performance.now();
    try {
      // Writers whose commits lost take the shared lock: the first one's SET meets the freeze.
      results = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          one.locks.withLock('silo:x', async (lock) => {
            await lock.contended();
            return 'ran';
          }),
        ),
      );
    } finally {
      redis.signal('SIGCONT');
    }
    const elapsed = performance.now() - started;
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StorageUnavailableError);
    }
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 3);

    // The SET sent during the freeze ran on resume; its release, queued behind it, freed the lock.
    const taken = performance.now();
    const taker = two.locks.withLock('silo:x', async (lock) => {
      await lock.contended();
      return lock.fence().length === 0 ? 'held' : 'not held';
    });
    await expect(taker).resolves.toBe('held');
    expect(performance.now() - taken).toBeLessThan(1000);
    console.log(
      `[reliability] locks on a hanging Redis: 20 queued writers failed together in ${Math.round(elapsed)} ms (time limit ${TIMEOUT_MS} ms); ` +
        `lock free again ${Math.round(performance.now() - taken)} ms after resume`,
    );
  }, 20_000);
});
