/**
 * Rate limits as a client sees them, under concurrent bursts: exactly the budget gets through,
 * everything over it is a 429 with Retry-After and the RateLimit headers, every client (key, or
 * address for public reads) has its own budget; in one process (memory) and across two
 * `silo serve` processes on one Redis (database 13, emptied before and after) and on one PostgreSQL
 * database (a schema of this run), where the budget is shared by both.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isContractError, type Answer, keptAliveAgent } from '../support/http-call.js';
import { startInProcess, type InProcessSilo, type TestAccount } from '../support/in-process.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { redisAvailable } from '../support/redis.js';
import { postgresAvailable, testSchema, type TestSchema } from '../support/postgres.js';
import { clusterAvailable, clusterForSuite } from '../support/redis-cluster.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const haveRedis = await redisAvailable();
const haveCluster = clusterAvailable();
const havePostgres = await postgresAvailable();
const DB = 13;
const BUDGET = 10;
const figures: string[] = [];

afterAll(() => {
  if (figures.length > 0) console.log(`[reliability] rate limits: ${figures.join('; ')}`);
});

/** What every answer of a limited client must show; returns the statuses. */
function judgeBurst(answers: Answer[], budget: number): { ok: number; limited: number } {
  const ok = answers.filter((a) => a.status < 400);
  const limited = answers.filter((a) => a.status === 429);
  expect(ok.length + limited.length, answers.map((a) => `${a.status} ${a.text}`).join('\n').slice(0, 500)).toBe(answers.length);
  expect(ok).toHaveLength(budget);
  // Counted one by one: each remaining count from budget-1 down to 0 is handed out once.
  expect(ok.map((a) => Number(a.headers['ratelimit-remaining'])).sort((x, y) => x - y)).toEqual(Array.from({ length: budget }, (_, i) => i));
  for (const a of answers) {
    expect(a.headers['ratelimit-limit']).toBe(String(budget));
    const reset = Number(a.headers['ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  }
  for (const a of limited) {
    expect(isContractError(a.json)).toBe(true);
    expect(a.headers['ratelimit-remaining']).toBe('0');
    const retry = Number(a.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(a.headers['ratelimit-reset']).toBe(String(retry));
  }
  return { ok: ok.length, limited: limited.length };
}

describe('rate limit in one process (memory)', () => {
  let s: InProcessSilo;
  let alice: TestAccount;
  let bob: TestAccount;
  let uuid: string;

  beforeAll(async () => {
    // Each key's budget alone: the account's (four keys' worth by default) is another test's.
    s = await startInProcess({ plans: { default: { maxDataBytes: 10_000, rateLimitPerMinute: BUDGET, accountRateLimitPerMinute: 0 } } });
    [alice, bob] = await Promise.all([s.account('alice'), s.account('bob')]);
    uuid = (await s.silo.silos.create('alice', { file_name: 'p', file_data: { a: 1 }, is_public: true })).file_uuid;
  });
  afterAll(() => s?.close());

  it('lets exactly the budget of a concurrent burst through, per client, with 429 and the headers beyond it', async () => {
    const burst = (make: () => Promise<Answer>) => Promise.all(Array.from({ length: 4 * BUDGET }, make));
    // Four clients at once: two manage keys, one access key, and the anonymous address.
    const [a, b, reads, anonymous] = await Promise.all([
      burst(() => call(s.port, '/api/v1/manage/silos', { headers: { 'X-MAN-API': alice.manage } })),
      burst(() => call(s.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': bob.manage }, body: { file_name: 'b', file_data: {} } })),
      burst(() => call(s.port, `/${uuid}`, { headers: { 'X-SILO-KEY': alice.access } })),
      burst(() => call(s.port, `/public/${uuid}`)),
    ]);
    for (const answers of [a, b, reads, anonymous]) judgeBurst(answers, BUDGET);
    // Bob's burst created exactly as many silos as it was let through.
    expect((await s.silo.silos.list('bob', 1, 100)).metadata.total_items).toBe(BUDGET);
    // Over budget, a client stays refused; another key of the same account still has its own budget.
    expect((await call(s.port, '/api/v1/manage/silos', { headers: { 'X-MAN-API': alice.manage } })).status).toBe(429);
    const spare = await s.silo.accounts.createKey({ account: 'alice', type: 'manage', name: 'spare' });
    expect((await call(s.port, '/api/v1/manage/silos', { headers: { 'X-MAN-API': spare.key } })).status).toBe(200);
    figures.push(`in one process, 4 clients each bursting ${4 * BUDGET} requests at a budget of ${BUDGET}: exactly ${BUDGET} each through, the rest 429`);
  });
});

/** One budget per client shared by two processes on one store: `open` empties it and names it. */
function sharedBudget(store: string, skip: boolean, open: () => Promise<string>, close: () => Promise<void>) {
  describe.skipIf(skip)(`rate limit shared by two processes on one ${store}`, () => {
    const servers: SiloServer[] = [];
    const agents = [keptAliveAgent(), keptAliveAgent()];
    let keys: { manage: string; access: string };

    beforeAll(async () => {
      const env = { SILO_STORE_URL: await open(), SILO_RATE_LIMIT_PER_MINUTE: String(BUDGET), SILO_ACCOUNT_RATE_LIMIT_PER_MINUTE: '0' };
      servers.push(...(await Promise.all([startSiloServer(env), startSiloServer(env)])));
      keys = servers.find((s) => s.banner)!.banner!;
    }, 30_000);

    afterAll(async () => {
      for (const agent of agents) agent.destroy();
      await Promise.all(servers.map((s) => s.stop()));
      if (!skip) await close();
    }, 20_000);

    it('counts one budget per client across both processes', async () => {
      const on = (i: number, path: string, options: Parameters<typeof call>[2] = {}) => call(servers[i % 2]!.port, path, { agent: agents[i % 2]!, ...options });
      const burst = (make: (i: number) => Promise<Answer>) => Promise.all(Array.from({ length: 4 * BUDGET }, (_, i) => make(i)));
      const [manage, access, anonymous] = await Promise.all([
        burst((i) => on(i, '/api/v1/manage/silos', { headers: { 'X-MAN-API': keys.manage } })),
        burst((i) => on(i, '/00000000-0000-4000-8000-000000000000', { headers: { 'X-SILO-KEY': keys.access } })),
        burst((i) => on(i, '/public/00000000-0000-4000-8000-000000000000')),
      ]);
      // The access key reads a silo that does not exist: 404 is its "through".
      for (const answers of [manage, anonymous, access]) {
        judgeBurst(answers.map((a) => (a.status === 404 ? { ...a, status: 200 } : a)), BUDGET);
      }
      // Both processes answered 429 to the same client: the count is shared, not per process.
      for (const answers of [manage, access, anonymous]) {
        const limitedOn = new Set(answers.map((a, i) => (a.status === 429 ? i % 2 : -1)).filter((n) => n >= 0));
        expect(limitedOn).toEqual(new Set([0, 1]));
      }
      figures.push(`across 2 processes on ${store}, 3 clients each bursting ${4 * BUDGET} requests split over both at a budget of ${BUDGET}: exactly ${BUDGET} each through in total`);
    }, 30_000);
  });
}

sharedBudget(
  'Redis',
  !haveRedis,
  async () => {
    await flushDb(DB);
    return redisDbUrl(DB);
  },
  () => flushDb(DB),
);

let schema: TestSchema | undefined;
sharedBudget(
  'PostgreSQL',
  !havePostgres,
  async () => {
    schema = await testSchema('ratelimit');
    return schema.storeUrl();
  },
  async () => {
    await schema?.drop();
  },
);

const cluster = clusterForSuite();
sharedBudget('Redis Cluster', !haveCluster, cluster.open, cluster.close);
