/**
 * WAL checkpoints off the event loop. SQLite copies the WAL's pages back into the database file
 * (a checkpoint) in the connection that commits, whenever the WAL has passed 1 000 pages: under a
 * stream of writes, a commit in a few paid for every page of the ones before it, on the event loop
 * (a commit of a group of 1 KB PATCHes took 720 µs with those checkpoints, 446 µs without).
 *
 * Here the file's worker thread (sqlite-large-rows.ts, a connection of its own) checkpoints
 * instead, a short while after this connection writes: the pages of that while are copied once
 * (a page written by many commits, such as a busy silo's head, once for all of them), and the
 * event loop pays nothing. A passive checkpoint takes no lock that a writer or a reader waits for.
 *
 * The connection's own checkpoint stays, at a higher mark, as a backstop: if the thread cannot keep
 * up (a checkpoint can only copy what every reader is done with, and writes that never pause can
 * outrun it) or is gone, the WAL still never grows past about 40 MB before it is copied and started
 * again.
 */
import type Database from 'better-sqlite3';
import type { SqliteLargeRows } from './sqlite-large-rows.js';

/** Pages (4 KiB) the WAL may hold before the connection checkpoints it itself: the backstop. */
export const BACKSTOP_PAGES = 10_000;

/** How long after a write the thread checkpoints: every write of that while is copied in one go. */
export const CHECKPOINT_DELAY_MS = 100;

/** After a checkpoint failed (the thread is gone and cannot start), the next waits this long: the backstop copies meanwhile. */
export const RETRY_AFTER_FAILURE_MS = 5_000;

/** What checkpoints need of the file's thread. */
export type CheckpointThread = Pick<SqliteLargeRows, 'checkpoint'>;

export class WalCheckpoints {
  readonly #thread: CheckpointThread;
  #timer: NodeJS.Timeout | undefined;
  /** A checkpoint is asked for or running; writes meanwhile ask for another after it. */
  #busy = false;
  #again = false;
  #closed = false;

  constructor(db: Database.Database, thread: CheckpointThread) {
    this.#thread = thread;
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }

  /** This connection wrote (or is writing) a row: the thread checkpoints soon. Cheap enough for every write. */
  wrote(): void {
    if (this.#closed) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    this.#timer = setTimeout(() => void this.#checkpoint(), CHECKPOINT_DELAY_MS);
    // A process with nothing else to do exits: closing the connection checkpoints what is left.
    this.#timer.unref();
  }

  async #checkpoint(): Promise<void> {
    this.#timer = undefined;
    try {
      await this.#thread.checkpoint();
    } catch {
      // The thread is gone and could not start again, or the store is closing: the backstop
      // checkpoints meanwhile (closing does too). Tried again later, not at every write.
      if (this.#closed) return;
      this.#again = true;
      this.#timer = setTimeout(() => this.#done(), RETRY_AFTER_FAILURE_MS);
      this.#timer.unref();
      return;
    }
    this.#done();
  }

  /** The checkpoint is over: the next write asks for another, or now if writes came meanwhile. */
  #done(): void {
    this.#timer = undefined;
    this.#busy = false;
    if (this.#again) {
      this.#again = false;
      this.wrote();
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }
}

const checkpoints = new WeakMap<Database.Database, WalCheckpoints>();

/** The checkpoints of `db`'s file, run by its worker thread, shared by every store on that connection. */
export function checkpointsOf(db: Database.Database, thread: CheckpointThread): WalCheckpoints {
  let made = checkpoints.get(db);
  if (!made) checkpoints.set(db, (made = new WalCheckpoints(db, thread)));
  return made;
}

/** No more checkpoints for `db` (the connection is closing; closing it checkpoints what is left). */
export function closeCheckpointsOf(db: Database.Database): void {
  checkpoints.get(db)?.close();
  checkpoints.delete(db);
}
