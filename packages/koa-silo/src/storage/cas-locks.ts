/**
 * Locks over a store adapter that offers an atomic compare-and-swap on one key (for example an
 * SQLite adapter shared by the server and the `silo` command): atomic across every process that
 * shares the store. A lock is a record `<token> <expires at ms>`; a holder that died leaves a
 * record that expires, and the next taker swaps it out.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageUnavailableError } from '../errors.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import { DEFAULT_LOCK_TIMING, type LockTiming } from './redis-locks.js';
import { guarded } from './storage-guard.js';
import type { StorageKeys } from './storage-keys.js';
import type { CompareAndSwapAdapter, Locks } from './types.js';

export function hasCompareAndSwap(store: unknown): store is CompareAndSwapAdapter {
  return (
    typeof store === 'object' &&
    store !== null &&
    'compareAndSwap' in store &&
    typeof store.compareAndSwap === 'function'
  );
}

export class CasLocks implements Locks {
  // As with Redis locks: writers queued behind a holder that met an outage fail with it at once.
  readonly #local = new KeyedMutex((error) => error instanceof StorageUnavailableError);

  constructor(
    private readonly adapter: CompareAndSwapAdapter,
    private readonly store: KeyvTextStore,
    private readonly keys: StorageKeys,
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
  ) {}

  #swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const raw = this.store.keyvKey(key);
    return guarded('compareAndSwap', this.store.timeoutMs, async () =>
      this.adapter.compareAndSwap(raw, expected, next),
    );
  }

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#local.withLock(name, async () => {
      const key = this.keys.lock(name);
      const token = randomBytes(12).toString('base64url');
      const mine = await this.#acquire(key, token);
      try {
        return await fn();
      } finally {
        // As with Redis locks: a failed release only leaves the lock to expire.
        await this.#swap(key, mine, undefined).catch(() => undefined);
      }
    });
  }

  async #acquire(key: string, token: string): Promise<string> {
    const deadline = Date.now() + this.timing.waitMs;
    let pause = 1;
    for (;;) {
      const now = Date.now();
      const mine = `${token} ${now + this.timing.ttlMs}`;
      const current = await this.store.get(key);
      const expiresAt = current === undefined ? 0 : Number(current.slice(current.indexOf(' ') + 1));
      const free = current === undefined || !(expiresAt > now);
      if (free && (await this.#swap(key, current, mine))) return mine;
      if (Date.now() >= deadline) {
        throw new StorageUnavailableError(new Error(`timed out waiting for lock ${key}`));
      }
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 20);
    }
  }
}
