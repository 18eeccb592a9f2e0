/**
 * An in-process mutex per name: callers of one name run one after another, in arrival order;
 * different names never wait for each other. Entries are dropped when their queue empties, so
 * memory stays proportional to the names in use.
 *
 * With `sharesFailure`, a holder that fails with such an error (a storage outage) hands the same
 * error to every caller already queued behind it, instead of letting each of them run into the
 * outage in turn: otherwise the n-th writer of a silo would answer only after n storage time
 * limits, and a queue of writers would wait for as long as the storage is away.
 */
import type { HeldLock, Locks } from './types.js';

/** A lock of this process alone: nothing to fence, nothing more to take. */
const IN_PROCESS: HeldLock = { fence: () => [], contended: async () => undefined };

/** What a holder leaves to the next caller: the error it shares, or undefined. */
type Outcome = { failure: unknown } | undefined;

export class KeyedMutex implements Locks {
  readonly #tails = new Map<string, Promise<Outcome>>();

  constructor(private readonly sharesFailure: (error: unknown) => boolean = () => false) {}

  async withLock<T>(name: string, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
    const previous = this.#tails.get(name);
    let release!: (outcome: Outcome) => void;
    const held = new Promise<Outcome>((resolve) => {
      release = resolve;
    });
    const tail = previous ? previous.then(() => held) : held;
    this.#tails.set(name, tail);
    let outcome: Outcome;
    try {
      const before = previous ? await previous : undefined;
      if (before) {
        outcome = before;
        throw before.failure;
      }
      return await fn(IN_PROCESS);
    } catch (error) {
      if (outcome === undefined && this.sharesFailure(error)) outcome = { failure: error };
      throw error;
    } finally {
      release(outcome);
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
    }
  }

  /** Names with holders or waiters (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
