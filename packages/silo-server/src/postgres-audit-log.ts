/**
 * The audit log of a PostgresStore (koa-silo's AuditLogAdapter): one row per entry in
 * `<table>_audit`, inserted by the atomic function (postgres-atomic.ts) in the statement of the
 * action it records; read here. The layout is SQLite's (sqlite-audit-log.ts says why): a unique
 * index (log, time, id DESC) whose backward scan is the listing's order (newest first, then
 * ascending id) and `since` a range of, one index by actor, none by silo (a `silo` listing reads
 * the account's rows), counts counted over the matching range, never kept in a row that every
 * write of an account would lock. A listing's count and first page (benchmarks/ops/audit-count.ts,
 * 100 000 entries of one account): 10 ms for all, 5 ms with `since` or an actor (half, a third of
 * them), 12 ms with `silo`; linear in the entries counted.
 */
import type { AuditLog, AuditLogFilter } from 'koa-silo';

/** Runs one statement (a named one: planned once per connection) and gives its rows. */
export type RunQuery = <R>(text: string, values: unknown[]) => Promise<R[]>;

/** The statements that make `<table>_audit` and its indexes (at open, under the schema lock). */
export function auditLogSchema(table: string): string[] {
  const t = `"${table}_audit"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (log text COLLATE "C" NOT NULL, time bigint NOT NULL, id text COLLATE "C" NOT NULL, silo text COLLATE "C", actor text COLLATE "C" NOT NULL, entry text NOT NULL)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS "${table}_audit_order" ON ${t} (log, time, id DESC)`,
    `CREATE INDEX IF NOT EXISTS "${table}_audit_actor" ON ${t} (log, actor, time, id DESC)`,
  ];
}

/** The bigint bounds of a time: every entry's time lies between the safe integers. */
const bounded = (time: number) => Math.max(Number.MIN_SAFE_INTEGER, Math.min(Math.ceil(time), Number.MAX_SAFE_INTEGER));

export function postgresAuditLog(table: string, run: RunQuery): AuditLog {
  const t = `"${table}_audit"`;
  const where = (log: string, filter: AuditLogFilter) => {
    const conditions = ['log = $1'];
    const values: unknown[] = [log];
    const and = (column: string, op: string, value: unknown) => {
      values.push(value);
      conditions.push(`${column} ${op} $${values.length}`);
    };
    if (filter.since !== undefined) and('time', '>=', bounded(filter.since));
    if (filter.silo !== undefined) and('silo', '=', filter.silo);
    if (filter.actor !== undefined) and('actor', '=', filter.actor);
    return { sql: conditions.join(' AND '), values };
  };
  return {
    async count(log, filter) {
      const { sql, values } = where(log, filter);
      const rows = await run<{ n: string }>(`SELECT count(*) AS n FROM ${t} WHERE ${sql}`, values);
      return Number(rows[0]?.n ?? 0);
    },
    async list(log, filter, offset, limit) {
      const { sql, values } = where(log, filter);
      const n = values.length;
      const rows = await run<{ entry: string }>(`SELECT entry FROM ${t} WHERE ${sql} ORDER BY time DESC, id LIMIT $${n + 1} OFFSET $${n + 2}`, [...values, limit, offset]);
      return rows.map((r) => r.entry);
    },
    async prune(log, before, max) {
      // The oldest first, in one statement: its own transaction.
      const rows = await run<{ n: string }>(
        `WITH gone AS (DELETE FROM ${t} WHERE (log, time, id) IN (SELECT log, time, id FROM ${t} WHERE log = $1 AND time < $2 ORDER BY time, id DESC LIMIT $3) RETURNING 1) SELECT count(*) AS n FROM gone`,
        [log, bounded(before), max],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
