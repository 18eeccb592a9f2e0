/**
 * koa-silo's AtomicBatch on PostgreSQL in one round trip: a PL/pgSQL function, made with the
 * tables, takes the batch as arrays and runs it in the calling statement's transaction. Before it,
 * a batch was ten statements (BEGIN, locks, expectations, writes per table, index, COMMIT), each a
 * round trip whose socket write cost the server more CPU than the rest of a PATCH together.
 *
 * The function keeps the semantics of the statements it replaces: transaction-scoped advisory
 * locks on the (table, key) names in hash order (the same names and hashes, so instances of either
 * kind exclude each other during an upgrade), then every expectation checked, each check a
 * statement of its own that sees what committed before the locks were granted (PL/pgSQL gives
 * every statement of a volatile function a fresh snapshot under READ COMMITTED), then the writes,
 * the audit log's rows (an entry that exists fails the statement), the sorted index and its
 * counts. It returns false, having written nothing, when an expectation
 * fails; an error anywhere rolls the whole statement back.
 *
 * A count that falls to 0 is removed (a missing row counts 0, as on SQLite): an index key whose
 * members are all gone leaves nothing behind, so an import that is undone leaves an empty schema.
 */
import type { AtomicBatch, AuditRow } from 'koa-silo';

/** Versioned by name: a changed body gets a new name, so instances of two versions can share a database. */
export const ATOMIC_FUNCTION = 'silo_atomic_v3';

/** `CREATE OR REPLACE FUNCTION name(the batch as arrays, in atomicArguments' order)` with `body`. */
export function atomicFunctionSql(name: string, body: string): string {
  return `
CREATE OR REPLACE FUNCTION ${name}(
  lock_names text[],
  expect_tables text[], expect_keys text[], expect_values text[],
  set_tables text[], set_keys text[], set_values text[],
  delete_tables text[], delete_keys text[],
  index_table text,
  add_keys text[], add_scores bigint[], add_members text[],
  remove_keys text[], remove_members text[],
  audit_logs text[], audit_times bigint[], audit_ids text[], audit_silos text[], audit_actors text[], audit_entries text[]
) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $fn$${body}$fn$`;
}

/** The body's variables and its first statement: the batch's locks, in hash order. */
export const ATOMIC_PROLOGUE = `
DECLARE
  stored text;
  inserted boolean;
  removed integer;
  added integer;
BEGIN
  PERFORM pg_advisory_xact_lock(h)
    FROM (SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest(lock_names) n ORDER BY 1) s;
`;

/** After the audit rows' insert (ON CONFLICT DO NOTHING): an entry that existed fails the statement. */
export const AUDIT_INSERTED = `    GET DIAGNOSTICS added = ROW_COUNT;
    IF added < array_length(audit_ids, 1) THEN
      RAISE EXCEPTION 'an audit entry of this batch exists already' USING ERRCODE = 'unique_violation';
    END IF;
  END IF;
`;

