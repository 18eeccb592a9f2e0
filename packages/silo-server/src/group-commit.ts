/**
 * Group commit for one SQLite connection: the atomic batches that requests hand in during one turn
 * of the event loop commit together, in one IMMEDIATE transaction, each batch in a savepoint of
 * its own. A commit's fixed cost (the WAL frame headers, the wal-index update, the occasional
 * checkpoint) is then paid once per group instead of once per write: at 50 concurrent writers,
 * groups of 10 to 30 batches.
 *
 * The promise of every write is unchanged: a batch's promise settles only after the transaction
 * holding it has committed (or failed), so nothing is acknowledged before it is in the WAL. A batch
 * that fails on its own (its statement throws) rolls back its savepoint only and rejects; the others
 * commit. When the commit itself fails, every batch of the group rejects: none of them is written.
 *
 * Writes of this process on another connection to the file (a large value written off the event
 * loop, sqlite-large-rows.ts) take turns with the group commits (`outside`), in order of arrival:
 * a commit never meets their write lock in SQLite's busy handler, which would sleep on the event
 * loop for as long as they write.
 */
import type Database from 'better-sqlite3';

interface Queued {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  #queue: Queued[] = [];
  readonly #group: Database.Transaction<(queued: readonly Queued[]) => Outcome[]>;
  /** Settles when the last write that took a turn (a group commit, or one outside) is done. */
  #turn: Promise<void> = Promise.resolve();
  /** Turns taken and not yet done: writes outside, and what was chained after them. */
  #busy = 0;

  constructor(db: Database.Database) {
    this.#group = db.transaction((queued: readonly Queued[]) =>
      queued.map((q): Outcome => {
        try {
          return { ok: true, value: q.run() };
        } catch (error) {
          // Some errors (a full disk, I/O) end the whole transaction: then no batch of it stands.
          if (!db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
  }

  /**
   * Runs `write` (a better-sqlite3 transaction function: inside the group it becomes a savepoint)
   * in the next group commit; resolves with its result once the group is committed.
   */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.push({ run: write, resolve: resolve as (value: unknown) => void, reject }) === 1) {
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Runs `write` (a write of this process on another connection to the file) in its turn: after
   * the group commits, writes outside and writes in turn handed in before it (a group still
   * gathering goes first); what is handed in meanwhile waits for it, asynchronously.
   */
  outside<T>(write: () => Promise<T>): Promise<T> {
    if (this.#queue.length > 0) this.#chain(() => this.#commit());
    return this.#chain(write);
  }

  /**
   * Runs `write` (a write of this connection outside a group commit: a plain set, a delete, a
   * compare-and-swap) at once when no turn is taken, else in its turn after them: in the order
   * handed in, and never in SQLite's busy handler.
   */
  inTurn<T>(write: () => T): T | Promise<T> {
    if (this.#busy === 0) return write();
    if (this.#queue.length > 0) this.#chain(() => this.#commit());
    return this.#chain(write);
  }

  /** The group handed in so far: committed now, or after the writes outside before it. */
  #flush(): void {
    if (this.#queue.length === 0) return;
    if (this.#busy === 0) this.#commit();
    else this.#chain(() => this.#commit());
  }

  /** `write` after every turn taken so far; the turn after it waits for it (its promise too), failed or not. */
  #chain<T>(write: () => T | PromiseLike<T>): Promise<T> {
    this.#busy++;
    const result = this.#turn.then(write);
    this.#turn = result.then(
      () => void this.#busy--,
      () => void this.#busy--,
    );
    return result;
  }

  #commit(): void {
    const queued = this.#queue;
    if (queued.length === 0) return;
    this.#queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.#group.immediate(queued);
    } catch (error) {
      for (const q of queued) q.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? queued[i]!.resolve(outcome.value) : queued[i]!.reject(outcome.error)));
  }
}

const groups = new WeakMap<Database.Database, GroupCommit>();

/** The group commit of `db`, shared by every store on that connection. */
export function groupCommitOf(db: Database.Database): GroupCommit {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = new GroupCommit(db)));
  return group;
}
