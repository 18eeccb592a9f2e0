/**
 * The worker thread of sqlite-blob-writer.ts: a connection of its own to the database file, which
 * writes the large rows it is sent, each in an IMMEDIATE transaction of its own, and says when each
 * is committed (or why not).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { BlobWorkerSettings, BlobWrite, BlobWritten } from './sqlite-blob-writer.js';

const settings = workerData as BlobWorkerSettings;
const db = new Database(settings.file, { timeout: settings.busyTimeoutMs });
db.pragma(`synchronous = ${settings.synchronous.toUpperCase()}`);
const upserts = new Map<string, Database.Statement<[string, string, number | null]>>();

function upsertInto(table: string): Database.Statement<[string, string, number | null]> {
  let statement = upserts.get(table);
  if (!statement) {
    // The table name was checked by SqliteStore (TABLE_NAME) before it got here.
    statement = db.prepare(
      `INSERT INTO "${table}" (key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    );
    upserts.set(table, statement);
  }
  return statement;
}

parentPort!.on('message', ({ id, table, key, value, expires }: BlobWrite) => {
  let reply: BlobWritten;
  try {
    const upsert = upsertInto(table);
    db.transaction(() => upsert.run(key, value, expires)).immediate();
    reply = { id };
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    reply = { id, error: { message: message ?? String(error), ...(code ? { code } : {}) } };
  }
  parentPort!.postMessage(reply);
});
