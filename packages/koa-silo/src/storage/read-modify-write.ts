/**
 * Read-modify-write of a few records without a lock: read them, decide the writes, commit them in
 * one atomic batch that expects every record as it was read; when another writer got in between,
 * read again. For small records that change seldom (account and key lists, webhook lists).
 */
import type { Atomic } from './atomic.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { AtomicBatch } from './types.js';

/** What a change decides: its result, and the writes (none: nothing is committed). */
export interface Decision<T> {
  result: T;
  set?: [string, string][];
  delete?: string[];
  /** Sorted index entries added in the same commit (an audit entry's). */
  indexAdd?: AtomicBatch['indexAdd'];
  /** Audit log rows added in the same commit (an audit entry's, on a store with a log of its own). */
  auditAdd?: AtomicBatch['auditAdd'];
}

export type ReadModifyWrite = <T>(read: string[], decide: (texts: (string | undefined)[]) => Decision<T>) => Promise<T>;

const TRIES = 20;

export function readModifyWriteOf(main: KeyvTextStore, atomic: Atomic): ReadModifyWrite {
  return async (read, decide) => {
    for (let i = 0; i < TRIES; i++) {
      const texts = await main.getMany(read);
      const { result, set = [], delete: del = [], indexAdd = [], auditAdd = [] } = decide(texts);
      if (set.length === 0 && del.length === 0 && auditAdd.length === 0) return result;
      const ok = await atomic.apply({ expect: read.map((key, n) => [key, texts[n]]), set, delete: del, indexAdd, indexRemove: [], ...(auditAdd.length > 0 ? { auditAdd } : {}) });
      if (ok) return result;
    }
    throw new Error(`${read.join(', ')} kept changing under ${TRIES} attempts`);
  };
}
