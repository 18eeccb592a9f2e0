/**
 * The rate limits' counters on PostgreSQL counted per turn (http/postgres-counters.ts), against a
 * schema of this run: the same counts, rows and answers as rate-limiter-flexible's own upserts.
 */
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresAvailable, testSchema, type TestSchema } from '../../../test/support/postgres.js';
import { BatchedPostgresLimiter } from '../src/http/postgres-counters.js';

const havePostgres = await postgresAvailable();
const schema: TestSchema | undefined = havePostgres ? await testSchema('counters') : undefined;
const TABLE = 'silo_rate_limits';

afterAll(async () => {
  await schema?.drop();
});

/** The pool's statements, counted while `work` runs. */
async function counted<T>(pool: pg.Pool, work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const query = pool.query.bind(pool);
  pool.query = ((...args: Parameters<typeof query>) => {
    statements++;
    return query(...args);
  }) as typeof pool.query;
  try {
    return { result: await work(), statements };
  } finally {
    pool.query = query;
  }
}

/** Consumed points of each call, a refusal as its negative. */
async function consumedEach(calls: Promise<RateLimiterRes>[]): Promise<number[]> {
  const settled = await Promise.allSettled(calls);
  return settled.map((s) => {
    if (s.status === 'fulfilled') return s.value.consumedPoints;
    if (s.reason instanceof RateLimiterRes) return -s.reason.consumedPoints;
    throw s.reason;
  });
}

describe.skipIf(!havePostgres)('rate-limit counters on PostgreSQL, counted per turn', () => {
  const options = (keyPrefix: string, points = 5) => ({ storeClient: schema!.pool, tableName: TABLE, tableCreated: true, points, duration: 60, keyPrefix });

  it('counts a turn of consumes in one statement, each as if they had come one after another, in the table rate-limiter-flexible reads', async () => {
    const pool = schema!.pool;
    await pool.query(`CREATE TABLE IF NOT EXISTS "${TABLE}" (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    const plan = new BatchedPostgresLimiter(options('plan'));
    const accounts = new BatchedPostgresLimiter(options('accounts', 2));
    const { result, statements } = await counted(pool, () =>
      consumedEach([plan.consume('key1'), accounts.consume('acme'), plan.consume('key1'), plan.consume('key2'), accounts.consume('acme'), accounts.consume('acme')]),
    );
    expect(statements).toBe(1);
    // The third consume of a 2-point account limit is refused; remaining counts as for one at a time.
    expect(result).toEqual([1, 1, 2, 1, 2, -3]);
    const remaining = await plan.consume('key1');
    expect([remaining.consumedPoints, remaining.remainingPoints]).toEqual([3, 2]);
    expect(remaining.msBeforeNext).toBeGreaterThan(58_000);
    // rate-limiter-flexible's own limiter reads and counts the same rows.
    const theirs = new RateLimiterPostgres(options('plan'));
    expect((await theirs.consume('key1')).consumedPoints).toBe(4);
    expect((await plan.consume('key1')).consumedPoints).toBe(5);
    await expect(plan.consume('key1')).rejects.toBeInstanceOf(RateLimiterRes);
  });

  it('counts a key the table refuses (NUL, over 255 characters) on its own: its failure is not the turn’s', async () => {
    const plan = new BatchedPostgresLimiter(options('refused'));
    const settled = await Promise.allSettled([plan.consume('ok'), plan.consume('bad\0'), plan.consume('x'.repeat(300)), plan.consume('ok')]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<RateLimiterRes>).value.consumedPoints)).toEqual([1, 2]);
  });

  it('starts a counter whose window has passed from this turn’s consumes', async () => {
    const pool = schema!.pool;
    const plan = new BatchedPostgresLimiter(options('window'));
    expect(await consumedEach([plan.consume('k'), plan.consume('k'), plan.consume('k')])).toEqual([1, 2, 3]);
    await pool.query(`UPDATE "${TABLE}" SET expire = $1 WHERE key = 'window:k'`, [Date.now() - 1]);
    expect(await consumedEach([plan.consume('k'), plan.consume('k')])).toEqual([1, 2]);
    const { rows } = await pool.query<{ points: number; expire: string }>(`SELECT points, expire FROM "${TABLE}" WHERE key = 'window:k'`);
    expect(rows[0]!.points).toBe(2);
    expect(Number(rows[0]!.expire)).toBeGreaterThan(Date.now() + 58_000);
  });
});
