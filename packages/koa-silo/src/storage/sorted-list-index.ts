/**
 * The listing index read from a sorted index: the store adapter's own (`SortedIndexAdapter`, such
 * as silo-server's SqliteStore: a table with one row per silo), or, for Keyv's in-memory Map, one
 * kept in this process (memory-sorted-index.ts). Entries are written only by commits (atomic.ts),
 * so the count always equals the silos a listing can show. A page reads one count and at most
 * `limit` members.
 *
 * As on Redis, the score is minus created_at in epoch milliseconds and equal scores are ordered by
 * member, so ascending order is newest first, ties by file_uuid ascending.
 */
import type { KeyvTextStore } from './keyv-text-store.js';
import { memorySortedIndexOf } from './memory-sorted-index.js';
import { guarded } from './storage-guard.js';
import type { IndexPage, ListIndex, SortedIndex, SortedIndexAdapter } from './types.js';

export function hasSortedIndex(store: unknown): store is SortedIndexAdapter {
  if (typeof store !== 'object' || store === null || !('sortedIndex' in store)) return false;
  const index: unknown = store.sortedIndex;
  return (
    typeof index === 'object' &&
    index !== null &&
    ['count', 'range'].every((m) => typeof (index as Record<string, unknown>)[m] === 'function')
  );
}

/**
 * A per-account sorted index (`keyOf(account)` names it) of a main store that is not Redis: its
 * adapter's, or an in-process one for a Map.
 */
export function sortedListIndexFor(main: KeyvTextStore, keyOf: (account: string) => string): ListIndex | undefined {
  const adapter: unknown = main.keyv.store;
  if (hasSortedIndex(adapter)) return new SortedListIndex(adapter.sortedIndex, main, keyOf);
  if (adapter instanceof Map) return new SortedListIndex(memorySortedIndexOf(adapter), main, keyOf);
  return undefined;
}

export class SortedListIndex implements ListIndex {
  constructor(
    private readonly index: SortedIndex,
    private readonly store: KeyvTextStore,
    private readonly keyOf: (account: string) => string,
  ) {}

  #call<T>(what: string, op: () => Promise<T> | T): Promise<T> {
    return guarded(`sortedIndex.${what}`, this.store, async () => op());
  }

  count(account: string): Promise<number> {
    const key = this.store.keyvKey(this.keyOf(account));
    return this.#call('count', () => this.index.count(key));
  }

  async page(account: string, offset: number, limit: number): Promise<IndexPage> {
    const key = this.store.keyvKey(this.keyOf(account));
    const total = await this.#call('count', () => this.index.count(key));
    const uuids = offset < total && limit > 0 ? await this.#call('range', () => this.index.range(key, offset, limit)) : [];
    return { total, uuids };
  }
}
