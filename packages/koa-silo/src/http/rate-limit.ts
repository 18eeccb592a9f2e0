/**
 * Contract §6: requests per client per minute, by plan, with rate-limiter-flexible in memory, on
 * Redis or on PostgreSQL. Every limited response carries RateLimit-Limit/Remaining/Reset; over the limit is a 429
 * with Retry-After. A plan with `rateLimitPerMinute: 0` is not limited (and gets no headers).
 */
import type { Context } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore, SiloLogger } from '../options.js';
import { type Plan, planNamed } from '../model/index.js';
import { TooManyRequestsError } from './errors.js';
import { BatchedPostgresLimiter, isPostgresQueryable } from './postgres-counters.js';

const WINDOW_SECONDS = 60;

/** The table of counters on PostgreSQL, unless the options name another. */
export const DEFAULT_RATE_LIMIT_TABLE = 'silo_rate_limits';

/**
 * How long a request waits for its Redis (or PostgreSQL) counter. A Redis that hangs (frozen, or a network that
 * drops packets without a reset) keeps its connection "ready", so rate-limiter-flexible would wait
 * for as long as it hangs, and an anonymous public read, limited before any storage call, with it.
 * After this (a healthy Redis answers in a millisecond), the request is counted in this process
 * instead, as while Redis is away; so it adds at most this to a request's storage time limit.
 */
const REDIS_COUNTER_TIMEOUT_MS = 500;

export interface RateLimit {
  /** Count one request of `client` under `plan`; throws TooManyRequestsError over the limit. */
  consume(ctx: Context, client: string, planName: string): Promise<void>;
  /**
   * Count one request of `account` under its plan's account limit, beside its key's (contract
   * §17); throws TooManyRequestsError over it. Sets no RateLimit headers: they describe the key's.
   */
  consumeAccount(account: string, planName: string): Promise<void>;
  /**
   * Count one event of `client` in `counter` (a window of `windowSeconds`) and say how many the
   * window holds now, this one included; never refuses. The measure of a slow-down, shared by
   * every instance as the rate limits are. 0 when the counter store fails (no slow-down then).
   */
  count(client: string, counter: string, windowSeconds: number): Promise<number>;
}

export function createRateLimit(store: RateLimitStore, plans: Record<string, Plan>, logger: SiloLogger): RateLimit {
  const limiters = new Map<string, RateLimiterAbstract>();

  const limiterOf = (planName: string, points: number, duration = WINDOW_SECONDS): RateLimiterAbstract => {
    let limiter = limiters.get(planName);
    if (limiter) return limiter;
    const keyPrefix = `${'redis' in store ? (store.keyPrefix ?? 'silo:rl') : 'silo:rl'}:${planName}`;
    const options = { points, duration, keyPrefix };
    if ('redis' in store) {
      // While Redis is away, count in this process rather than refuse or stop limiting.
      const insuranceLimiter = new RateLimiterMemory(options);
      const redis = new RateLimiterRedis({
        ...options,
        storeClient: store.redis,
        useRedisPackage: true,
        rejectIfRedisNotReady: true,
        insuranceLimiter,
      });
      limiter = new RLWrapperTimeouts({ limiter: redis, timeoutMs: REDIS_COUNTER_TIMEOUT_MS, insuranceLimiter });
    } else if ('postgres' in store) {
      const insuranceLimiter = new RateLimiterMemory(options);
      const client = store.postgres;
      const postgresOptions = { ...options, tableName: store.tableName ?? DEFAULT_RATE_LIMIT_TABLE, tableCreated: store.tableCreated ?? false, insuranceLimiter };
      const ready = (error?: unknown) => {
        if (error) logger.error('silo: the rate-limit table could not be made; counting in this process', error);
      };
      // A pg Pool (or Client): its counters counted per turn; any other client rate-limiter-flexible takes, one by one.
      const postgres = isPostgresQueryable(client)
        ? new BatchedPostgresLimiter({ ...postgresOptions, storeClient: client }, ready)
        : new RateLimiterPostgres({ ...postgresOptions, storeClient: client }, ready);
      limiter = new RLWrapperTimeouts({ limiter: postgres, timeoutMs: REDIS_COUNTER_TIMEOUT_MS, insuranceLimiter });
    } else {
      limiter = new RateLimiterMemory(options);
    }
    limiters.set(planName, limiter);
    return limiter;
  };

  return {
    async consume(ctx, client, planName) {
      const plan = planNamed(plans, planName);
      if (plan.rateLimitPerMinute === 0) return;
      const limiter = limiterOf(plans[planName] ? planName : 'default', plan.rateLimitPerMinute);
      let res: RateLimiterRes;
      let limited = false;
      try {
        res = await limiter.consume(client);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) {
          // The counter store failed even with insurance: serve rather than refuse everyone.
          logger.error('silo: rate limiter failed, request not counted', rejection);
          return;
        }
        res = rejection;
        limited = true;
      }
      const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      ctx.set('RateLimit-Limit', String(plan.rateLimitPerMinute));
      ctx.set('RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
      ctx.set('RateLimit-Reset', String(reset));
      if (limited) throw new TooManyRequestsError(reset);
    },

    async consumeAccount(account, planName) {
      const known = plans[planName] ? planName : 'default';
      const points = plans[known]!.accountRateLimitPerMinute ?? 0;
      if (points === 0) return;
      // A limiter of its own name: plan names cannot contain a space.
      try {
        await limiterOf(`${known} accounts`, points).consume(account);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) {
          logger.error('silo: rate limiter failed, request not counted', rejection);
          return;
        }
        throw new TooManyRequestsError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
    },

    async count(client, counter, windowSeconds) {
      // Its own name, apart from the plans': a plan may be called anything.
      const limiter = limiterOf(`count:${counter}`, Number.MAX_SAFE_INTEGER, windowSeconds);
      try {
        return (await limiter.consume(client)).consumedPoints;
      } catch (error) {
        logger.error('silo: counter failed, event not counted', error);
        return 0;
      }
    },
  };
}
