/**
 * Large rows written, read and deleted off the event loop. An insert of a 10 MB value held the
 * event loop for 20 to 50 ms (SQLite copies it into some 2 500 overflow pages), a read of one 10 to
 * 14 ms, a delete of 20 of them (a silo and its history) 420 ms, and every other request of the
 * server waited: rows that large are written and read instead by a
 * worker thread with a connection of its own to the same file, each write in its own transaction.
 * This process's own connection takes turns with those writes (GroupCommit.outside), so that its
 * commits never wait for one in SQLite's busy handler, which sleeps on the event loop; reads need
 * no turn (in WAL mode readers and the writer do not block each other).
 *
 * A write this way is its own transaction, not part of anyone's batch: only values nobody reads
 * before they are written suit it (koa-silo puts a large blob under a fresh key before the commit
 * that names it, as it does for a store its batch cannot reach), and only rows no commit names any
 * more suit a delete this way (koa-silo removes a large blob after the commit that let it go). A
 * read or a delete this way is asked for by whoever knows the row is large (koa-silo knows a blob's
 * size from its silo's head and history).
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { groupCommitOf } from './group-commit.js';

/** Rows of this many characters or more are written by the worker (a 256 KB insert takes about 1 ms). */
export const OFF_THREAD_CHARS = 256 * 1024;

export interface LargeRowsSettings {
  file: string;
  busyTimeoutMs: number;
  synchronous: 'normal' | 'full';
}

/** To the worker: a row to write, one to read, or one to delete; or a checkpoint of the WAL. */
export type LargeRowRequest =
  | { op: 'write'; id: number; table: string; key: string; value: string; expires: number | null }
  | { op: 'read' | 'delete'; id: number; table: string; key: string }
  | { op: 'checkpoint'; id: number };

/** From the worker: done (with the value read, when there is one), or why not. */
export interface LargeRowReply {
  id: number;
  value?: string;
  error?: { message: string; code?: string };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class SqliteLargeRows {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, { resolve(value: string | undefined): void; reject(error: Error): void; settled: Promise<void> }>();
  #nextId = 1;
  #closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly settings: LargeRowsSettings,
  ) {}

  /** Writes the row, in its turn among this connection's commits; resolves once it is committed. */
  async write(table: string, key: string, value: string, expires: number | null): Promise<void> {
    await groupCommitOf(this.db).outside(() => this.#ask({ op: 'write', table, key, value, expires }));
  }

  /** Deletes the row (there may be none), in its turn among this connection's commits. */
  async delete(table: string, key: string): Promise<void> {
    await groupCommitOf(this.db).outside(() => this.#ask({ op: 'delete', table, key }));
  }

  /**
   * A passive checkpoint of the file's WAL, run by the worker (sqlite-checkpoints.ts): needs no
   * turn, since it takes no write lock.
   */
  async checkpoint(): Promise<void> {
    await this.#ask({ op: 'checkpoint' });
  }

  /** The row's value (undefined when there is none, or it expired), read by the worker. */
  read(table: string, key: string): Promise<string | undefined> {
    return this.#ask({ op: 'read', table, key });
  }

  /**
   * Takes no more requests, lets those under way finish (a write the worker has been sent is
   * committed or not by SQLite, never half: its caller hears which), then stops the worker.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#pending.values()].map(({ settled }) => settled));
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #ask(request: DistributiveOmit<LargeRowRequest, 'id'>): Promise<string | undefined> {
    // Also a write that waited its turn past close: nothing is written after it.
    if (this.#closed) return Promise.reject(new Error('the SQLite store was closed'));
    let worker: Worker;
    try {
      worker = this.#ensureWorker();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      let settle!: () => void;
      const settled = new Promise<void>((done) => (settle = done));
      this.#pending.set(id, {
        resolve: (value) => (settle(), resolve(value)),
        reject: (error) => (settle(), reject(error)),
        settled,
      });
      // Kept alive while a request is under way (a command awaiting its last write must not exit).
      worker.ref();
      worker.postMessage({ ...request, id } as LargeRowRequest);
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = spawn(this.settings);
    // A worker waiting for its next request keeps no process alive.
    worker.unref();
    worker.on('message', ({ id, value, error }: LargeRowReply) => {
      const waiting = this.#pending.get(id);
      if (!waiting) return;
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
      if (!error) return waiting.resolve(value);
      waiting.reject(Object.assign(new Error(error.message), error.code ? { code: error.code } : {}));
    });
    const lost = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the SQLite thread for large rows exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

/** The worker: compiled JavaScript, or the TypeScript source through tsx (tests run the sources). */
function spawn(settings: LargeRowsSettings): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sqlite-large-rows-worker.js', import.meta.url), { workerData: settings });
  const target = JSON.stringify(new URL('./sqlite-large-rows-worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${target}); })`;
  return new Worker(boot, { eval: true, workerData: settings });
}

const largeRows = new WeakMap<Database.Database, SqliteLargeRows>();

/** The large-row thread of `db`'s file, shared by every store on that connection. */
export function largeRowsOf(db: Database.Database, settings: LargeRowsSettings): SqliteLargeRows {
  let rows = largeRows.get(db);
  if (!rows) largeRows.set(db, (rows = new SqliteLargeRows(db, settings)));
  return rows;
}

/** Stops `db`'s large-row thread, if it has one (the connection is closing). */
export async function closeLargeRowsOf(db: Database.Database): Promise<void> {
  const rows = largeRows.get(db);
  largeRows.delete(db);
  await rows?.close();
}
