/**
 * Statements that may run twice, retried on another connection when the one they went out on was
 * lost. A restart of PostgreSQL (or pg_terminate_backend) ends every pooled connection at once,
 * but each idle client learns it only when its socket says so: until then the pool hands it out,
 * and a read on it fails although the database is back. Such a failure costs nothing to retry (a
 * dead connection answers at once and leaves the pool), so a read retries until a connection
 * holds, at most once per connection that was idle, and then once on a new one.
 *
 * Only statements whose second run does what the first would have done come here (reads, upserts
 * of a given value, deletes of what a bound selects). A batch (postgres-atomic.ts) does not: a
 * lost connection can come after its commit, and a second run would see its own writes as a
 * conflict; its caller gets the error (a 503) and may retry with its precondition.
 */
import type pg from 'pg';

/** SQLSTATEs of a session the server ended (admin or crash shutdown) or a connection that failed. */
const LOST_STATES = new Set(['57P01', '57P02', '08000', '08003', '08006']);
/** What node-postgres says of a client whose socket ended before or during its statement. */
const LOST_MESSAGES = ['Connection terminated', 'is not queryable'];
const LOST_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

/** Whether `error` says the connection went away (not that the statement or the database refused). */
export function isLostConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return LOST_STATES.has(code) || LOST_SOCKET.has(code);
  return LOST_MESSAGES.some((m) => error.message.includes(m));
}

/** `pool.query(config)`, retried on another connection while the connections it gets were lost. */
export async function queryIdempotent<R extends pg.QueryResultRow>(pool: pg.Pool, config: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult<R>> {
  const held = pool.totalCount;
  for (let lost = 0; ; lost++) {
    try {
      return await pool.query<R>(config);
    } catch (error) {
      if (!isLostConnection(error) || lost >= held) throw error;
    }
  }
}
