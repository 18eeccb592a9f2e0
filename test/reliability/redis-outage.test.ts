/**
 * A `silo serve` process on a redis-server of the test's own (a spare port; the shared Redis is
 * never touched), under steady load while that Redis fails:
 *
 * - crash: SIGKILL, then a restart on the same port (loading the snapshot taken before the load);
 * - freeze: SIGSTOP (the connection stays open, nothing answers), then SIGCONT.
 *
 * Every request answers within 6 s, with 503 JSON while the storage is away and never a 500; the
 * process keeps running; within 5 s of Redis returning, every request succeeds again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http-call.js';
import { judge, load, startOutageTarget, stopOutageTarget, untilSteady, type OutageTarget } from '../support/outage-load.js';
import { haveRedisServer, startOwnRedis, type OwnRedis } from '../support/redis-server.js';

const canRun = haveRedisServer();
if (!canRun) {
  if (process.env.CI === 'true') throw new Error('redis-server is required in CI for the Redis outage tests');
  console.warn('\n!!! SKIPPING Redis outage tests: no redis-server on PATH !!!\n');
}

/** Longer than the answer limit (6 s), so that a request waiting for more than one storage time limit shows. */
const FREEZE_MS = 7000;

describe.skipIf(!canRun)('Redis outage under load', () => {
  let redis: OwnRedis;
  let target: OutageTarget;
  const figures: string[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis();
    target = await startOutageTarget({ SILO_STORE_URL: `${redis.url}/0` });
    // A snapshot, so that a restarted Redis still knows the keys and silos created so far.
    await redis.command(['SAVE']);
  }, 30_000);

  afterAll(async () => {
    await stopOutageTarget(target);
    await redis?.dispose();
    if (figures.length > 0) console.log(`[reliability] Redis outages under load: ${figures.join('; ')}`);
  }, 20_000);

  it('answers 503 JSON within 6 s while Redis is killed, and recovers by itself when it restarts', async () => {
    const traffic = load(target, 8);
    await sleep(500);
    const downAt = performance.now();
    await redis.kill();
    await sleep(100);
    traffic.probe();
    await sleep(1900);
    const ready = await call(target.server.port, '/readyz', { timeoutMs: 3000 });
    expect(ready.status).toBe(503);
    await redis.start();
    const backAt = performance.now();
    await untilSteady(traffic.samples, backAt);
    const result = judge(target.server, await traffic.stop(), downAt, backAt);
    expect((await call(target.server.port, '/readyz')).status).toBe(200);
    // What was there before the crash is there after it.
    const read = await call(target.server.port, `/public/${target.publicSilo}`);
    expect(read.json).toEqual([{ a: 1 }]);
    figures.push(
      `killed and restarted: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after restart`,
    );
  }, 30_000);

  it('answers 503 JSON within 6 s while Redis hangs (SIGSTOP), and recovers by itself when it resumes', async () => {
    // Writers of one silo queue for its lock: a queue must not add up their waits.
    const traffic = load(target, 8, 8);
    await sleep(500);
    const downAt = performance.now();
    redis.signal('SIGSTOP');
    try {
      await sleep(100);
      traffic.probe();
      await sleep(FREEZE_MS - 100);
    } finally {
      redis.signal('SIGCONT');
    }
    const backAt = performance.now();
    await untilSteady(traffic.samples, backAt);
    const result = judge(target.server, await traffic.stop(), downAt, backAt);
    figures.push(
      `frozen ${FREEZE_MS / 1000} s: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after resume`,
    );
  }, 40_000);
});
