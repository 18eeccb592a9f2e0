/**
 * The embedded store: a Keyv 5 storage adapter over better-sqlite3.
 *
 * - One table per store (`main`, `region_api`, ...); Keyv's namespace lives in the key itself
 *   (`<namespace>:<key>`, as Keyv sends it), so a namespace is a key range of the primary key.
 * - WAL journal, `synchronous=NORMAL` by default: a commit is in the WAL file (the operating
 *   system's page cache) before the call returns, so every acknowledged write survives the process
 *   being killed (`kill -9`, a crash). Only a power loss or kernel crash can lose the last commits,
 *   never the database's consistency. `synchronous: 'full'` also fsyncs the WAL on every commit
 *   and survives power loss, at the cost measured in benchmarks/storage/sqlite.ts.
 * - A busy timeout, so that several processes (the server and the `silo` command) can share a file.
 * - Stores of one file in one process share one connection, so that a transaction of one reaches
 *   the others' tables (`atomic` with `joined` writes: a region's blobs beside the main store's
 *   commit) and no store reads pages that another one's write made stale.
 * - Prepared statements only; the iterator pages by key (keyset pagination, never OFFSET), so a
 *   full walk is linear in the number of rows.
 * - Small rows served from memory while proven current (sqlite-read-cache.ts: this connection's
 *   writes forget what they write; another connection's commit is noticed through
 *   `PRAGMA data_version` at the first read of each event-loop turn).
 * - A sorted index (`sortedIndex`, koa-silo's SortedIndexAdapter: the listing index), in two
 *   tables beside the store's, made on first use: `<table>_index` (one row per member) and
 *   `<table>_index_count` (the member count of each index key, kept in the same transactions).
 * - An audit log (`auditLog`, koa-silo's AuditLogAdapter): `<table>_audit`, one row per entry,
 *   made on first use (sqlite-audit-log.ts).
 * - A file's WAL checkpointed by its worker thread shortly after writes, not by the commits on the
 *   event loop (sqlite-checkpoints.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import Keyv, { type KeyvStoreAdapter, type StoredData } from 'keyv';
import type { AtomicBatch, AuditLog } from 'koa-silo';
import { groupCommitOf } from './group-commit.js';
import { checkpointsOf, closeCheckpointsOf, type WalCheckpoints } from './sqlite-checkpoints.js';
import { closeLargeRowsOf, largeRowsOf, OFF_THREAD_CHARS, type SqliteLargeRows } from './sqlite-large-rows.js';
import { sqliteAuditLog, type SqliteAuditLog } from './sqlite-audit-log.js';
import { readCacheOf, type SqliteReadCache, type SqliteReadCacheOptions } from './sqlite-read-cache.js';
import { AdapterEvents, prefixEnd } from './store-adapter.js';

export type SqliteSynchronous = 'normal' | 'full';

export interface SqliteStoreOptions {
  /** A file path, or `:memory:` for a private in-memory database. */
  path: string;
  /** The table holding this store's rows; created when missing. Default `keyv`. */
  table?: string;
  /** `normal` (default) survives process kills; `full` also survives power loss. */
  synchronous?: SqliteSynchronous;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Rows fetched per page by the iterator. Default 100. */
  iterationLimit?: number;
  /** Small rows served from memory while proven current (sqlite-read-cache.ts); budgetBytes 0 turns it off. */
  readCache?: SqliteReadCacheOptions;
}

/**
 * Sorted sets, as koa-silo's SortedIndex capability: members with integer scores per index key,
 * read in ascending (score, member) order. Writes are IMMEDIATE transactions, atomic across every
 * process sharing the file; a count is one row read, a page one index range (LIMIT/OFFSET).
 */
export interface SqliteSortedIndex {
  add(indexKey: string, score: number, member: string): void;
  addMany(indexKey: string, entries: readonly (readonly [score: number, member: string])[]): void;
  remove(indexKey: string, member: string): void;
  count(indexKey: string): number;
  range(indexKey: string, offset: number, limit: number): string[];
}
type Row = { key: string; value: string | Buffer; expires: number | null };
type ValueRow = Omit<Row, 'key'>;
type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

