/**
 * The listing index on a Keyv store without a sorted index of its own (see sorted-list-index.ts
 * for SQLite and in-memory Keyv): one JSON array per account of `[created_at ms, uuid]`,
 * kept sorted newest first (ties by uuid ascending), changed only under a lock so that concurrent
 * creates never overwrite each other's entries. How far that lock reaches (this process, or every
 * process sharing the store) is the lock's business.
 *
 * Costs are linear in the account's silo count (the whole array is parsed and rewritten on every
 * create and delete, parsed on every page); listing never reads data.
 */
import type { KeyvTextStore } from './keyv-text-store.js';
import type { StorageKeys } from './storage-keys.js';
import type { IndexEntry, IndexPage, ListIndex, Locks } from './types.js';

export type IndexRow = [createdAtMs: number, uuid: string];
type Row = IndexRow;

/** Newest first; equal times by uuid ascending. */
function before(a: Row, b: Row): boolean {
  return a[0] !== b[0] ? a[0] > b[0] : a[1] < b[1];
}

export function parseIndexRows(text: string | undefined): Row[] {
  if (text === undefined) return [];
  const rows: unknown = JSON.parse(text);
  return Array.isArray(rows) ? (rows as Row[]) : [];
}

export class JsonListIndex implements ListIndex {
  constructor(
    private readonly store: KeyvTextStore,
    private readonly keys: StorageKeys,
    private readonly locks: { withLock: Locks['withLock'] },
  ) {}

  async #update(account: string, change: (rows: Row[]) => boolean): Promise<void> {
    const key = this.keys.index(account);
    await this.locks.withLock(key, async () => {
      const rows = parseIndexRows(await this.store.get(key));
      if (change(rows)) await this.store.set(key, JSON.stringify(rows));
    });
  }

  add(account: string, entry: IndexEntry): Promise<void> {
    const row: Row = [entry.createdAtMs, entry.uuid];
    return this.#update(account, (rows) => {
      if (rows.some((r) => r[1] === entry.uuid)) return false;
      // Binary search for the first row that the new one comes before.
      let lo = 0;
      let hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (before(rows[mid] as Row, row)) lo = mid + 1;
        else hi = mid;
      }
      rows.splice(lo, 0, row);
      return true;
    });
  }

  remove(account: string, uuid: string): Promise<void> {
    return this.#update(account, (rows) => {
      const at = rows.findIndex((r) => r[1] === uuid);
      if (at < 0) return false;
      rows.splice(at, 1);
      return true;
    });
  }

  async page(account: string, offset: number, limit: number): Promise<IndexPage> {
    const rows = parseIndexRows(await this.store.get(this.keys.index(account)));
    return { total: rows.length, uuids: rows.slice(offset, offset + limit).map((r) => r[1]) };
  }
}
