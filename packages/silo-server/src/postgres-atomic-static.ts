/**
 * The atomic batch's function (postgres-atomic.ts) made for the tables of one deployment, with
 * their names written in: the generic function runs every row through EXECUTE, which parses and
 * plans its statement at every call, and that planning was most of what a write cost PostgreSQL
 * (one connection calling it for PATCH-like batches: 1.14 ms each, 0.87 ms with static statements,
 * whose plans PL/pgSQL keeps for the session).
 *
 * The body is the generic one's, statement for statement, with each `EXECUTE format(..., table)`
 * replaced by a CASE over the deployment's tables; a batch naming a table the function was not
 * made for raises an error before it writes anything, and the store uses the generic function for
 * such a batch (it cannot happen: a store joins only stores on its pool, all of which are known).
 * Its name carries a digest of its text, so instances of one deployment share it, and a change of
 * tables or of the body gets a function of its own.
 */
import { createHash } from 'node:crypto';
import { ATOMIC_PROLOGUE, AUDIT_INSERTED, atomicFunctionSql } from './postgres-atomic.js';

/** The function's name and its CREATE statement, for the store tables `tables` (each with its _index, _index_count and _audit). */
export function staticAtomicFunction(tables: readonly string[]): { name: string; sql: (name: string) => string; tables: ReadonlySet<string> } {
  const sorted = [...new Set(tables)].sort();
  const body = functionBody(sorted);
  const name = `silo_atomic_t_${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
  return { name, sql: (n) => atomicFunctionSql(n, body), tables: new Set(sorted) };
}

const q = (identifier: string) => `"${identifier}"`;
const lit = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** `CASE selector WHEN 'table' THEN statement(table) ... ELSE RAISE ... END CASE;` */
function perTable(selector: string, tables: readonly string[], statement: (table: string) => string): string {
  const whens = tables.map((t) => `      WHEN ${lit(t)} THEN ${statement(t)}`).join('\n');
  return `CASE ${selector}\n${whens}\n      ELSE RAISE EXCEPTION 'silo: no such store table: %', ${selector};\n    END CASE;`;
}

function functionBody(tables: readonly string[]): string {
  return `${ATOMIC_PROLOGUE}  FOR i IN 1 .. coalesce(array_length(expect_keys, 1), 0) LOOP
    ${perTable('expect_tables[i]', tables, (t) => `SELECT value INTO stored FROM ${q(t)} WHERE key = expect_keys[i];`)}
    IF stored IS DISTINCT FROM expect_values[i] THEN
      RETURN false;
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(set_keys, 1), 0) LOOP
    ${perTable('set_tables[i]', tables, (t) => `INSERT INTO ${q(t)} (key, value) VALUES (set_keys[i], set_values[i]) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;`)}
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(delete_keys, 1), 0) LOOP
    ${perTable('delete_tables[i]', tables, (t) => `DELETE FROM ${q(t)} WHERE key = delete_keys[i];`)}
  END LOOP;
  IF coalesce(array_length(audit_ids, 1), 0) > 0 THEN
    ${perTable('index_table', tables, (t) => `INSERT INTO ${q(`${t}_audit`)} (log, time, id, silo, actor, entry) SELECT * FROM unnest(audit_logs, audit_times, audit_ids, audit_silos, audit_actors, audit_entries) ON CONFLICT DO NOTHING;`)}
${AUDIT_INSERTED}  FOR i IN 1 .. coalesce(array_length(add_keys, 1), 0) LOOP
    ${perTable(
      'index_table',
      tables,
      (t) =>
        `INSERT INTO ${q(`${t}_index`)} (index_key, score, member) VALUES (add_keys[i], add_scores[i], add_members[i]) ` +
        `ON CONFLICT (index_key, member) DO UPDATE SET score = EXCLUDED.score RETURNING (xmax = 0) INTO inserted;`,
    )}
    IF inserted THEN
      ${perTable('index_table', tables, (t) => `INSERT INTO ${q(`${t}_index_count`)} AS c (index_key, n) VALUES (add_keys[i], 1) ON CONFLICT (index_key) DO UPDATE SET n = c.n + 1;`)}
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(remove_keys, 1), 0) LOOP
    ${perTable('index_table', tables, (t) => `DELETE FROM ${q(`${t}_index`)} WHERE index_key = remove_keys[i] AND member = remove_members[i];`)}
    GET DIAGNOSTICS removed = ROW_COUNT;
    IF removed > 0 THEN
      ${perTable(
        'index_table',
        tables,
        (t) =>
          `UPDATE ${q(`${t}_index_count`)} SET n = n - 1 WHERE index_key = remove_keys[i]; ` +
          `DELETE FROM ${q(`${t}_index_count`)} WHERE index_key = remove_keys[i] AND n <= 0;`,
      )}
    END IF;
  END LOOP;
  RETURN true;
END
`;
}
