/**
 * A `silo serve` process on PostgreSQL (a schema of its own in the test database) reached
 * through a TCP proxy of the test's own, under steady load while the database fails for it (the
 * shared PostgreSQL itself is never touched):
 *
 * - gone: every connection reset and new ones refused, then back;
 * - hang: nothing read or answered, connections open, then resumed.
 *
 * Every request answers within 6 s, with 503 JSON while the database is away and never a 500; the
 * process keeps running; within 5 s of the database returning, every request succeeds again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http-call.js';
import { judge, load, startOutageTarget, stopOutageTarget, untilSteady, type OutageTarget } from '../support/outage-load.js';
import { postgresAvailable, TEST_POSTGRES_URL, testSchema, type TestSchema } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const havePostgres = await postgresAvailable();

/** Longer than the answer limit (6 s), so that a request waiting for more than one storage time limit shows. */
const HANG_MS = 7000;
const GONE_MS = 2000;

describe.skipIf(!havePostgres)('PostgreSQL outage under load', () => {
  let schema: TestSchema;
  let proxy: TcpProxy;
  let target: OutageTarget;
  const figures: string[] = [];

  beforeAll(async () => {
    schema = await testSchema('outage');
    const db = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) });
    target = await startOutageTarget({ SILO_STORE_URL: schema.storeUrl(proxy.port) });
  }, 30_000);

  afterAll(async () => {
    await stopOutageTarget(target);
    await proxy?.close();
    await schema?.drop();
    if (figures.length > 0) console.log(`[reliability] PostgreSQL outages under load: ${figures.join('; ')}`);
  }, 20_000);

  it('answers 503 JSON within 6 s while the database is gone, and recovers by itself when it is back', async () => {
    const traffic = load(target, 8);
    await sleep(500);
    const downAt = performance.now();
    proxy.cut();
    await sleep(100);
    traffic.probe();
    await sleep(GONE_MS - 100);
    const ready = await call(target.server.port, '/readyz', { timeoutMs: 3000 });
    expect(ready.status).toBe(503);
    proxy.restore();
    const backAt = performance.now();
    await untilSteady(traffic.samples, backAt);
    const result = judge(target.server, await traffic.stop(), downAt, backAt);
    expect((await call(target.server.port, '/readyz')).status).toBe(200);
    expect((await call(target.server.port, `/public/${target.publicSilo}`)).json).toEqual([{ a: 1 }]);
    figures.push(
      `gone ${GONE_MS / 1000} s: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after it was back`,
    );
  }, 30_000);

  it('answers 503 JSON within 6 s while the database hangs, and recovers by itself when it resumes', async () => {
    const traffic = load(target, 8, 8);
    await sleep(500);
    const downAt = performance.now();
    proxy.freeze();
    try {
      await sleep(100);
      traffic.probe();
      await sleep(HANG_MS - 100);
    } finally {
      proxy.restore();
    }
    const backAt = performance.now();
    await untilSteady(traffic.samples, backAt);
    const result = judge(target.server, await traffic.stop(), downAt, backAt);
    figures.push(
      `hung ${HANG_MS / 1000} s: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after it resumed`,
    );
  }, 40_000);
});
