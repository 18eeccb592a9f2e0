/**
 * The audit log of a SqliteStore (koa-silo's AuditLogAdapter): one row per entry in
 * `<table>_audit`, inserted by the atomic batch of the action it records.
 *
 * Layout, chosen by what a write costs (benchmarks/ops/cost.ts; each B-tree page a group commit
 * changes is written to the WAL):
 * - The row is the entry: a WITHOUT ROWID table keyed (log, time, id DESC), so an entry is one
 *   B-tree insert, at the right edge of its account's range (time grows; within one millisecond
 *   ids fall, hence DESC): the batches of one group commit share that page. Read backwards, the
 *   key is the listing's order (newest first, then ascending id) and `since` a key range.
 * - One secondary index, by actor: actors are few (keys, users), so their right edges are few
 *   pages, and "what did this key do" stays a range read.
 * - No index by silo: entries of the silos written in one group commit would each dirty a page of
 *   their own (measured: an entry's insert took 18 µs with it, 9 µs without). A `silo` listing
 *   reads the account's rows instead.
 * - `total_items` is counted, exactly, over the matching range: a kept count would be one more
 *   row written by every entry (and on PostgreSQL a row lock that every write of an account
 *   waits for). The bound, from benchmarks/ops/audit-count.ts (100 000 entries of one account, 2
 *   cores): a listing's count and first page take 3 ms for all of them, 5 to 8 ms with `since`
 *   (per 50 000 counted), 1 ms for an actor's third, 17 to 21 ms with `silo` (a read of every
 *   row of the account): linear in the entries counted, so an account that writes a million
 *   entries within its retention pays about ten times that per listing.
 */
import type Database from 'better-sqlite3';
import type { AuditLog, AuditLogFilter, AuditRow } from 'koa-silo';
import { prefixEnd } from './store-adapter.js';

export interface SqliteAuditLog {
  /** The reads and the prune (through `commit`, the connection's group commit). */
  log: AuditLog;
  /** Inserts a row within the caller's transaction (an atomic batch); throws when its log and id exist. */
  insert(row: AuditRow): void;
  /** Removes every row (those whose log starts with `prefix`), within the caller's transaction. */
  clear(prefix?: string): void;
}

type Commit = <T>(write: () => T) => Promise<T>;

/** Makes `<table>_audit` when missing; `commit` runs a write in the connection's next group commit. */
export function sqliteAuditLog(db: Database.Database, table: string, commit: Commit): SqliteAuditLog {
  const t = `"${table}_audit"`;
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${t} (log TEXT NOT NULL, time INTEGER NOT NULL, id TEXT NOT NULL, silo TEXT, actor TEXT NOT NULL, entry TEXT NOT NULL, ` +
      `PRIMARY KEY (log, time, id DESC)) WITHOUT ROWID;` +
      `CREATE INDEX IF NOT EXISTS "${table}_audit_actor" ON ${t} (log, actor, time, id DESC);`,
  );
  const insert = db.prepare<[string, number, string, string | null, string, string]>(
    `INSERT INTO ${t} (log, time, id, silo, actor, entry) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const pruneOldest = db.prepare<[string, string, number, number]>(
    `DELETE FROM ${t} WHERE log = ? AND (time, id) IN (SELECT time, id FROM ${t} WHERE log = ? AND time < ? ORDER BY time, id DESC LIMIT ?)`,
  );
  const prune = db.transaction((log: string, before: number, max: number) => pruneOldest.run(log, log, before, max).changes);
  const clearAll = db.prepare(`DELETE FROM ${t}`);
  const clearRange = db.prepare<[string, string]>(`DELETE FROM ${t} WHERE log >= ? AND log < ?`);

  /** One statement per combination of filters, prepared on first use. */
  const statements = new Map<string, { count: Database.Statement<unknown[], number>; list: Database.Statement<unknown[], string> }>();
  const query = (log: string, filter: AuditLogFilter) => {
    const where = ['log = ?'];
    const args: unknown[] = [log];
    const and = (condition: string, value: unknown) => {
      where.push(condition);
      args.push(value);
    };
    if (filter.since !== undefined) and('time >= ?', Math.max(Number.MIN_SAFE_INTEGER, Math.min(Math.ceil(filter.since), Number.MAX_SAFE_INTEGER)));
    if (filter.silo !== undefined) and('silo = ?', filter.silo);
    if (filter.actor !== undefined) and('actor = ?', filter.actor);
    const shape = where.join(' AND ');
    let made = statements.get(shape);
    if (!made) {
      // Without statistics the planner reads an actor's entries through the primary key (no sort
      // needed), that is every entry of the account; its index gives the same order. With `silo`
      // too, every row the index finds must be read for its silo: the primary key's scan is faster
      // (measured: 17 against 25 ms for 100 000 entries, a third of them the actor's).
      const from = filter.actor !== undefined && filter.silo === undefined ? `${t} INDEXED BY "${table}_audit_actor"` : t;
      made = {
        count: db.prepare<unknown[], number>(`SELECT count(*) FROM ${from} WHERE ${shape}`).pluck(),
        list: db.prepare<unknown[], string>(`SELECT entry FROM ${from} WHERE ${shape} ORDER BY time DESC, id LIMIT ? OFFSET ?`).pluck(),
      };
      statements.set(shape, made);
    }
    return { ...made, args };
  };

  return {
    log: {
      count(log, filter) {
        const { count, args } = query(log, filter);
        return count.get(...args) ?? 0;
      },
      list(log, filter, offset, limit) {
        const { list, args } = query(log, filter);
        return list.all(...args, limit, offset);
      },
      prune(log, before, max) {
        return commit(() => prune(log, before, max));
      },
    },
    insert(row) {
      if (!Number.isSafeInteger(row.time)) throw new TypeError(`an audit entry's time must be a safe integer, got ${row.time}`);
      if (insert.run(row.log, row.time, row.id, row.silo ?? null, row.actor, row.entry).changes === 0) {
        throw new Error(`audit entry ${JSON.stringify(row.id)} exists already`);
      }
    },
    clear(prefix) {
      if (prefix === undefined) clearAll.run();
      else clearRange.run(prefix, prefixEnd(prefix));
    },
  };
}
