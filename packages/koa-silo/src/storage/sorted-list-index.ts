/**
 * The listing index on a sorted index: the store adapter's own (`SortedIndexAdapter`, such as
 * silo-server's SqliteStore: a table with one row per silo, atomic across processes), or, for
 * Keyv's in-memory Map, one kept in this process (memory-sorted-index.ts). A create or delete
 * touches one entry (O(log n)); a page reads one count and at most `limit` members.
 *
 * As on Redis, the score is minus created_at in epoch milliseconds and equal scores are ordered by
 * member, so ascending order is newest first, ties by file_uuid ascending: the JSON index's order.
 *
 * An account whose index is still a JSON array (written before this index existed) is taken over
 * on its first use in this storage object: under the index lock, every entry is added to the sorted
 * index, then the JSON array is deleted. A crash in between leaves the array, and the next use adds
 * its entries again (adding is idempotent) before doing anything else.
 */
import { JsonListIndex, parseIndexRows } from './json-list-index.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import { memorySortedIndexOf } from './memory-sorted-index.js';
import { guarded } from './storage-guard.js';
import type { StorageKeys } from './storage-keys.js';
import type { IndexEntry, IndexPage, ListIndex, Locks, SortedIndex, SortedIndexAdapter } from './types.js';

export function hasSortedIndex(store: unknown): store is SortedIndexAdapter {
  if (typeof store !== 'object' || store === null || !('sortedIndex' in store)) return false;
  const index: unknown = store.sortedIndex;
  return (
    typeof index === 'object' &&
    index !== null &&
    ['add', 'remove', 'count', 'range'].every((m) => typeof (index as Record<string, unknown>)[m] === 'function')
  );
}

/**
 * The listing index for a main store: its adapter's sorted index, an in-process one for a Map,
 * else one JSON array per account (changed under `locks`).
 */
export function listIndexFor(main: KeyvTextStore, keys: StorageKeys, locks: Locks): ListIndex {
  const adapter: unknown = main.keyv.store;
  if (hasSortedIndex(adapter)) return new SortedListIndex(adapter.sortedIndex, main, keys, locks);
  if (adapter instanceof Map) return new SortedListIndex(memorySortedIndexOf(adapter), main, keys, locks);
  return new JsonListIndex(main, keys, locks);
}

export class SortedListIndex implements ListIndex {
  /** Accounts known to have no JSON index left to take over (checked once per storage object). */
  readonly #current = new Set<string>();

  constructor(
    private readonly index: SortedIndex,
    private readonly store: KeyvTextStore,
    private readonly keys: StorageKeys,
    private readonly locks: Locks,
  ) {}

  #call<T>(what: string, op: () => Promise<T> | T): Promise<T> {
    return guarded(`sortedIndex.${what}`, this.store.timeoutMs, async () => op());
  }

  /** The index key as the adapter sees it: the JSON index's key, after Keyv's namespace. */
  async #key(account: string): Promise<string> {
    if (!this.#current.has(account)) await this.#takeOverJson(account);
    return this.store.keyvKey(this.keys.index(account));
  }

  async #takeOverJson(account: string): Promise<void> {
    const jsonKey = this.keys.index(account);
    if ((await this.store.get(jsonKey)) !== undefined) {
      await this.locks.withLock(jsonKey, async () => {
        const text = await this.store.get(jsonKey);
        if (text === undefined) return;
        const indexKey = this.store.keyvKey(jsonKey);
        const entries = parseIndexRows(text).map(([createdAtMs, uuid]) => [-createdAtMs, uuid] as const);
        const { index } = this;
        if (index.addMany) {
          await this.#call('addMany', () => index.addMany!(indexKey, entries));
        } else {
          for (const [score, uuid] of entries) await this.#call('add', () => index.add(indexKey, score, uuid));
        }
        await this.store.delete(jsonKey);
      });
    }
    this.#current.add(account);
  }

  async add(account: string, entry: IndexEntry): Promise<void> {
    const key = await this.#key(account);
    await this.#call('add', () => this.index.add(key, -entry.createdAtMs, entry.uuid));
  }

  async remove(account: string, uuid: string): Promise<void> {
    const key = await this.#key(account);
    await this.#call('remove', () => this.index.remove(key, uuid));
  }

  async page(account: string, offset: number, limit: number): Promise<IndexPage> {
    const key = await this.#key(account);
    const total = await this.#call('count', () => this.index.count(key));
    const uuids = offset < total && limit > 0 ? await this.#call('range', () => this.index.range(key, offset, limit)) : [];
    return { total, uuids };
  }
}
