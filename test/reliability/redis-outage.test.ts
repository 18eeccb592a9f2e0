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
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isContractError, type Answer } from '../support/http-call.js';
import { haveRedisServer, startOwnRedis, type OwnRedis } from '../support/redis-server.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const canRun = haveRedisServer();
if (!canRun) {
  if (process.env.CI === 'true') throw new Error('redis-server is required in CI for the Redis outage tests');
  console.warn('\n!!! SKIPPING Redis outage tests: no redis-server on PATH !!!\n');
}

/** The limit on any one answer, outage or not (the storage call limit is 5 s). */
const ANSWER_LIMIT_MS = 6000;
/** How soon after Redis is back every request must succeed again. */
const RECOVERY_LIMIT_MS = 5000;
/** Longer than ANSWER_LIMIT_MS, so that a request waiting for more than one storage time limit shows. */
const FREEZE_MS = 7000;

interface Sample {
  op: string;
  start: number;
  end: number;
  status: number;
  answer?: Answer;
  error?: unknown;
}

describe.skipIf(!canRun)('Redis outage under load', () => {
  let redis: OwnRedis;
  let server: SiloServer;
  let keys: { manage: string; access: string };
  let sharedSilo: string;
  let publicSilo: string;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const figures: string[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis();
    server = await startSiloServer({ SILO_STORE_URL: `${redis.url}/0`, SILO_RATE_LIMIT_PER_MINUTE: '1000000' });
    keys = server.banner!;
    const create = async (body: object) => {
      const r = await call(server.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': keys.manage }, body, agent });
      expect(r.status).toBe(201);
      return r.json.file_uuid as string;
    };
    sharedSilo = await create({ file_name: 'shared', file_data: { n: 0 } });
    publicSilo = await create({ file_name: 'public', file_data: [{ a: 1 }], is_public: true });
    // A snapshot, so that a restarted Redis still knows the keys and silos created so far.
    await redis.command(['SAVE']);
  }, 30_000);

  afterAll(async () => {
    agent.destroy();
    await server?.stop();
    await redis?.dispose();
    if (figures.length > 0) console.log(`[reliability] Redis outages under load: ${figures.join('; ')}`);
  }, 20_000);

  /** Requests of every kind from `workers` loops until `stop()`; the samples of all of them. */
  function load(workers: number, patchers = 0) {
    const samples: Sample[] = [];
    let running = true;
    let n = 0;
    const ops: [string, () => Promise<Answer>][] = [
      ['create', () => call(server.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': keys.manage }, body: { file_name: `load ${n++}`, file_data: { n } }, agent, timeoutMs: ANSWER_LIMIT_MS + 2000 })],
      ['patch', () => call(server.port, `/api/v1/manage/${sharedSilo}`, { method: 'PATCH', headers: { 'X-MAN-API': keys.manage }, body: { file_data: { n: n++ } }, agent, timeoutMs: ANSWER_LIMIT_MS + 2000 })],
      ['public read', () => call(server.port, `/public/${publicSilo}`, { agent, timeoutMs: ANSWER_LIMIT_MS + 2000 })],
      ['private query', () => call(server.port, `/${publicSilo}?q=a&value=1`, { headers: { 'X-SILO-KEY': keys.access }, agent, timeoutMs: ANSWER_LIMIT_MS + 2000 })],
      ['list', () => call(server.port, '/api/v1/manage/silos?per_page=5', { headers: { 'X-MAN-API': keys.manage }, agent, timeoutMs: ANSWER_LIMIT_MS + 2000 })],
    ];
    const loops = Array.from({ length: workers + patchers }, async (_, w) => {
      for (let i = w; running; i++) {
        const [op, run] = w >= workers ? ops[1]! : ops[i % ops.length]!;
        const start = performance.now();
        try {
          const answer = await run();
          samples.push({ op, start, end: performance.now(), status: answer.status, answer });
        } catch (error) {
          samples.push({ op, start, end: performance.now(), status: 0, error });
          // A refused connection would spin: the server is gone, which the checks report.
          await sleep(20);
        }
      }
    });
    const probes: Promise<void>[] = [];
    return {
      samples,
      /** One request of every kind, now (each waits on whatever the storage does at this moment). */
      probe() {
        for (const [op, run] of ops) {
          const start = performance.now();
          probes.push(
            run().then(
              (answer) => void samples.push({ op: `${op} (probe)`, start, end: performance.now(), status: answer.status, answer }),
              (error: unknown) => void samples.push({ op: `${op} (probe)`, start, end: performance.now(), status: 0, error }),
            ),
          );
        }
      },
      async stop() {
        running = false;
        await Promise.all([...loops, ...probes]);
        return samples;
      },
    };
  }

  /** Checks every sample of one outage and returns its figures. */
  function judge(samples: Sample[], downAt: number, backAt: number) {
    for (const s of samples) {
      const what = `${s.op} at ${Math.round(s.start - downAt)} ms from the fault: ${s.status} ${s.answer?.text ?? String(s.error)}`;
      expect(s.error, what).toBeUndefined();
      expect(s.end - s.start, what).toBeLessThanOrEqual(ANSWER_LIMIT_MS);
      expect(s.status === 503 || (s.status >= 200 && s.status < 300), what).toBe(true);
      if (s.status === 503) {
        expect(isContractError(s.answer!.json), what).toBe(true);
        expect(s.answer!.headers['retry-after'], what).toBeDefined();
      }
    }
    // Sent while Redis was away: 503, unless the answer came after it was back.
    const during = samples.filter((s) => s.end > downAt && s.start < backAt);
    expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    for (const s of during) if (s.start > downAt + 200 && s.end < backAt) expect(s.status, `${s.op} during the outage`).toBe(503);
    // Recovered: the last failure ends within the limit of Redis being back, and requests succeed after it.
    const failures = samples.filter((s) => s.status !== 200 && s.status !== 201);
    const lastFailureEnd = Math.max(backAt, ...failures.map((s) => s.end));
    const recoveryMs = lastFailureEnd - backAt;
    expect(recoveryMs, 'time from Redis back to the last failed request').toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
    const after = samples.filter((s) => s.start > lastFailureEnd);
    expect(after.length, 'requests after recovery').toBeGreaterThan(20);
    expect(server.alive()).toBe(true);
    return {
      requests: samples.length,
      unavailable: failures.length,
      slowestMs: Math.round(Math.max(...samples.map((s) => s.end - s.start))),
      recoveryMs: Math.round(recoveryMs),
    };
  }

  /** Waits until every request of 1 s after Redis is back succeeded (at most `RECOVERY_LIMIT_MS` + 3 s). */
  async function untilSteady(samples: Sample[], backAt: number): Promise<void> {
    const deadline = backAt + RECOVERY_LIMIT_MS + 3000;
    while (performance.now() < deadline) {
      await sleep(100);
      const recent = samples.filter((s) => s.start > performance.now() - 1000);
      const lastFailure = Math.max(0, ...samples.filter((s) => s.status !== 200 && s.status !== 201).map((s) => s.end));
      if (recent.length > 10 && lastFailure < performance.now() - 1000) return;
    }
  }

  it('answers 503 JSON within 6 s while Redis is killed, and recovers by itself when it restarts', async () => {
    const traffic = load(8);
    await sleep(500);
    const downAt = performance.now();
    await redis.kill();
    await sleep(100);
    traffic.probe();
    await sleep(1900);
    const ready = await call(server.port, '/readyz', { timeoutMs: 3000 });
    expect(ready.status).toBe(503);
    await redis.start();
    const backAt = performance.now();
    await untilSteady(traffic.samples, backAt);
    const result = judge(await traffic.stop(), downAt, backAt);
    expect((await call(server.port, '/readyz')).status).toBe(200);
    // What was there before the crash is there after it.
    const read = await call(server.port, `/public/${publicSilo}`);
    expect(read.json).toEqual([{ a: 1 }]);
    figures.push(
      `killed and restarted: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after restart`,
    );
  }, 30_000);

  it('answers 503 JSON within 6 s while Redis hangs (SIGSTOP), and recovers by itself when it resumes', async () => {
    // Writers of one silo queue for its lock: a queue must not add up their waits.
    const traffic = load(8, 8);
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
    const result = judge(await traffic.stop(), downAt, backAt);
    figures.push(
      `frozen ${FREEZE_MS / 1000} s: ${result.requests} requests, ${result.unavailable} answered 503, slowest ${result.slowestMs} ms, recovered ${result.recoveryMs} ms after resume`,
    );
  }, 40_000);
});
