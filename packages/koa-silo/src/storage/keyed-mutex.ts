/**
 * An in-process mutex per name: callers of one name run one after another, in arrival order;
 * different names never wait for each other. Entries are dropped when their queue empties, so
 * memory stays proportional to the names in use.
 */
import type { Locks } from './types.js';

export class KeyedMutex implements Locks {
  readonly #tails = new Map<string, Promise<void>>();

  async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(name);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous ? previous.then(() => held) : held;
    this.#tails.set(name, tail);
    if (previous) await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
    }
  }

  /** Names with holders or waiters (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