/** Up to this many keys, getMany reads them one by one (see there). */
const FEW_KEYS = 8;

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The open connection of each file (absolute path) and how many stores use it. */
const connections = new Map<string, { db: Database.Database; users: number }>();

function openConnection(file: string, busyTimeoutMs: number): Database.Database {
  if (file === ':memory:') return new Database(file, { timeout: busyTimeoutMs });
  const key = path.resolve(file);
  const shared = connections.get(key);
  if (shared?.db.open) {
    shared.users++;
    return shared.db;
  }
  createPrivately(key);
  const db = new Database(file, { timeout: busyTimeoutMs });
  connections.set(key, { db, users: 1 });
  return db;
}

/**
 * A new database file is made readable by its owner only (0600), whatever the directory's mode
 * (one that existed before, such as a mounted volume, may be 0755): it holds key hashes, webhook
 * secrets and every silo. SQLite gives its `-wal` and `-shm` files the database file's mode. A file
 * that exists keeps the mode its operator gave it.
 */
function createPrivately(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600));
  } catch {
    // It exists (the operator's file, with the operator's mode), or cannot be made: SQLite says why as it opens.
  }
}

async function closeConnection(db: Database.Database): Promise<void> {
  for (const [key, shared] of connections) {
    if (shared.db !== db) continue;
    if (--shared.users > 0) return;
    connections.delete(key);
  }
  closeCheckpointsOf(db);
  await closeLargeRowsOf(db);
  if (db.open) db.close();
}

function textOf(value: string | Buffer): string {
  return typeof value === 'string' ? value : value.toString('utf8');
}

