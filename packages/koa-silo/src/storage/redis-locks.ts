/**
 * Locks shared by every process on one Redis: `SET key token NX PX ttl` to take, a script that
 * deletes the key only if it still holds our token to give back.
 *
 * Within one process, callers first queue on an in-process mutex, so only one of them at a time
 * polls Redis: 100 concurrent writers of one silo cost one poller per process, not 100. When the
 * holder meets a storage outage, the callers queued behind it fail with it at once (503) rather
 * than each waiting out the storage time limit in turn.
 *
 * The lock expires after `ttlMs` so that a crashed holder cannot block a silo forever. A holder
 * runs at most a few storage calls, each bounded by the storage time limit, so the default TTL
 * (15 s, three times the default call limit) is not reached by a live holder.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageUnavailableError } from '../errors.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { RedisNative } from './redis-native.js';
import type { StorageKeys } from './storage-keys.js';
import type { Locks } from './types.js';

/** How long a holder waits for Redis to confirm a release before answering anyway. */
const RELEASE_WAIT_MS = 250;

const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface LockTiming {
  /** How long a taken lock lives if its holder never gives it back. */
  ttlMs: number;
  /** How long a caller waits for a lock before giving up with a 503. */
  waitMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { ttlMs: 15_000, waitMs: 10_000 };

export class RedisLocks implements Locks {
  readonly #local = new KeyedMutex((error) => error instanceof StorageUnavailableError);

  constructor(
    private readonly redis: RedisNative,
    private readonly keys: StorageKeys,
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
  ) {}

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#local.withLock(name, async () => {
      const key = this.redis.redisKey(this.keys.lock(name));
      const token = randomBytes(12).toString('base64url');
      await this.#acquire(key, token);
      try {
        return await fn();
      } finally {
        await this.#release(key, token);
      }
    });
  }

  /**
   * Gives the lock back, and waits (up to RELEASE_WAIT_MS) for Redis to confirm: a response sent
   * before the release reached Redis would, if the process died right then, leave an
   * acknowledged write's lock taken until its TTL. The wait is bounded so that a Redis that has
   * just stopped answering does not hold a finished write's response for a second storage time
   * limit. A failed release must not replace the outcome of `fn` (its writes are done): the lock
   * then expires after its TTL.
   */
  async #release(key: string, token: string): Promise<void> {
    const released = this.redis.send(['EVAL', RELEASE_SCRIPT, '1', key, token]).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, RELEASE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([released, waited]);
    clearTimeout(timer);
  }

  async #acquire(key: string, token: string): Promise<void> {
    const deadline = Date.now() + this.timing.waitMs;
    let pause = 1;
    for (;;) {
      let reply: unknown;
      try {
        reply = await this.redis.send(['SET', key, token, 'NX', 'PX', String(this.timing.ttlMs)]);
      } catch (error) {
        // A SET that timed out on a Redis that hangs still runs when it resumes, and would hold
        // the lock for nobody until its TTL: the release queued behind it frees it at once.
        void this.#release(key, token);
        throw error;
      }
      if (reply === 'OK') return;
      if (Date.now() >= deadline) {
        throw new StorageUnavailableError(new Error(`timed out waiting for lock ${key}`));
      }
      // Jittered backoff up to 20 ms: short enough for a quick handover, long enough not to flood.
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 20);
    }
  }
}
