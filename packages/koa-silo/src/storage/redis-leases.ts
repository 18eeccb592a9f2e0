/**
 * Leases on Redis: `SET key token NX PX ttl` to take, scripts that extend or delete the key only
 * while it still holds our token.
 */
import type { LeaseStore } from './lease-locks.js';
import type { RedisNative } from './redis-native.js';

const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** How long a holder waits for Redis to confirm a release before answering anyway. */
const RELEASE_WAIT_MS = 250;

export class RedisLeases implements LeaseStore {
  constructor(private readonly redis: RedisNative) {}

  async take(key: string, token: string, ttlMs: number): Promise<boolean> {
    const raw = this.redis.redisKey(key);
    try {
      return (await this.redis.send(['SET', raw, token, 'NX', 'PX', String(ttlMs)], raw)) === 'OK';
    } catch (error) {
      // A SET that timed out on a Redis that hangs still runs when it resumes, and would hold
      // the lock for nobody until its TTL: the release queued behind it frees it at once.
      void this.release(key, token);
      throw error;
    }
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.script(RENEW_SCRIPT, [this.redis.redisKey(key)], [token, String(ttlMs)])) === 1;
  }

  /**
   * Waits (up to RELEASE_WAIT_MS) for Redis to confirm: a response sent before the release
   * reached Redis would, if the process died right then, leave an acknowledged write's lock
   * taken until its TTL. The wait is bounded so that a Redis that has just stopped answering
   * does not hold a finished write's response for a second storage time limit.
   */
  async release(key: string, token: string): Promise<void> {
    const released = this.redis.script(RELEASE_SCRIPT, [this.redis.redisKey(key)], [token]).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, RELEASE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([released, waited]);
    clearTimeout(timer);
  }
}
