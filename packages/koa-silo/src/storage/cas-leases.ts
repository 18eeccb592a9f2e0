/**
 * Leases over a store adapter that offers an atomic compare-and-swap on one key (for example an
 * SQLite adapter shared by the server and the `silo` command): atomic across every process that
 * shares the store. A lease is a record `<token> <expires at ms>`; an expired one is swapped out
 * by the next taker.
 */
import type { KeyvTextStore } from './keyv-text-store.js';
import type { LeaseStore } from './lease-locks.js';
import { guarded } from './storage-guard.js';
import type { CompareAndSwapAdapter } from './types.js';

export function hasCompareAndSwap(store: unknown): store is CompareAndSwapAdapter {
  return (
    typeof store === 'object' &&
    store !== null &&
    'compareAndSwap' in store &&
    typeof store.compareAndSwap === 'function'
  );
}

function tokenOf(record: string | undefined): string | undefined {
  return record?.slice(0, record.indexOf(' '));
}

function expiresAt(record: string): number {
  return Number(record.slice(record.indexOf(' ') + 1));
}

export class CasLeases implements LeaseStore {
  constructor(
    private readonly adapter: CompareAndSwapAdapter,
    private readonly store: KeyvTextStore,
  ) {}

  #swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const raw = this.store.keyvKey(key);
    return guarded('compareAndSwap', this.store, async () => this.adapter.compareAndSwap(raw, expected, next));
  }

  async take(key: string, token: string, ttlMs: number): Promise<boolean> {
    const current = await this.store.get(key);
    const now = Date.now();
    if (current !== undefined && expiresAt(current) > now) return false;
    return this.#swap(key, current, `${token} ${now + ttlMs}`);
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    const current = await this.store.get(key);
    if (tokenOf(current) !== token) return false;
    return this.#swap(key, current, `${token} ${Date.now() + ttlMs}`);
  }

  async release(key: string, token: string): Promise<void> {
    // A renewal still in flight may swap the record under us: go again while it is ours, or an
    // acknowledged write would leave its lock taken until the lease expires.
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.store.get(key);
      if (tokenOf(current) !== token || (await this.#swap(key, current, undefined))) return;
    }
  }
}