export const ATOMIC_FUNCTION_SQL = atomicFunctionSql(
  ATOMIC_FUNCTION,
  `${ATOMIC_PROLOGUE}  FOR i IN 1 .. coalesce(array_length(expect_keys, 1), 0) LOOP
    EXECUTE format('SELECT value FROM %I WHERE key = $1', expect_tables[i]) INTO stored USING expect_keys[i];
    IF stored IS DISTINCT FROM expect_values[i] THEN
      RETURN false;
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(set_keys, 1), 0) LOOP
    EXECUTE format('INSERT INTO %I (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', set_tables[i])
      USING set_keys[i], set_values[i];
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(delete_keys, 1), 0) LOOP
    EXECUTE format('DELETE FROM %I WHERE key = $1', delete_tables[i]) USING delete_keys[i];
  END LOOP;
  IF coalesce(array_length(audit_ids, 1), 0) > 0 THEN
    EXECUTE format('INSERT INTO %I (log, time, id, silo, actor, entry) SELECT * FROM unnest($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', index_table || '_audit')
      USING audit_logs, audit_times, audit_ids, audit_silos, audit_actors, audit_entries;
${AUDIT_INSERTED}  FOR i IN 1 .. coalesce(array_length(add_keys, 1), 0) LOOP
    EXECUTE format('INSERT INTO %I (index_key, score, member) VALUES ($1, $2, $3)
                    ON CONFLICT (index_key, member) DO UPDATE SET score = EXCLUDED.score RETURNING (xmax = 0)', index_table || '_index')
      INTO inserted USING add_keys[i], add_scores[i], add_members[i];
    IF inserted THEN
      EXECUTE format('INSERT INTO %I AS c (index_key, n) VALUES ($1, 1) ON CONFLICT (index_key) DO UPDATE SET n = c.n + 1', index_table || '_index_count')
        USING add_keys[i];
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(remove_keys, 1), 0) LOOP
    EXECUTE format('DELETE FROM %I WHERE index_key = $1 AND member = $2', index_table || '_index') USING remove_keys[i], remove_members[i];
    GET DIAGNOSTICS removed = ROW_COUNT;
    IF removed > 0 THEN
      EXECUTE format('UPDATE %I SET n = n - 1 WHERE index_key = $1', index_table || '_index_count') USING remove_keys[i];
      EXECUTE format('DELETE FROM %I WHERE index_key = $1 AND n <= 0', index_table || '_index_count') USING remove_keys[i];
    END IF;
  END LOOP;
  RETURN true;
END
`,
);

/** A batch whose keys name their tables: the main table's, and each joined store's. */
export interface TableBatch {
  table: string;
  batch: AtomicBatch;
  joined: { table: string; set: readonly (readonly [string, string])[]; delete: readonly string[] }[];
}

/** The function's arguments for `batch` (a key written twice keeps its last value, as one statement per table did). */
export function atomicArguments({ table, batch, joined }: TableBatch): unknown[] {
  const locks = new Set<string>();
  for (const [key] of batch.expect) locks.add(`${table}\n${key}`);
  for (const [key] of batch.set) locks.add(`${table}\n${key}`);
  for (const key of batch.delete) locks.add(`${table}\n${key}`);

  const sets = new Map<string, [string, string, string]>();
  const deletes: [string, string][] = [];
  const write = (t: string, set: readonly (readonly [string, string])[], del: readonly string[]) => {
    for (const [key, value] of set) sets.set(`${t}\n${key}`, [t, key, value]);
    for (const key of del) deletes.push([t, key]);
  };
  write(table, batch.set, batch.delete);
  for (const part of joined) write(part.table, part.set, part.delete);
  const setRows = [...sets.values()];

  return [
    [...locks],
    batch.expect.map(() => table),
    batch.expect.map(([key]) => key),
    batch.expect.map(([, value]) => value ?? null),
    setRows.map(([t]) => t),
    setRows.map(([, key]) => key),
    setRows.map(([, , value]) => value),
    deletes.map(([t]) => t),
    deletes.map(([, key]) => key),
    table,
    batch.indexAdd.map(([key]) => key),
    batch.indexAdd.map(([, score]) => score),
    batch.indexAdd.map(([, , member]) => member),
    batch.indexRemove.map(([key]) => key),
    batch.indexRemove.map(([, member]) => member),
    ...auditColumns(batch.auditAdd ?? []),
  ];
}

/** The audit rows of a batch as the function's six arrays, one per column. */
function auditColumns(rows: readonly AuditRow[]): unknown[][] {
  for (const row of rows) if (!Number.isSafeInteger(row.time)) throw new TypeError(`an audit entry's time must be a safe integer, got ${row.time}`);
  return [rows.map((r) => r.log), rows.map((r) => r.time), rows.map((r) => r.id), rows.map((r) => r.silo ?? null), rows.map((r) => r.actor), rows.map((r) => r.entry)];
}
