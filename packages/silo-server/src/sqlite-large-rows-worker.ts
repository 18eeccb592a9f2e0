/**
 * The worker thread of sqlite-large-rows.ts: a connection of its own to the database file, which
 * writes the large rows it is sent and deletes the ones it is told to, each in an IMMEDIATE
 * transaction of its own, and reads the ones it is asked for; it also checkpoints the WAL when
 * asked (sqlite-checkpoints.ts). It answers each request when done (or why not).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { LargeRowReply, LargeRowRequest, LargeRowsSettings } from './sqlite-large-rows.js';

const settings = workerData as LargeRowsSettings;
const db = new Database(settings.file, { timeout: settings.busyTimeoutMs });
db.pragma(`synchronous = ${settings.synchronous.toUpperCase()}`);

type Row = { value: string | Buffer; expires: number | null };
const statements = new Map<
  string,
  { upsert: Database.Statement<[string, string, number | null]>; select: Database.Statement<[string], Row>; remove: Database.Statement<[string]> }
>();

/** The table name was checked by SqliteStore (TABLE_NAME) before it got here. */
function statementsOf(table: string) {
  let made = statements.get(table);
  if (!made) {
    made = {
      upsert: db.prepare(`INSERT INTO "${table}" (key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires`),
      select: db.prepare(`SELECT value, expires FROM "${table}" WHERE key = ?`),
      remove: db.prepare(`DELETE FROM "${table}" WHERE key = ?`),
    };
    statements.set(table, made);
  }
  return made;
}

function handle(request: LargeRowRequest): LargeRowReply {
  if (request.op === 'checkpoint') {
    // PASSIVE: copies what no reader still needs, never waits for (or blocks) a writer or a reader.
    db.pragma('wal_checkpoint(PASSIVE)');
    return { id: request.id };
  }
  const { upsert, select, remove } = statementsOf(request.table);
  if (request.op === 'write') {
    db.transaction(() => upsert.run(request.key, request.value, request.expires)).immediate();
    return { id: request.id };
  }
  if (request.op === 'delete') {
    db.transaction(() => remove.run(request.key)).immediate();
    return { id: request.id };
  }
  const row = select.get(request.key);
  const live = row !== undefined && (row.expires === null || row.expires > Date.now());
  return { id: request.id, ...(live ? { value: typeof row.value === 'string' ? row.value : row.value.toString('utf8') } : {}) };
}

parentPort!.on('message', (request: LargeRowRequest) => {
  let reply: LargeRowReply;
  try {
    reply = handle(request);
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    reply = { id: request.id, error: { message: message ?? String(error), ...(code ? { code } : {}) } };
  }
  parentPort!.postMessage(reply);
});
