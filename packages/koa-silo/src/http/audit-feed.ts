/**
 * The account's audit feed (contract §19): `GET /api/v1/manage/audit/events` with a manage key,
 * server-sent `audit` events, one per entry of the account's audit log as it is committed, the
 * entry as the listing shows it in `data`.
 *
 * The feed reads the log itself, every POLL_MS: the log is the one place every action of every
 * instance reaches (an action and its entry commit together), whatever the store, so the feed
 * needs no bus of its own and never shows an entry that did not commit. Each read asks for the
 * entries of the last LATE_MS too: an entry is timed when its action starts and commits later, and
 * instances' clocks differ a little, so one may land behind entries already sent. An entry's JSON
 * is its identity in the feed: what was sent is remembered for as long as it could reappear.
 *
 * Resuming: an event's id is its entry's time; `Last-Event-ID` (or `?since=`, an RFC 3339 time)
 * replays the entries at or after it (a feed without one starts with the entries after it opens), up to MAX_REPLAY (past that, one `reset` event tells the
 * client to read the rest from the listing, and the feed goes on live). Entries of that very
 * millisecond may come again: a client keeps the last ones it saw to tell.
 *
 * Cost: one listing read (a page of 100 at most, usually one count and a few rows) per stream per
 * POLL_MS; streams per client are bounded as the change feed's.
 */
import type { Context } from 'koa';
import type { AuditService } from '../audit/index.js';
import { ValidationError, type AuditEntryInfo } from '../model/index.js';
import { isDateTime } from '../schemas/validate.js';
import type { Auth, Caller } from './auth.js';
import type { EventStream } from './event-stream.js';

/** How often a stream reads the log. */
export const POLL_MS = 1000;
/** How far behind the newest entry sent a committed entry may still appear (slow commits, clock skew). */
export const LATE_MS = 5000;
/** Entries a resume replays at most. */
export const MAX_REPLAY = 1000;
const PAGE = 100;

export interface AuditFeedDeps {
  auth: Auth;
  audit: AuditService;
  /** Opens a stream for the caller, within the per-client stream budget (events.ts). */
  open(ctx: Context, caller: Caller): { stream: EventStream };
}

/** The resume time from Last-Event-ID or ?since=, epoch ms; undefined: live entries only. */
function resumeOf(ctx: Context): number | undefined {
  const header = ctx.get('Last-Event-ID');
  const [loc, text] = header !== '' ? (['header', header] as const) : (['query', typeof ctx.query.since === 'string' ? ctx.query.since : undefined] as const);
  if (text === undefined) return undefined;
  const time = Date.parse(text);
  if (!isDateTime(text) || Number.isNaN(time)) {
    const name = loc === 'header' ? 'Last-Event-ID' : 'since';
    throw new ValidationError([{ loc: [loc, name], msg: 'Input should be a valid datetime (an event id of this feed, or RFC 3339)', type: 'datetime_parsing' }]);
  }
  return time;
}

export function auditFeedHandler({ auth, audit, open }: AuditFeedDeps) {
  return async function auditEvents(ctx: Context): Promise<void> {
    const caller = await auth.require(ctx, 'manage');
    const resume = resumeOf(ctx);
    const { stream } = open(ctx, caller);
    /** Entries sent that may still be listed again, by their JSON, with their time. */
    const sent = new Map<string, number>();
    /** Nothing older goes out: the resume point, or for a live feed the moment it opened. */
    const floor = resume ?? Date.now();
    /** The newest entry time sent (or the floor): reads start LATE_MS before it. */
    let newest = floor;
    let first = resume !== undefined;

    /** The entries at or after `since`, oldest first; undefined when there are more than `max`. */
    const read = async (since: number, max: number): Promise<AuditEntryInfo[] | undefined> => {
      const entries: AuditEntryInfo[] = [];
      for (let page = 1; ; page++) {
        const { metadata, entries: some } = await audit.list(caller.account, { since, page, perPage: PAGE });
        if (metadata.total_items > max) return undefined;
        entries.push(...some);
        if (some.length < PAGE || entries.length >= metadata.total_items) return entries.reverse();
      }
    };

    const poll = async (): Promise<void> => {
      // The key again each time: a revoked key ends the stream within POLL_MS.
      await caller.confirm();
      const since = first ? newest : newest - LATE_MS;
      const entries = await read(since, first ? MAX_REPLAY : Number.MAX_SAFE_INTEGER);
      if (entries === undefined) {
        stream.send('reset', JSON.stringify({ detail: `More than ${MAX_REPLAY} entries since then: read them with GET /api/v1/manage/audit`, since: new Date(newest).toISOString() }));
        newest = Date.now();
        first = false;
        return;
      }
      first = false;
      for (const entry of entries) {
        const time = Date.parse(entry.time);
        const text = JSON.stringify(entry);
        if (time < floor || sent.has(text)) continue;
        sent.set(text, time);
        newest = Math.max(newest, time);
        if (!stream.send('audit', text, entry.time)) return;
      }
      for (const [text, time] of sent) if (time < newest - LATE_MS) sent.delete(text);
    };

    /** Ends the wait between two reads (the stream closed). */
    let wake: (() => void) | undefined;
    stream.onClose(() => wake?.());
    const loop = async (): Promise<void> => {
      while (!stream.closed) {
        try {
          await poll();
        } catch {
          // A revoked key or unreachable storage: the stream ends, and the client resumes from its last id.
          stream.close();
          return;
        }
        if (stream.closed) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    };
    void loop();
  };
}
