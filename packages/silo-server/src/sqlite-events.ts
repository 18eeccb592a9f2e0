/**
 * The change feed's transport on SQLite, for processes sharing one file (two `silo serve` on one
 * data directory, or the `silo` command beside a server): each event is a row of `silo_events` in
 * that file, and every listening process reads the rows after the last one it saw, every POLL_MS
 * (and at once after writing rows of its own).
 *
 * Ordered: every listener hears every row in id order, its own included, and delivers its own
 * events as it hears them back (SharedBus, `ordered`), so that every process's feed has one order.
 * (Delivered at once, a process's own delete went out before the create and update it had not yet
 * read from the table.) One limit: an event is written in the group commit after its write's, so
 * two writes through two processes within that moment may be heard in either order.
 *
 * Only when someone listens: a listening process (one with subscribers) keeps a row of its own in
 * `silo_event_listeners`, renewed while it lives, and an event is written only while a live row is
 * there. A server without subscribers, alone on its file, pays one small read per event, no write.
 * Race-free: a listener's row is committed before its first subscriber is counted (listen runs
 * synchronously up to its commit), so any write that commits after that sees the row when its
 * event is sent; a write that committed before then happened before anyone there subscribed.
 *
 * Row ids are AUTOINCREMENT (never reused, even once pruned) and SQLite commits one writer at a
 * time, so a reader that has seen id n has seen every id below it: "after the last id seen" misses
 * nothing. Rows older than KEEP_MS are pruned by the listeners.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SharedBus, type BusTransport, type EventBus } from 'koa-silo';
import { groupCommitOf } from './group-commit.js';

/** How often a listener reads new events: the feed's delay across processes, at most. */
export const POLL_MS = 200;
/** A listener's row lives this long unless renewed (a killed process stops costing writes after it). */
const LISTENER_TTL_MS = 30_000;
const RENEW_MS = 10_000;
/** Events are kept this long: far beyond any poll, so that a listener busy for a while misses none. */
const KEEP_MS = 60_000;
/** Rows read per query; a listener reads again at once while pages come back full. */
const PAGE = 500;

function sqliteTransport(db: Database.Database): BusTransport {
  db.exec(
    'CREATE TABLE IF NOT EXISTS silo_events (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, body TEXT NOT NULL);' +
      'CREATE TABLE IF NOT EXISTS silo_event_listeners (id TEXT PRIMARY KEY, expires INTEGER NOT NULL) WITHOUT ROWID;',
  );
  const self = randomBytes(8).toString('base64url');
  const anyoneListens = db.prepare<[number], number>('SELECT EXISTS (SELECT 1 FROM silo_event_listeners WHERE expires > ?)').pluck();
  /** Reads new rows soon, once this process listens (after its own rows are committed). */
  let pollSoon: (() => void) | undefined;
  const insert = db.prepare<[number, string]>('INSERT INTO silo_events (at, body) VALUES (?, ?)');
  const register = db.prepare<[string, number]>(
    'INSERT INTO silo_event_listeners (id, expires) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET expires = excluded.expires',
  );
  const unregister = db.prepare<[string]>('DELETE FROM silo_event_listeners WHERE id = ?');
  const pruneEvents = db.prepare<[number]>('DELETE FROM silo_events WHERE at < ?');
  const pruneListeners = db.prepare<[number]>('DELETE FROM silo_event_listeners WHERE expires < ?');
  const lastId = db.prepare<[], number | null>('SELECT max(id) FROM silo_events').pluck();
  const after = db.prepare<[number, number], { id: number; body: string }>('SELECT id, body FROM silo_events WHERE id > ? ORDER BY id LIMIT ?');

  return {
    ordered: true,

    async send(text) {
      if (anyoneListens.get(Date.now()) !== 1) return false;
      // Joins the next group commit: under load, beside the writes of that turn.
      await groupCommitOf(db).run(() => insert.run(Date.now(), text));
      pollSoon?.();
      return true;
    },

    async listen(hear) {
      // The cursor first, then the row that makes every process write its events: nothing
      // committed in between is lost, since no event is written for this process before its row.
      // (The row stays while the process lives, subscribers or not: SharedBus listens on.)
      let seen = lastId.get() ?? 0;
      db.transaction(() => register.run(self, Date.now() + LISTENER_TTL_MS)).immediate();
      let renewedAt = Date.now();
      const poll = () => {
        try {
          for (;;) {
            const rows = after.all(seen, PAGE);
            for (const row of rows) hear(row.body);
            if (rows.length > 0) seen = rows[rows.length - 1]!.id;
            if (rows.length < PAGE) break;
          }
          const now = Date.now();
          if (now - renewedAt >= RENEW_MS) {
            renewedAt = now;
            // A failed renewal is tried again at the next poll (the row outlives three of them).
            groupCommitOf(db)
              .run(() => {
                register.run(self, now + LISTENER_TTL_MS);
                pruneEvents.run(now - KEEP_MS);
                pruneListeners.run(now);
              })
              .catch(() => {
                renewedAt = 0;
              });
          }
        } catch {
          // A busy or closed database: the next poll tries again (events wait KEEP_MS for it).
        }
      };
      const timer = setInterval(poll, POLL_MS).unref();
      let soon = false;
      pollSoon = () => {
        if (soon) return;
        soon = true;
        setImmediate(() => {
          soon = false;
          poll();
        });
      };
      return () => {
        pollSoon = undefined;
        clearInterval(timer);
        if (db.open) db.transaction(() => unregister.run(self)).immediate();
      };
    },
  };
}

/** The bus of every process on the SQLite file of `db` (its main store's connection). */
export function sqliteBus(db: Database.Database, log: (message: string, fields: Record<string, unknown>) => void): EventBus {
  return new SharedBus(sqliteTransport(db), (message, error) => log(message, { error: (error as Error).message }));
}
