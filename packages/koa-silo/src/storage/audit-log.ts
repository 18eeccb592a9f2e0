/**
 * The audit log on a store that keeps one of its own (AuditLogAdapter: silo-server's SQLite and
 * PostgreSQL stores): an entry is one row, inserted by the commit of the action it records
 * (`auditAdd` of its AtomicBatch), where the generic layout (audit-records.ts) writes a record and
 * three sorted-index entries, each with its count: on SQLite, in the server's own process, that
 * was most of what the audit log cost a write. Listings, counts and pruning are the store's
 * queries over the account's rows.
 *
 * Entries written in the generic layout by an earlier version stay readable: before its first
 * listing, prune or import of an account, each process moves that account's old entries into the
 * store's log (`moveOut`, a few hundred per commit, each commit removing the records and index
 * entries it inserts rows for), then checks once per account that none are left. A process of an
 * older version writing beside a newer one is not supported: its entries would wait for the next
 * process start to be moved.
 *
 * `silo` and `actor` together are answered whatever their counts: the store looks through the
 * actor's entries (or the account's), no bound of MAX_AUDIT_SCAN as in the generic layout.
 */
import type { AuditEntry } from '../model/index.js';
import type { Atomic } from './atomic.js';
import { auditIdTime, isAuditId, newAuditId, type AuditPart, type AuditStorage, type LegacyAuditStorage } from './audit-records.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import { guarded } from './storage-guard.js';
import type { StorageKeys } from './storage-keys.js';
import type { AuditLog, AuditLogAdapter, AuditLogFilter, AuditRow } from './types.js';

/** Entries removed per commit of a prune, as in the generic layout. */
const PRUNE_CHUNK = 200;

export function hasAuditLog(store: unknown): store is AuditLogAdapter {
  if (typeof store !== 'object' || store === null || !('auditLog' in store)) return false;
  const log: unknown = store.auditLog;
  return typeof log === 'object' && log !== null && ['count', 'list', 'prune'].every((m) => typeof (log as Record<string, unknown>)[m] === 'function');
}

interface Deps {
  main: KeyvTextStore;
  keys: StorageKeys;
  atomic: Atomic;
  log: AuditLog;
  /** The generic layout over the same store: where entries of earlier versions are. */
  legacy: LegacyAuditStorage;
}

export function createAuditLogRecords({ main, keys, atomic, log, legacy }: Deps): AuditStorage {
  // Stores with a log of their own are never clustered: an account's log is one part, named by its index key.
  const logOf = (account: string) => keys.audit(account).silos.index;
  const logKey = (account: string) => main.keyvKey(logOf(account));
  const call = <T>(what: string, op: () => Promise<T> | T): Promise<T> => guarded(`auditLog.${what}`, main, async () => op());

  const rowOf = (entry: AuditEntry, part: AuditPart): AuditRow => ({
    log: logOf(entry.account),
    time: auditIdTime(entry.id),
    id: entry.id,
    // As the generic layout's index of a silo: only entries of the silo writes' part.
    ...(part === 'silos' && entry.file_uuid !== undefined ? { silo: entry.file_uuid } : {}),
    actor: entry.actor.name,
    entry: JSON.stringify(entry),
  });
  const partOf = (entry: AuditEntry): AuditPart => (entry.action.startsWith('silo.') ? 'silos' : 'directory');
  const emptyBatch = { expect: [], set: [], delete: [], indexAdd: [], indexRemove: [] };

  /** Accounts whose old entries this process has moved (or is moving). */
  const moved = new Map<string, Promise<void>>();
  function movedOut(account: string): Promise<void> {
    let done = moved.get(account);
    if (!done) {
      done = legacy.moveOut(account, (entries) => entries.map(({ entry, part }) => rowOf(entry, part))).then(() => undefined);
      // A failure is tried again by the next call.
      done.catch(() => moved.delete(account));
      moved.set(account, done);
    }
    return done;
  }

  return {
    auditWrites(entry, part) {
      if (!entry) return { set: [], indexAdd: [] };
      return { set: [], indexAdd: [], auditAdd: [rowOf({ id: newAuditId(Date.parse(entry.time)), ...entry }, part)] };
    },

    async appendAudit(entry) {
      const stored: AuditEntry = { id: newAuditId(Date.parse(entry.time)), ...entry };
      if (!(await atomic.apply({ ...emptyBatch, auditAdd: [rowOf(stored, partOf(stored))] }))) throw new Error('an audit entry could not be written');
      return stored;
    },

    async importAudit(entries) {
      // One commit per account; a row that exists fails it with an error (nothing of it written).
      const groups = new Map<string, AuditRow[]>();
      for (const entry of entries) {
        if (!isAuditId(entry.id)) throw new TypeError(`audit entry id ${JSON.stringify(entry.id)} is not one Silo made`);
        let rows = groups.get(entry.account);
        if (!rows) groups.set(entry.account, (rows = []));
        rows.push(rowOf(entry, partOf(entry)));
      }
      for (const [account, rows] of groups) {
        await movedOut(account);
        if (!(await atomic.apply({ ...emptyBatch, auditAdd: rows }))) throw new Error('audit entries could not be imported');
      }
    },

    async listAudit(account, query) {
      await movedOut(account);
      const filter: AuditLogFilter = {
        ...(query.since !== undefined ? { since: query.since } : {}),
        ...(query.silo !== undefined ? { silo: query.silo } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
      };
      const key = logKey(account);
      const total = await call('count', () => log.count(key, filter));
      if (query.offset >= total || query.limit <= 0) return { total, entries: [] };
      const texts = await call('list', () => log.list(key, filter, query.offset, query.limit));
      return { total, entries: texts.map((text) => JSON.parse(text) as AuditEntry) };
    },

    async pruneAudit(account, before, max = Number.MAX_SAFE_INTEGER) {
      await movedOut(account);
      const key = logKey(account);
      // The store compares integers: every entry's time lies between the safe ones.
      const cut = Math.max(Number.MIN_SAFE_INTEGER, Math.min(before, Number.MAX_SAFE_INTEGER));
      let removed = 0;
      while (removed < max) {
        const chunk = Math.min(PRUNE_CHUNK, max - removed);
        const n = await call('prune', () => log.prune(key, cut, chunk));
        removed += n;
        if (n < chunk) break;
      }
      return removed;
    },
  };
}