/**
 * `mkdir -p` one level at a time (Node 20's recursive mkdirSync can spin forever on some paths,
 * such as under /proc). New directories are private to the user: they hold key hashes.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let current = dir;
  while (!fs.existsSync(current)) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

export class SqliteStore extends AdapterEvents implements KeyvStoreAdapter {
  /** Keyv reads `dialect` to know that this store can iterate. */
  readonly opts: { dialect: 'sqlite'; url: string; table: string; synchronous: SqliteSynchronous };
  namespace?: string | undefined;

  readonly #db: Database.Database;
  readonly #iterationLimit: number;
  readonly #get: Stmt<[string], ValueRow>;
  readonly #set: Stmt<[string, string | Buffer, number | null]>;
  readonly #delete: Stmt<[string]>;
  readonly #getMany: Stmt<[string], Row>;
  readonly #deleteMany: Stmt<[string]>;
  readonly #clearAll: Stmt<[]>;
  readonly #clearRange: Stmt<[string, string]>;
  readonly #pageAll: Stmt<[string, number], Row>;
  readonly #pageAllFirst: Stmt<[string, number], Row>;
  readonly #pageRange: Stmt<[string, string, number], Row>;
  readonly #pageRangeFirst: Stmt<[string, string, number], Row>;
  readonly #purge: Stmt<[number]>;
  readonly #table: string;
  #sortedIndex: SqliteSortedIndex | undefined;
  /** The sorted index's writes without a transaction of their own, for `atomic`. */
  #indexWrites: { add(indexKey: string, score: number, member: string): void; remove(indexKey: string, member: string): void } | undefined;
  #auditLog: SqliteAuditLog | undefined;
  readonly #atomic: Database.Transaction<(batch: AtomicBatch) => boolean>;
  readonly #keysInRange: Stmt<[string, string], string>;
  readonly #cache: SqliteReadCache;
  /** Writes and reads large rows off the event loop (a file's store; in memory, there is no other connection). */
  readonly #offThread: SqliteLargeRows | undefined;
  /** Checkpoints of the WAL by that thread (sqlite-checkpoints.ts); a file's store only. */
  readonly #checkpoints: WalCheckpoints | undefined;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    super();
    const table = options.table ?? 'keyv';
    if (!TABLE_NAME.test(table)) throw new TypeError(`invalid SQLite table name: ${JSON.stringify(table)}`);
    const synchronous = options.synchronous ?? 'normal';
    if (synchronous !== 'normal' && synchronous !== 'full') {
      throw new TypeError(`synchronous must be "normal" or "full", got ${JSON.stringify(synchronous)}`);
    }
    this.#iterationLimit = Math.max(1, Math.floor(options.iterationLimit ?? 100));
    this.opts = { dialect: 'sqlite', url: `sqlite://${options.path}`, table, synchronous };

    const memory = options.path === ':memory:';
    if (!memory) makeDirectory(path.dirname(path.resolve(options.path)));
    this.#db = openConnection(options.path, options.busyTimeoutMs ?? 5000);
    try {
      if (!memory) {
        const mode = this.#db.pragma('journal_mode = WAL', { simple: true });
        if (String(mode).toLowerCase() !== 'wal') throw new Error(`could not switch ${options.path} to WAL (got ${String(mode)})`);
      }
      this.#db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
      // After a checkpoint, cut the WAL back to 64 MB so that large silos do not leave it huge.
      this.#db.pragma('journal_size_limit = 67108864');
      // Each batch of a group commit is a savepoint: the pages it changes first are copied to a
      // statement journal, a temporary file by default (a write syscall per page). In memory, a
      // write of a few rows more (an audit entry and its index rows) costs a third as much.
      this.#db.pragma('temp_store = MEMORY');
      this.#db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (key TEXT PRIMARY KEY, value NOT NULL, expires INTEGER)`);
    } catch (error) {
      void closeConnection(this.#db);
      throw error;
    }
    this.#table = table;
    const t = `"${table}"`;
    const cols = 'key, value, expires';
    // A single read needs no key column back: the hot path of every silo read.
    this.#get = this.#db.prepare(`SELECT value, expires FROM ${t} WHERE key = ?`);
    this.#set = this.#db.prepare(
      `INSERT INTO ${t} (key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    );
    this.#delete = this.#db.prepare(`DELETE FROM ${t} WHERE key = ?`);
    this.#getMany = this.#db.prepare(`SELECT ${cols} FROM ${t} WHERE key IN (SELECT value FROM json_each(?))`);
    this.#deleteMany = this.#db.prepare(`DELETE FROM ${t} WHERE key IN (SELECT value FROM json_each(?))`);
    this.#clearAll = this.#db.prepare(`DELETE FROM ${t}`);
    this.#clearRange = this.#db.prepare(`DELETE FROM ${t} WHERE key >= ? AND key < ?`);
    this.#pageAllFirst = this.#db.prepare(`SELECT ${cols} FROM ${t} WHERE key >= ? ORDER BY key LIMIT ?`);
    this.#pageAll = this.#db.prepare(`SELECT ${cols} FROM ${t} WHERE key > ? ORDER BY key LIMIT ?`);
    this.#pageRangeFirst = this.#db.prepare(`SELECT ${cols} FROM ${t} WHERE key >= ? AND key < ? ORDER BY key LIMIT ?`);
    this.#pageRange = this.#db.prepare(`SELECT ${cols} FROM ${t} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`);
    this.#purge = this.#db.prepare(`DELETE FROM ${t} WHERE expires IS NOT NULL AND expires <= ?`);
    this.#atomic = this.#db.transaction((batch: AtomicBatch) => {
      for (const [key, expected] of batch.expect) {
        const row = this.#get.get(key);
        const current = row === undefined || this.#expired(row) ? undefined : textOf(row.value);
        if (current !== expected) return false;
      }
      for (const [key, value] of batch.set) this.#put(key, value, null);
      for (const key of batch.delete) this.#remove(key);
      if (batch.indexAdd.length > 0 || batch.indexRemove.length > 0) {
        if (this.#indexWrites === undefined) void this.sortedIndex;
        const index = this.#indexWrites!;
        for (const [indexKey, score, member] of batch.indexAdd) index.add(indexKey, score, member);
        for (const [indexKey, member] of batch.indexRemove) index.remove(indexKey, member);
      }
      for (const row of batch.auditAdd ?? []) this.#audit().insert(row);
      for (const part of batch.joined ?? []) {
        const other = part.store;
        if (!this.joins(other)) throw new TypeError('a joined write names a store on another SQLite connection');
        for (const [key, value] of part.set) other.#put(key, value, null);
        for (const key of part.delete) other.#remove(key);
      }
      return true;
    });
    this.#cache = readCacheOf(this.#db, table, options.readCache);
    this.#offThread = memory ? undefined : largeRowsOf(this.#db, { file: path.resolve(options.path), busyTimeoutMs: options.busyTimeoutMs ?? 5000, synchronous });
    this.#checkpoints = this.#offThread && checkpointsOf(this.#db, this.#offThread);
    this.#keysInRange = this.#db.prepare<[string, string], string>(`SELECT key FROM ${t} WHERE key >= ? AND key < ? ORDER BY key`).pluck();
    this.purgeExpired();
  }

  /**
   * Applies koa-silo's AtomicBatch in the connection's next group commit (an IMMEDIATE
   * transaction, this batch a savepoint of it): every expected value checked, then every write,
   * the sorted index's included; all or nothing, atomic across every process sharing the file,
   * and settled only once committed, durable as every commit of this store.
   */
  atomic(batch: AtomicBatch): Promise<boolean> {
    return groupCommitOf(this.#db).run(() => this.#atomic(batch));
  }

  /** Whether `other` is a store of the same connection: one transaction reaches both tables. */
  joins(other: unknown): other is SqliteStore {
    return other instanceof SqliteStore && other.#db === this.#db;
  }

  /** Every key that starts with `prefix` (koa-silo's KeyListingAdapter, for its orphan sweep). */
  keysWithPrefix(prefix: string): string[] {
    if (prefix === '') throw new TypeError('keysWithPrefix needs a prefix');
    return this.#keysInRange.all(prefix, prefixEnd(prefix));
  }

  /** The underlying connection, for health checks and maintenance. */
  get database(): Database.Database {
    return this.#db;
  }

  /** Whether the file is in WAL mode (always false for `:memory:`). */
  get walEnabled(): boolean {
    return String(this.#db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#read(key);
    if (row === null || this.#expired(row)) return undefined;
    return row.value as StoredData<Value>;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    if (keys.length === 0) return [];
    const found = new Map<string, ValueRow | null>();
    const missing: string[] = [];
    for (const key of keys) {
      const held = this.#held(key);
      if (held === undefined) missing.push(key);
      else found.set(key, held);
    }
    if (missing.length > 0 && missing.length <= FEW_KEYS) {
      // A few point reads cost less than one query over json_each: 1.2 µs a key against 3.4 µs for
      // one key and 13.5 µs for eight (a write reads one to three).
      for (const key of missing) found.set(key, this.#fetch(key));
    } else if (missing.length > 0) {
      for (const key of missing) found.set(key, null);
      for (const row of this.#getMany.all(JSON.stringify(missing))) found.set(row.key, row);
      for (const key of missing) this.#remember(key, found.get(key)!);
    }
    return keys.map((key) => {
      const row = found.get(key);
      return row === undefined || row === null || this.#expired(row) ? undefined : (row.value as StoredData<Value>);
    });
  }

  /**
   * The value of a row its reader knows to be large (a silo's blob, by its size): read by another
   * thread, off the event loop (see sqlite-large-rows.ts). koa-silo's KeyvTextStore asks for it.
   */
  async getLarge(key: string): Promise<string | undefined> {
    if (this.#offThread && !this.#closed) return this.#offThread.read(this.#table, key);
    const row = this.#read(key);
    return row === null || this.#expired(row) ? undefined : textOf(row.value);
  }

  /**
   * A row's value as the read cache holds it, proven current (null: known absent), or undefined
   * when it must be read: koa-silo's KeyvTextStore answers from it without a round through Keyv.
   */
  cached(key: string): string | null | undefined {
    const row = this.#held(key);
    if (row === undefined) return undefined;
    return row === null || this.#expired(row) ? null : textOf(row.value);
  }

  /** A row through the read cache (null: absent). */
  #read(key: string): ValueRow | null {
    const held = this.#held(key);
    return held !== undefined ? held : this.#fetch(key);
  }

  /** The read cache's row of `key` (null: known absent), or undefined when it must be read (or the store is closed). */
  #held(key: string): ValueRow | null | undefined {
    return this.#closed ? undefined : this.#cache.get(key);
  }

  /** A row from the table, kept in the read cache. */
  #fetch(key: string): ValueRow | null {
    const row = this.#get.get(key) ?? null;
    this.#remember(key, row);
    return row;
  }

  #remember(key: string, row: ValueRow | null): void {
    // Inside a transaction a read may see its uncommitted writes, which a rollback would undo.
    if (this.#db.inTransaction) return;
    // Buffers are mutable and rare (Silo stores strings): they are always read afresh.
    if (row === null) this.#cache.remember(key, null);
    else if (typeof row.value === 'string') this.#cache.remember(key, { value: row.value, expires: row.expires });
  }

  /** Every write of a row goes through these two: the read cache forgets it first; a checkpoint follows. */
  #put(key: string, value: string | Buffer, expires: number | null): void {
    this.#cache.forget(key);
    this.#checkpoints?.wrote();
    this.#set.run(key, value, expires);
  }

  #remove(key: string): number {
    this.#cache.forget(key);
    this.#checkpoints?.wrote();
    return this.#delete.run(key).changes;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    if (typeof value !== 'string' && !Buffer.isBuffer(value)) {
      throw new TypeError('SqliteStore stores strings or Buffers (Keyv serializes values before storing them)');
    }
    const expires = typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null;
    if (this.#offThread && typeof value === 'string' && value.length >= OFF_THREAD_CHARS) {
      if (this.#closed) throw new Error('the SQLite store is closed');
      // A large row (a silo's blob, put before the commit that names it): written by the worker.
      this.#cache.forget(key);
      await this.#offThread.write(this.#table, key, value, expires);
      // A read meanwhile may have kept the row as it was before.
      this.#cache.forget(key);
      return true;
    }
    await this.#inTurn(() => this.#put(key, value, expires));
    return true;
  }

  /**
   * Runs a write of this connection at once, or in its turn after the large rows this process is
   * writing on the other connection (and what was handed in before it): see sqlite-large-rows.ts.
   */
  #inTurn<T>(write: () => T): T | Promise<T> {
    return groupCommitOf(this.#db).inTurn(write);
  }

  /**
   * Writes all entries in one transaction. Keyv's `setMany` returns what the store returns, so this
   * resolves to one `true` per entry although the adapter type says `void`.
   */
  async setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    const many = this.#db.transaction((list: typeof entries) => {
      for (const { key, value, ttl } of list) {
        if (typeof value !== 'string' && !Buffer.isBuffer(value)) {
          throw new TypeError('SqliteStore stores strings or Buffers (Keyv serializes values before storing them)');
        }
        this.#put(key, value, typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null);
      }
    });
    await this.#inTurn(() => many(entries));
    return entries.map(() => true) as unknown as void;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#inTurn(() => this.#remove(key))) > 0;
  }

  /**
   * Deletes a row its caller knows to be large (a silo's blob that no commit names any more) off
   * the event loop, as getLarge reads one: freeing its thousands of overflow pages is the work.
   */
  async deleteLarge(key: string): Promise<void> {
    if (!this.#offThread || this.#closed) {
      await this.delete(key);
      return;
    }
    this.#cache.forget(key);
    await this.#offThread.delete(this.#table, key);
    this.#cache.forget(key);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    if (keys.length === 0) return false;
    return this.#inTurn(() => {
      for (const key of keys) this.#cache.forget(key);
      return this.#deleteMany.run(JSON.stringify(keys)).changes > 0;
    });
  }

  async has(key: string): Promise<boolean> {
    const row = this.#get.get(key);
    return row !== undefined && !this.#expired(row);
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    if (keys.length === 0) return [];
    const found = new Set<string>();
    for (const row of this.#getMany.all(JSON.stringify(keys))) if (!this.#expired(row)) found.add(row.key);
    return keys.map((key) => found.has(key));
  }

  /**
   * Sets `key` to `next` (deletes it when `next` is undefined) if and only if its current value is
   * `expected` (undefined: absent or expired), in one IMMEDIATE transaction: atomic across every
   * process that shares the file (koa-silo's CompareAndSwapAdapter, used for its locks).
   */
  compareAndSwap(key: string, expected: string | undefined, next: string | undefined): boolean | Promise<boolean> {
    // A batch of one, outside the group commit: a lease is taken or renewed at once (in its turn).
    return this.#inTurn(() =>
      this.#atomic.immediate({
        expect: [[key, expected]],
        set: next === undefined ? [] : [[key, next]],
        delete: next === undefined ? [key] : [],
        indexAdd: [],
        indexRemove: [],
      }),
    );
  }

  /**
   * The sorted index (koa-silo's SortedIndexAdapter capability). Its tables are made on first use,
   * so stores that never index (the region tables) get none.
   */
  get sortedIndex(): SqliteSortedIndex {
    this.#sortedIndex ??= this.#makeSortedIndex();
    return this.#sortedIndex;
  }

  /**
   * The audit log (koa-silo's AuditLogAdapter capability), its table made on first use, as the
   * sorted index's.
   */
  get auditLog(): AuditLog {
    return this.#audit().log;
  }

  #audit(): SqliteAuditLog {
    this.#auditLog ??= sqliteAuditLog(this.#db, this.#table, (write) => groupCommitOf(this.#db).run(write));
    return this.#auditLog;
  }

  #indexTables(): { rows: string; counts: string } {
    return { rows: `"${this.#table}_index"`, counts: `"${this.#table}_index_count"` };
  }

  #makeSortedIndex(): SqliteSortedIndex {
    const db = this.#db;
    const { rows, counts } = this.#indexTables();
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${rows} (index_key TEXT NOT NULL, score INTEGER NOT NULL, member TEXT NOT NULL, PRIMARY KEY (index_key, member)) WITHOUT ROWID;` +
        `CREATE INDEX IF NOT EXISTS "${this.#table}_index_order" ON ${rows} (index_key, score, member);` +
        `CREATE TABLE IF NOT EXISTS ${counts} (index_key TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;`,
    );
    const insert = db.prepare<[string, number, string]>(
      `INSERT INTO ${rows} (index_key, score, member) VALUES (?, ?, ?) ON CONFLICT (index_key, member) DO NOTHING`,
    );
    const rescore = db.prepare<[number, string, string]>(`UPDATE ${rows} SET score = ? WHERE index_key = ? AND member = ?`);
    const remove = db.prepare<[string, string]>(`DELETE FROM ${rows} WHERE index_key = ? AND member = ?`);
    const bump = db.prepare<[string, number]>(
      `INSERT INTO ${counts} (index_key, n) VALUES (?, ?) ON CONFLICT (index_key) DO UPDATE SET n = n + excluded.n`,
    );
    const dropEmpty = db.prepare<[string]>(`DELETE FROM ${counts} WHERE index_key = ? AND n <= 0`);
    const count = db.prepare<[string], number>(`SELECT n FROM ${counts} WHERE index_key = ?`).pluck();
    const range = db
      .prepare<[string, number, number], string>(
        `SELECT member FROM ${rows} WHERE index_key = ? ORDER BY score, member LIMIT ? OFFSET ?`,
      )
      .pluck();
    const checkScore = (score: number): void => {
      if (!Number.isSafeInteger(score)) throw new TypeError(`a sorted index score must be a safe integer, got ${score}`);
    };
    const addOne = (indexKey: string, score: number, member: string): number => {
      if (insert.run(indexKey, score, member).changes > 0) return 1;
      rescore.run(score, indexKey, member);
      return 0;
    };
    const addRaw = (indexKey: string, score: number, member: string): void => {
      checkScore(score);
      if (addOne(indexKey, score, member) > 0) bump.run(indexKey, 1);
    };
    const removeRaw = (indexKey: string, member: string): void => {
      if (remove.run(indexKey, member).changes === 0) return;
      bump.run(indexKey, -1);
      dropEmpty.run(indexKey);
    };
    this.#indexWrites = { add: addRaw, remove: removeRaw };
    const add = db.transaction(addRaw);
    const addMany = db.transaction((indexKey: string, entries: readonly (readonly [number, string])[]) => {
      let added = 0;
      for (const [score, member] of entries) added += addOne(indexKey, score, member);
      if (added > 0) bump.run(indexKey, added);
    });
    const removeTx = db.transaction(removeRaw);
    return {
      add(indexKey, score, member) {
        add.immediate(indexKey, score, member);
      },
      addMany(indexKey, entries) {
        for (const [score] of entries) checkScore(score);
        addMany.immediate(indexKey, entries);
      },
      remove(indexKey, member) {
        removeTx.immediate(indexKey, member);
      },
      count(indexKey) {
        return count.get(indexKey) ?? 0;
      },
      range(indexKey, offset, limit) {
        return range.all(indexKey, limit, offset);
      },
    };
  }

  /** Removes this namespace's keys (every key of the table when no namespace is set), index included. */
  async clear(): Promise<void> {
    const { rows, counts } = this.#indexTables();
    const made = (name: string) => this.#db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
    const indexed = this.#sortedIndex !== undefined || made(`${this.#table}_index`);
    const audit = this.#auditLog ?? (made(`${this.#table}_audit`) ? this.#audit() : undefined);
    const clear = this.#db.transaction(() => {
      if (this.namespace) {
        const prefix = `${this.namespace}:`;
        this.#clearRange.run(prefix, prefixEnd(prefix));
        if (indexed) {
          for (const table of [rows, counts]) {
            this.#db.prepare(`DELETE FROM ${table} WHERE index_key >= ? AND index_key < ?`).run(prefix, prefixEnd(prefix));
          }
        }
        audit?.clear(prefix);
      } else {
        this.#clearAll.run();
        if (indexed) for (const table of [rows, counts]) this.#db.prepare(`DELETE FROM ${table}`).run();
        audit?.clear();
      }
    });
    await this.#inTurn(() => {
      this.#cache.clear();
      this.#checkpoints?.wrote();
      clear.immediate();
    });
  }

  /**
   * Every live `[key, value]` whose key starts with `<namespace>:` (every key without a namespace),
   * in key order, one page of `iterationLimit` rows per query.
   */
  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const limit = this.#iterationLimit;
    const prefix = namespace ? `${namespace}:` : '';
    const end = namespace ? prefixEnd(prefix) : undefined;
    let cursor = prefix;
    let first = true;
    for (;;) {
      const rows =
        end === undefined
          ? (first ? this.#pageAllFirst : this.#pageAll).all(cursor, limit)
          : (first ? this.#pageRangeFirst : this.#pageRange).all(cursor, end, limit);
      first = false;
      for (const row of rows) {
        if (!this.#expired(row)) yield [row.key, row.value as Awaited<Value>];
      }
      if (rows.length < limit) return;
      cursor = rows[rows.length - 1]!.key;
    }
  }

  /** Deletes rows whose TTL has passed; returns how many. Run at open. */
  purgeExpired(now = Date.now()): number {
    this.#cache.clear();
    return this.#purge.run(now).changes;
  }

  /** A cheap query that fails when the database cannot be read. */
  check(): void {
    this.#db.prepare('SELECT 1').get();
  }

  async disconnect(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await closeConnection(this.#db);
  }

  #expired(row: ValueRow): boolean {
    return row.expires !== null && row.expires <= Date.now();
  }
}

/**
 * A Keyv over a SqliteStore that throws storage errors instead of swallowing them, so that the
 * service can answer 503 rather than mistaking a failed read for a missing record.
 *
 * Without `namespace` (the server's choice: each store has a table of its own), keys are stored
 * as given, with no Keyv prefix. Keyv 5 prefixes inconsistently when a key already starts with
 * `<namespace>:` (get leaves it, getMany prefixes it again), so a namespace equal to the first
 * segment of the keys (Silo's `silo:`) would make getMany miss every record.
 */
export function createSqliteKeyv(options: SqliteStoreOptions & { namespace?: string }): Keyv {
  return sqliteKeyv(new SqliteStore(options), options.namespace);
}

/** The Keyv the server puts over a SqliteStore (see createSqliteKeyv). */
export function sqliteKeyv(store: SqliteStore, namespace?: string): Keyv {
  return namespace
    ? new Keyv({ store, namespace, throwOnErrors: true })
    : new Keyv({ store, namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
}
