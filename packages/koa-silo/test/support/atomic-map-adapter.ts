/**
 * An in-memory Keyv store adapter with koa-silo's optional capabilities (atomic batches,
 * compare-and-swap, a sorted index, key listing), shared by several Keyv instances to stand in
 * for several server processes on one store (the way an SQLite file or a database with
 * transactions would be shared). Every call yields to the event loop first, so concurrent callers
 * interleave as they would over a real connection.
 */
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { MemorySortedIndex } from '../../src/storage/memory-sorted-index.js';
import type { AtomicAdapter, AtomicBatch, CompareAndSwapAdapter, KeyListingAdapter, SortedIndexAdapter } from '../../src/storage/index.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AtomicMapAdapter implements KeyvStoreAdapter, AtomicAdapter, CompareAndSwapAdapter, KeyListingAdapter, SortedIndexAdapter {
  readonly opts = { dialect: 'atomic-map', url: 'atomic-map://memory' };
  namespace?: string | undefined;
  readonly #data = new Map<string, string>();
  readonly sortedIndex = new MemorySortedIndex();

  on(): this {
    return this;
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    await turn();
    return this.#data.get(key) as StoredData<Value> | undefined;
  }

  async set(key: string, value: string): Promise<boolean> {
    await turn();
    this.#data.set(key, value);
    return true;
  }

  async delete(key: string): Promise<boolean> {
    await turn();
    return this.#data.delete(key);
  }

  async clear(): Promise<void> {
    this.#data.clear();
  }

  async compareAndSwap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    await turn();
    if (this.#data.get(key) !== expected) return false;
    if (next === undefined) this.#data.delete(key);
    else this.#data.set(key, next);
    return true;
  }

  async atomic(batch: AtomicBatch): Promise<boolean> {
    await turn();
    for (const [key, value] of batch.expect) if (this.#data.get(key) !== value) return false;
    for (const [key, value] of batch.set) this.#data.set(key, value);
    for (const key of batch.delete) this.#data.delete(key);
    for (const [key, score, member] of batch.indexAdd) this.sortedIndex.add(key, score, member);
    for (const [key, member] of batch.indexRemove) this.sortedIndex.remove(key, member);
    return true;
  }

  async keysWithPrefix(prefix: string): Promise<string[]> {
    await turn();
    return [...this.#data.keys()].filter((k) => k.startsWith(prefix));
  }

  /** Every stored value (for tests that check what is at rest). */
  values(): string[] {
    return [...this.#data.values()];
  }
}
