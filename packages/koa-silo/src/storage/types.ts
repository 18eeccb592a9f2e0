/**
 * What the storage facade stores and the capabilities it offers the service layer.
 * The service layer composes these into the contract's rules; nothing here knows those rules.
 */
import type { Account, KeyInfo, Region, SiloDataRecord, SiloRecord } from '../service/types.js';

/** A key as stored: its public facts plus the SHA-256 (hex) of its value. Never the value. */
export interface StoredKey extends KeyInfo {
  hash: string;
}

/** One page of an account's listing index: silo uuids newest first, and the true total. */
export interface IndexPage {
  total: number;
  uuids: string[];
}

/** What the listing index needs to order an entry: created_at desc, ties by file_uuid asc. */
export interface IndexEntry {
  uuid: string;
  createdAtMs: number;
}

/**
 * The per-account listing index. Every method is atomic with respect to every other caller that
 * shares the storage (other processes too, where the backend allows it: see `coordination`).
 */
export interface ListIndex {
  add(account: string, entry: IndexEntry): Promise<void>;
  remove(account: string, uuid: string): Promise<void>;
  /** `offset` entries skipped, at most `limit` returned; a sorted index reads only the page, the JSON fallback the whole index. */
  page(account: string, offset: number, limit: number): Promise<IndexPage>;
}

/** Mutual exclusion by name, for read-modify-write sequences. */
export interface Locks {
  /** Runs `fn` while holding the lock `name`; waits for it first. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** How far the atomicity of this storage reaches. */
export type Coordination =
  /** Redis native commands: atomic across every process sharing the Redis. */
  | 'redis'
  /** The store adapter's `compareAndSwap`: atomic across every process sharing the store. */
  | 'compare-and-swap'
  /** In-process mutexes: atomic within this storage object only (memory, one embedded process). */
  | 'in-process';

export interface SiloStorage {
  readonly coordination: Coordination;
  readonly locks: Locks;
  readonly index: ListIndex;

  getAccount(name: string): Promise<Account | undefined>;
  /** Stores the account unless one of that name exists; false when it does. Atomic. */
  insertAccount(account: Account): Promise<boolean>;
  listAccountNames(): Promise<string[]>;

  getKeyByHash(hash: string): Promise<StoredKey | undefined>;
  listKeys(account: string): Promise<StoredKey[]>;
  /** Stores the key unless its account has a key of that type and name; false when it does. Atomic. */
  insertKey(key: StoredKey): Promise<boolean>;
  /** Removes the key of that account, type and name and returns it; undefined when none. Atomic. */
  removeKey(account: string, type: KeyInfo['type'], name: string): Promise<StoredKey | undefined>;

  getMeta(uuid: string): Promise<SiloRecord | undefined>;
  /** Metadata of many silos in one go (listing); undefined where a silo has none. */
  getMetas(uuids: string[]): Promise<(SiloRecord | undefined)[]>;
  putMeta(record: SiloRecord): Promise<void>;
  deleteMeta(uuid: string): Promise<void>;

  /** The data record of a silo in one region's store: one storage round trip. */
  getData(region: Region, uuid: string): Promise<SiloDataRecord | undefined>;
  /** Writes `text` with `record` as its header; `record.region_name` must equal `region`. */
  putData(region: Region, record: SiloRecord, text: string): Promise<void>;
  deleteData(region: Region, uuid: string): Promise<void>;

  /** Disconnects every distinct Keyv given to the storage. */
  close(): Promise<void>;
}

/**
 * An optional capability of a Keyv store adapter that makes Silo's read-modify-write sequences
 * atomic across every process sharing the store (without it, and without Redis, they are atomic
 * within one storage object only). Keys are as the adapter receives them from Keyv; values are the
 * strings Silo stores (Silo's Keyv serializer is the identity on strings).
 */
export interface CompareAndSwapAdapter {
  /**
   * Sets `key` to `next` (deletes it when `next` is undefined) if and only if its current value is
   * `expected` (undefined: the key is absent). True when it did, in one atomic step.
   */
  compareAndSwap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> | boolean;
}

/**
 * Sorted sets kept by the store itself (an optional capability, see `SortedIndexAdapter`): each
 * `indexKey` holds distinct members, each with an integer score, read in ascending order of
 * (score, member) as Redis's ZRANGE reads them. Keys are as the adapter receives them from Keyv.
 */
export interface SortedIndex {
  /** Adds `member` with `score` (sets its score when it is there already), in one atomic step. */
  add(indexKey: string, score: number, member: string): Promise<void> | void;
  /** Adds every entry, in one atomic step (optional: used once, to take over a JSON index). */
  addMany?(indexKey: string, entries: readonly (readonly [score: number, member: string])[]): Promise<void> | void;
  /** Removes `member`, if there, in one atomic step. */
  remove(indexKey: string, member: string): Promise<void> | void;
  /** How many members `indexKey` holds; cost independent of that number. */
  count(indexKey: string): Promise<number> | number;
  /** Members in ascending (score, member) order, `offset` skipped, at most `limit`. */
  range(indexKey: string, offset: number, limit: number): Promise<string[]> | string[];
}

/**
 * An optional capability of a Keyv store adapter: a native sorted index (for example a table of
 * an SQLite adapter), used for the listing index instead of one JSON array per account. Its writes
 * must be atomic across every process sharing the store.
 */
export interface SortedIndexAdapter {
  readonly sortedIndex: SortedIndex;
}
