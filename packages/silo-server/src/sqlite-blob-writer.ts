/**
 * Large rows written off the event loop. An insert of a 10 MB value held the event loop for 20 to
 * 50 ms (SQLite copies it into some 2 500 overflow pages), and every other request of the server
 * waited: a row of OFF_THREAD_CHARS or more is written instead by a worker thread with a
 * connection of its own to the same file, in its own transaction. This process's own connection
 * takes turns with it (GroupCommit.outside), so that its commits never wait for that write in
 * SQLite's busy handler, which sleeps on the event loop.
 *
 * Only values nobody reads before they are written suit this (koa-silo puts a large blob under a
 * fresh key before the commit that names it, as it does for a store its batch cannot reach): the
 * write is its own transaction, not part of anyone's batch.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { groupCommitOf } from './group-commit.js';

/** Rows of this many characters or more are written by the worker (a 256 KB insert takes about 1 ms). */
export const OFF_THREAD_CHARS = 256 * 1024;

export interface BlobWorkerSettings {
  file: string;
  busyTimeoutMs: number;
  synchronous: 'normal' | 'full';
}

/** To the worker: one row to write. */
export interface BlobWrite {
  id: number;
  table: string;
  key: string;
  value: string;
  expires: number | null;
}

/** From the worker: the row is committed, or why not. */
export interface BlobWritten {
  id: number;
  error?: { message: string; code?: string };
}

export class SqliteBlobWriter {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  #nextId = 1;

  constructor(
    private readonly db: Database.Database,
    private readonly settings: BlobWorkerSettings,
  ) {}

  /** Writes the row, in its turn among this connection's commits; resolves once it is committed. */
  write(table: string, key: string, value: string, expires: number | null): Promise<void> {
    return groupCommitOf(this.db).outside(
      () =>
        new Promise<void>((resolve, reject) => {
          const id = this.#nextId++;
          this.#pending.set(id, { resolve, reject });
          const worker = this.#ensureWorker();
          // Kept alive while a write is under way (a command awaiting its last write must not exit).
          worker.ref();
          worker.postMessage({ id, table, key, value, expires } satisfies BlobWrite);
        }),
    );
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail(new Error('the SQLite store was closed'));
    if (worker) await worker.terminate();
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = spawn(this.settings);
    // A worker waiting for its next write keeps no process alive.
    worker.unref();
    worker.on('message', ({ id, error }: BlobWritten) => {
      const waiting = this.#pending.get(id);
      if (!waiting) return;
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
      if (!error) return waiting.resolve();
      waiting.reject(Object.assign(new Error(error.message), error.code ? { code: error.code } : {}));
    });
    const lost = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the SQLite writer thread exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

/** The worker: compiled JavaScript, or the TypeScript source through tsx (tests run the sources). */
function spawn(settings: BlobWorkerSettings): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sqlite-blob-worker.js', import.meta.url), { workerData: settings });
  const target = JSON.stringify(new URL('./sqlite-blob-worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${target}); })`;
  return new Worker(boot, { eval: true, workerData: settings });
}

const writers = new WeakMap<Database.Database, SqliteBlobWriter>();

/** The writer of `db`'s file, shared by every store on that connection. */
export function blobWriterOf(db: Database.Database, settings: BlobWorkerSettings): SqliteBlobWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new SqliteBlobWriter(db, settings)));
  return writer;
}

/** Stops `db`'s writer, if it has one (the connection is closing). */
export async function closeBlobWriterOf(db: Database.Database): Promise<void> {
  const writer = writers.get(db);
  writers.delete(db);
  await writer?.close();
}
