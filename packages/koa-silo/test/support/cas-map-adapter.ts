/**
 * An in-memory Keyv store adapter with an atomic compareAndSwap, shared by several Keyv instances
 * to stand in for several server processes on one store (the way an SQLite file or a database
 * with transactions would be shared). Every call yields to the event loop first, so concurrent
 * callers interleave as they would over a real connection.
 */
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type { CompareAndSwapAdapter } from '../../src/storage/index.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CasMapAdapter implements KeyvStoreAdapter, CompareAndSwapAdapter {
  readonly opts = { dialect: 'cas-map', url: 'cas-map://memory' };
  namespace?: string | undefined;
  readonly #data = new Map<string, string>();

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

  /** Every stored value (for tests that check what is at rest). */
  values(): string[] {
    return [...this.#data.values()];
  }
}
