/**
 * Locks shared by every process on one store, as short leases: a holder takes a lease of
 * `ttlMs` and renews it every third of that while it works, so a lock whose holder died (a
 * `kill -9`, a lost machine) is free again within `ttlMs`, while a live holder keeps it however
 * long its write takes.
 *
 * Every write that a lock guards also commits by compare-and-swap against the state it read
 * (a silo's head, an account's key list): the lock only orders writers so that they seldom
 * collide; it is not what keeps them correct. Hence two economies:
 * - A writer takes no lease up front: its commit expects the lease record to be absent (the
 *   fence), and only when a commit fails (another writer's commit, or a lease held elsewhere)
 *   does it take the lease (`contended`) and try again. A server alone on its store pays nothing
 *   for the lock beyond one key checked inside the commit.
 * - A caller that has waited `waitMs` without getting the lock (its holder is alive but slow)
 *   goes ahead without it instead of failing a healthy request with a 503.
 *
 * Within one process, callers first queue on an in-process mutex, so only one of them at a time
 * polls the store: 100 concurrent writers of one silo cost one poller per process, not 100. When
 * the holder meets a storage outage, the callers queued behind it fail with it at once (503)
 * rather than each waiting out the storage time limit in turn.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageUnavailableError } from '../model/index.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { HeldLock, Locks } from './types.js';

export interface LockTiming {
  /** How long a lease lives unless its holder renews it (a dead holder's lock frees after this). */
  ttlMs: number;
  /** How long a caller waits for a lock before going ahead without it. */
  waitMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { ttlMs: 3_000, waitMs: 10_000 };

/** Where leases live: one record per lock name, holding its holder's token until it expires. */
export interface LeaseStore {
  /** Takes the lease if nobody holds a live one; true when taken. */
  take(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease if `token` still holds it; false when it was lost. */
  renew(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back if `token` still holds it. */
  release(key: string, token: string): Promise<void>;
}

export class LeaseLocks implements Locks {
  readonly #local = new KeyedMutex((error) => error instanceof StorageUnavailableError);

  constructor(
    private readonly leases: LeaseStore,
    private readonly keyOf: (name: string) => string,
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
  ) {}

  withLock<T>(name: string, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
    return this.#local.withLock(name, async () => {
      const key = this.keyOf(name);
      // Made only when needed: most writes never take the lease.
      let token: string | undefined;
      let renewal: { stop(): void } | undefined;
      const hold = async () => {
        token ??= randomBytes(12).toString('base64url');
        if (!renewal && (await this.#acquire(key, token))) renewal = this.#renewWhileHeld(key, token);
      };
      try {
        return await fn({ fence: () => (renewal ? [] : [[key, undefined]]), contended: hold });
      } finally {
        if (renewal) {
          renewal.stop();
          // A failed release only leaves the lease to expire: it must not replace fn's outcome.
          await this.leases.release(key, token!).catch(() => undefined);
        }
      }
    });
  }

  /** True once the lease is ours; false when `waitMs` passed first (go ahead unlocked). */
  async #acquire(key: string, token: string): Promise<boolean> {
    const deadline = Date.now() + this.timing.waitMs;
    let pause = 1;
    for (;;) {
      if (await this.leases.take(key, token, this.timing.ttlMs)) return true;
      if (Date.now() >= deadline) return false;
      // Jittered backoff up to 20 ms: short enough for a quick handover, long enough not to flood.
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 20);
    }
  }

  #renewWhileHeld(key: string, token: string): { stop(): void } {
    const every = Math.max(1, Math.floor(this.timing.ttlMs / 3));
    const timer = setInterval(() => {
      // A lost lease (or a failed renewal) changes nothing for the holder: its commit is fenced.
      this.leases.renew(key, token, this.timing.ttlMs).catch(() => undefined);
    }, every);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
}
