/**
 * Point reads of one SQLite connection served from memory while the database is proven unchanged.
 *
 * A read through better-sqlite3 is a transaction of its own (the WAL read lock taken and dropped,
 * the statement machine run): 10-15 µs inside a busy server, the largest cost of a small silo's
 * read that Silo itself adds. Most reads are of the same few rows (a silo's head, a key record, a
 * small silo's data), and nearly all of them find the row unchanged.
 *
 * What proves a cached row current:
 * - writes through this connection forget the rows they write (the store calls `forget` for every
 *   key it sets or deletes, `clear` for range deletes), before they commit;
 * - writes by any other connection (another `silo` process, the command line) change SQLite's
 *   `PRAGMA data_version`, which is read at the first cached read of each turn of the event loop:
 *   when it moved, everything is dropped. So a read never trails another process's commit by more
 *   than the turn it is in, as if it had run at the turn's start; a request that arrives after a
 *   commit elsewhere has returned always sees it (the contract's "seen at once by every instance").
 *
 * Only small string values are kept (heads, key records, small silos' data), absent rows too, in a
 * byte budget (oldest first out). Expiring rows keep their expiry and are checked at each hit.
 */

import type Database from 'better-sqlite3';

/** A row as the store reads it: its value and expiry (epoch ms), or null for an absent row. */
export interface CachedRow {
  value: string;
  expires: number | null;
}

/** Fixed cost of an entry beside its key and value, in bytes (the Map entry, the row object). */
const ENTRY_OVERHEAD = 96;

export interface SqliteReadCacheOptions {
  /** Bytes of keys and values kept in all (UTF-16: two per character). */
  budgetBytes: number;
  /** Values longer than this (characters) are not kept. */
  maxValueChars: number;
}

/**
 * 8 MiB per table: about 10 000 heads or key records (the rows every request reads), or 250 small
 * silos' data at the largest value kept; `silo serve` has four tables (main and three regions).
 */
export const DEFAULT_READ_CACHE: SqliteReadCacheOptions = { budgetBytes: 8 * 1024 * 1024, maxValueChars: 16 * 1024 };

export class SqliteReadCache {
  readonly #rows = new Map<string, CachedRow | null>();
  readonly #dataVersion: () => number;
  readonly #options: SqliteReadCacheOptions;
  #seenVersion: number | undefined;
  #checkedThisTurn = false;
  #bytes = 0;
  readonly #endTurn = () => {
    this.#checkedThisTurn = false;
  };

  /** `dataVersion` reads `PRAGMA data_version` of the connection the rows are read through. */
  constructor(dataVersion: () => number, options: SqliteReadCacheOptions = DEFAULT_READ_CACHE) {
    this.#dataVersion = dataVersion;
    this.#options = options;
  }

  /**
   * The cached row of `key` (null: known absent), or undefined when it must be read. Checks, once
   * per turn, that no other connection has committed since the rows were read.
   */
  get(key: string): CachedRow | null | undefined {
    if (this.#options.budgetBytes <= 0) return undefined;
    if (!this.#checkedThisTurn) {
      this.#checkedThisTurn = true;
      setImmediate(this.#endTurn);
      const version = this.#dataVersion();
      if (version !== this.#seenVersion) {
        this.#seenVersion = version;
        this.clear();
        return undefined;
      }
    }
    return this.#rows.get(key);
  }

  /**
   * Keeps what a read just returned. Call only right after reading it, in the same synchronous
   * stretch (no write of this connection can come between; one of another is caught by the next
   * turn's check).
   */
  remember(key: string, row: CachedRow | null): void {
    if (this.#options.budgetBytes <= 0 || (row !== null && row.value.length > this.#options.maxValueChars)) return;
    this.forget(key);
    this.#rows.set(key, row);
    this.#bytes += sizeOf(key, row);
    if (this.#bytes > this.#options.budgetBytes) this.#evict();
  }

  /**
   * Drops the oldest rows until a quarter of the budget is free. In one go, not one row per row
   * kept: a Map leaves a hole for each entry deleted until it rehashes, and iteration from the
   * front walks every hole, so evicting one oldest row per insert cost 14 µs at 50 000 rows.
   */
  #evict(): void {
    const target = (this.#options.budgetBytes * 3) / 4;
    for (const [oldest, old] of this.#rows) {
      if (this.#bytes <= target) break;
      this.#rows.delete(oldest);
      this.#bytes -= sizeOf(oldest, old);
    }
  }

  /** Drops `key` (this connection is writing it). */
  forget(key: string): void {
    const old = this.#rows.get(key);
    if (old === undefined) return;
    this.#rows.delete(key);
    this.#bytes -= sizeOf(key, old);
  }

  /** Drops every row (a range delete, or another connection's commit). */
  clear(): void {
    this.#rows.clear();
    this.#bytes = 0;
  }

  /** Rows kept (tests). */
  get size(): number {
    return this.#rows.size;
  }
}

function sizeOf(key: string, row: CachedRow | null): number {
  return ENTRY_OVERHEAD + 2 * key.length + (row === null ? 0 : 2 * row.value.length);
}

const caches = new WeakMap<Database.Database, Map<string, SqliteReadCache>>();

/**
 * The read cache of `table` on connection `db`, shared by every store of that table on it (two
 * stores of one file in one process share the connection, so one's write must reach the other's
 * cache). The first store to ask sets its options.
 */
export function readCacheOf(db: Database.Database, table: string, options: SqliteReadCacheOptions = DEFAULT_READ_CACHE): SqliteReadCache {
  let tables = caches.get(db);
  if (!tables) caches.set(db, (tables = new Map()));
  let cache = tables.get(table);
  if (!cache) {
    const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    tables.set(table, (cache = new SqliteReadCache(() => dataVersion.get()!, options)));
  }
  return cache;
}
