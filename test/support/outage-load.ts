/**
 * Steady load on a `silo serve` while its storage fails, and the checks every outage test makes
 * (test/reliability/redis-outage.test.ts, postgres-outage.test.ts): every request answers within
 * ANSWER_LIMIT_MS, 503 JSON with Retry-After while the storage is away and never a 500; the
 * process keeps running; within RECOVERY_LIMIT_MS of the storage returning, requests succeed.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { call, isContractError, type Answer } from './http-call.js';
import { startSiloServer, type SiloServer } from './silo-server.js';

/** The limit on any one answer, outage or not (the storage call limit is 5 s). */
export const ANSWER_LIMIT_MS = 6000;
/** How soon after the storage is back every request must succeed again. */
export const RECOVERY_LIMIT_MS = 5000;

export interface Sample {
  op: string;
  start: number;
  end: number;
  status: number;
  answer?: Answer;
  error?: unknown;
}

export interface OutageTarget {
  server: SiloServer;
  keys: { manage: string; access: string };
  sharedSilo: string;
  publicSilo: string;
  agent: http.Agent;
}

/** `silo serve` on the store of `env` (rate limit out of the way), with a silo to write and a public one to read. */
export async function startOutageTarget(env: Record<string, string>): Promise<OutageTarget> {
  const server = await startSiloServer({ ...env, SILO_RATE_LIMIT_PER_MINUTE: '1000000' });
  const keys = server.banner!;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const create = async (body: object) => {
    const r = await call(server.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': keys.manage }, body, agent });
    expect(r.status).toBe(201);
    return r.json.file_uuid as string;
  };
  const sharedSilo = await create({ file_name: 'shared', file_data: { n: 0 } });
  const publicSilo = await create({ file_name: 'public', file_data: [{ a: 1 }], is_public: true });
  return { server, keys, sharedSilo, publicSilo, agent };
}

/** Stops what startOutageTarget started. */
export async function stopOutageTarget(target: OutageTarget | undefined): Promise<void> {
  target?.agent.destroy();
  await target?.server.stop();
}

/** Requests of every kind from `workers` loops until `stop()`; the samples of all of them. */
export function load({ server, keys, sharedSilo, publicSilo, agent }: OutageTarget, workers: number, patchers = 0) {
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
export function judge(server: SiloServer, samples: Sample[], downAt: number, backAt: number) {
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
  // Sent while the storage was away: 503, unless the answer came after it was back.
  const during = samples.filter((s) => s.end > downAt && s.start < backAt);
  expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
  for (const s of during) if (s.start > downAt + 200 && s.end < backAt) expect(s.status, `${s.op} during the outage`).toBe(503);
  // Recovered: the last failure ends within the limit of the storage being back, and requests succeed after it.
  const failures = samples.filter((s) => s.status !== 200 && s.status !== 201);
  const lastFailureEnd = Math.max(backAt, ...failures.map((s) => s.end));
  const recoveryMs = lastFailureEnd - backAt;
  expect(recoveryMs, 'time from the storage back to the last failed request').toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
  const after = samples.filter((s) => s.start > lastFailureEnd);
  expect(after.length, 'requests after recovery').toBeGreaterThanOrEqual(STEADY_REQUESTS);
  expect(server.alive()).toBe(true);
  return {
    requests: samples.length,
    unavailable: failures.length,
    slowestMs: Math.round(Math.max(...samples.map((s) => s.end - s.start))),
    recoveryMs: Math.round(recoveryMs),
  };
}

/** How many requests must succeed after the last failure (and over at least 1 s) for the load to count as steady. */
const STEADY_REQUESTS = 20;

/**
 * Waits until the requests of at least 1 s, and at least STEADY_REQUESTS of them, succeeded after
 * the last failure (at most `RECOVERY_LIMIT_MS` + 3 s after the storage is back). What judge asks
 * for, so that a slow load (a hung store leaves few requests in flight) is waited for, not failed.
 */
export async function untilSteady(samples: Sample[], backAt: number): Promise<void> {
  const deadline = backAt + RECOVERY_LIMIT_MS + 3000;
  while (performance.now() < deadline) {
    await sleep(100);
    const lastFailure = Math.max(0, ...samples.filter((s) => s.status !== 200 && s.status !== 201).map((s) => s.end));
    const since = samples.filter((s) => s.start > lastFailure).length;
    if (since >= STEADY_REQUESTS && lastFailure < performance.now() - 1000) return;
  }
}
