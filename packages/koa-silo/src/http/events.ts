/**
 * Contract §11, the change feed over server-sent events:
 * - `GET /<file_uuid>/events` (access key) and `GET /public/<file_uuid>/events` (public silos, any
 *   origin): `update` per committed write (id: its version), `delete` or `move` and the end;
 *   `Last-Event-ID` / `?since=` replays the later versions still in history, or sends `reset`.
 * - `GET /api/v1/manage/events` (manage key): `create`, `update`, `delete` of the account's silos.
 *
 * Events come from the bus (events/), so a write through any instance reaches every stream. Each
 * stream handles its events one at a time, in order (event-queue.ts); a version it has not seen (an
 * event lost on the way, or a replay racing a write) is read from history, so a client never
 * silently misses one. Access is checked again before each event and every second: a revoked key,
 * a silo gone private (on the public address), deleted or moved ends the stream. A stream that
 * ends stops its work at once: nothing more is read for it.
 *
 * `?data=1` adds `file_data`. On the public address only the data of the silo's current version is
 * ever sent: a replay sends the metadata of past versions (an owner who overwrote a leaked secret
 * must not see it served to anyone from history), and a live event whose version is no longer the
 * newest heard of goes without data too (the newer one follows with its own). Keyed streams replay
 * data from history. Data texts are shared and charged to the memory budget (event-texts.ts) and
 * written at the client's pace (event-stream.ts); when the budget stays full past its wait, the
 * stream ends and its client reconnects with Last-Event-ID.
 */
import type { Context } from 'koa';
import { type EventBus, NotFoundError, ValidationError, type Region, type SiloEvent, type SiloMeta, type VersionInfo } from '../model/index.js';
import type { SiloService } from '../service/types.js';
import { callerLimitKey, reaches, type Auth, type Caller } from './auth.js';
import { clientLimitKey } from './client.js';
import { allowAnyOrigin } from './cors.js';
import type { Admission } from '../limits/admission.js';
import { BoundedMap } from '../limits/bounded-map.js';
import { TooManyStreamsError } from './errors.js';
import { SerialQueue } from './event-queue.js';
import { EventStream, FrameFlusher } from './event-stream.js';
import { SharedTexts, type TextSource } from './event-texts.js';
import { bulkTurns } from '../limits/loop-turns.js';
import type { RegionOf } from './region.js';
import { eventResume, integerParam } from '../schemas/params.js';
import { validator } from '../schemas/validate.js';
import { throwIfAny } from './manage.js';

export interface EventsDeps {
  auth: Auth;
  silos: SiloService;
  bus: EventBus;
  regionOf: RegionOf;
  trustProxy: boolean;
  keepAliveMs: number;
  maxStreamsPerClient: number;
  /** The memory budget: data texts streams hold are charged to its `texts` gate. */
  admission: Admission;
}

/** How often a keyed stream checks that its key is still valid. */
const KEY_CHECK_MS = 1000;
/** History page size when catching up. */
const PAGE = 100;
/** A replay's share of a turn (loop-turns.ts): a history listing and a few writes, about a slice's worth. */
const REPLAY_COST = 64 * 1024;

/** The event's `data`: the metadata fields and the version. */
type EventData = SiloMeta & { version: number; file_data?: unknown };

const checkResume = validator<{ 'Last-Event-ID'?: number; since?: number; data?: '0' | '1' }>(eventResume);

/** `?data=1`: events carry file_data; `0` or none: they do not; anything else a 422. */
function withDataOf(ctx: Context): boolean {
  const data = ctx.query.data;
  if (typeof data === 'string') throwIfAny(checkResume.issues({ data }, 'query'));
  return data === '1';
}

/**
 * `since` from Last-Event-ID (when not empty) or ?since=: a version number, or undefined when
 * neither is given. Not a canonical integer from 0 up: a 422 at that header or parameter, as
 * every other bad parameter is.
 */
function sinceOf(ctx: Context): { since: number | undefined; loc: string[] } {
  onceEach(ctx, ['since', 'data']);
  const header = ctx.get('Last-Event-ID');
  const [source, name, text] =
    header !== '' ? (['header', 'Last-Event-ID', header] as const) : (['query', 'since', typeof ctx.query.since === 'string' ? ctx.query.since : undefined] as const);
  if (text === undefined) return { since: undefined, loc: [source, name] };
  const value = integerParam(text);
  throwIfAny(checkResume.issues({ [name]: value }, source));
  return { since: value as number, loc: [source, name] };
}

/**
 * A stream's parameters given more than once are a 422 `multiple_values`, as the data queries'
 * are: `?since=1&since=2` read as no resume point replayed nothing, and the client never knew.
 */
function onceEach(ctx: Context, names: readonly string[]): void {
  const issues = names.flatMap((name) => {
    const value = ctx.query[name];
    return Array.isArray(value)
      ? [{ loc: ['query', name], msg: `Give ${name} at most once (it was given ${value.length} times)`, type: 'multiple_values' }]
      : [];
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/** A resume point past the silo's current version names a version that was never written: 422. */
function checkSinceReached(since: number | undefined, loc: (string | number)[], current: number): void {
  if (since === undefined || since <= current) return;
  throw new ValidationError([
    { loc, msg: `Input should be less than or equal to ${current}, the silo's current version`, type: 'less_than_equal', ctx: { le: current } },
  ]);
}

/** Open streams per client, and every stream (ended together when the server stops). */
class StreamBudget {
  readonly #open = new Map<string, number>();
  readonly #all = new Set<EventStream>();

  constructor(private readonly max: number) {}

  admit(client: string): void {
    if ((this.#open.get(client) ?? 0) >= this.max) throw new TooManyStreamsError(this.max);
  }

  track(client: string, stream: EventStream): void {
    this.#open.set(client, (this.#open.get(client) ?? 0) + 1);
    this.#all.add(stream);
    stream.onClose(() => {
      this.#all.delete(stream);
      const left = (this.#open.get(client) ?? 1) - 1;
      if (left > 0) this.#open.set(client, left);
      else this.#open.delete(client);
    });
  }

  endAll(): void {
    for (const stream of [...this.#all]) stream.close();
  }
}

/**
 * Every second, the key again: revoked (or expired), the stream ends. Answers whether the key was
 * checked within the last second (an event then needs no check of its own).
 */
function watchKey(stream: EventStream, caller: Caller): () => boolean {
  let checkedAt = Date.now();
  const timer = setInterval(() => {
    caller.confirm().then(
      () => (checkedAt = Date.now()),
      () => stream.close(),
    );
  }, KEY_CHECK_MS);
  timer.unref();
  stream.onClose(() => clearInterval(timer));
  return () => Date.now() - checkedAt < KEY_CHECK_MS;
}

/**
 * Events of the bus routed by silo and by account: one subscription for every stream of this
 * process, and each event reaches only the streams that want it.
 */
class Fanout {
  readonly #silos = new Map<string, Set<(event: SiloEvent) => void>>();
  readonly #accounts = new Map<string, Set<(event: SiloEvent) => void>>();
  #listening = false;

  constructor(private readonly bus: EventBus) {}

  onSilo(uuid: string, listener: (event: SiloEvent) => void): () => void {
    return this.#add(this.#silos, uuid, listener);
  }

  onAccount(account: string, listener: (event: SiloEvent) => void): () => void {
    return this.#add(this.#accounts, account, listener);
  }

  /** One subscription to the bus, for the life of the process's handlers. */
  #listen(): void {
    this.#listening = true;
    this.bus.subscribe((event) => {
      for (const fn of [...(this.#silos.get(event.silo.file_uuid) ?? []), ...(this.#accounts.get(event.account) ?? [])]) {
        try {
          fn(event);
        } catch {
          // One stream's failure is its own; the others still hear.
        }
      }
    });
  }

  #add(map: Map<string, Set<(event: SiloEvent) => void>>, key: string, listener: (event: SiloEvent) => void): () => void {
    if (!this.#listening) this.#listen();
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) map.delete(key);
    };
  }
}

/**
 * The `data` of an update: one line of JSON, the data's text (shared by every stream that sends
 * it, never copied per stream) spliced in as `file_data`.
 */
function eventData(meta: EventData, data: Buffer): (string | Buffer)[] {
  const json = JSON.stringify(meta);
  return [`${json.slice(0, -1)},"file_data":`, data, '}'];
}

/**
 * One version's entry in history (its size is charged to the memory budget before its text is
 * read), found on its page counted from the newest; a write in between moves it: tried again.
 */
async function versionInfo(silos: SiloService, account: string, uuid: string, version: number): Promise<VersionInfo> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const [newest] = (await silos.versions(account, uuid, 1, 1)).versions;
    if (newest === undefined || newest.version < version) break;
    if (newest.version === version) return newest;
    const [info] = (await silos.versions(account, uuid, newest.version - version + 1, 1)).versions;
    if (info?.version === version) return info;
  }
  throw new NotFoundError(`Version ${version} is not in this silo's history`);
}

/** `promise`, or undefined as soon as `stream` ends (what it waited for is no longer wanted). */
function unlessClosed<T>(stream: EventStream, promise: Promise<T>): Promise<T | undefined> {
  const { signal } = stream;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const ended = () => resolve(undefined);
    signal.addEventListener('abort', ended, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', ended);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', ended);
        reject(error);
      },
    );
  });
}

/** Encoded update events of recent versions, made once for every stream that sends them. */
const SHARED_FRAMES = 64;

export function eventHandlers(deps: EventsDeps) {
  const { auth, silos, bus, regionOf } = deps;
  const budget = new StreamBudget(deps.maxStreamsPerClient);
  const fanout = new Fanout(bus);
  const flusher = new FrameFlusher();
  const frames = new BoundedMap<string, Buffer>(SHARED_FRAMES);
  /** An update event (without data) as the bytes every stream of its silo sends. */
  const sharedFrame = (event: SiloEvent): Buffer => {
    const key = `${event.silo.file_uuid}:${event.silo.version}`;
    let frame = frames.get(key);
    if (!frame) {
      frame = EventStream.frame('update', JSON.stringify(event.silo), event.silo.version);
      frames.set(key, frame);
    }
    return frame;
  };
  const texts = new SharedTexts(deps.admission.texts);
  /** Where the text of a version comes from; `size` from history when the caller does not know it. */
  const sourceOf = (account: string, uuid: string, version: number, size: number | undefined): TextSource => ({
    size: async () => size ?? (await versionInfo(silos, account, uuid, version)).size,
    read: async () => (await silos.version(account, uuid, version)).text,
  });

  const clientOf = (ctx: Context, caller: Caller | undefined) =>
    caller ? callerLimitKey(caller) : `ip:${clientLimitKey(ctx, deps.trustProxy)}`;

  /** A stream for `caller` (undefined: the public address), and whether its key was checked just now. */
  function open(ctx: Context, caller: Caller | undefined): { stream: EventStream; keyFresh: () => boolean } {
    const client = clientOf(ctx, caller);
    budget.admit(client);
    const stream = new EventStream(ctx, deps.keepAliveMs);
    budget.track(client, stream);
    return { stream, keyFresh: caller ? watchKey(stream, caller) : () => true };
  }

  /** The stream of one silo, on its region's address; `caller` undefined: the public address. */
  async function siloStream(ctx: Context, param: string, caller: Caller | undefined): Promise<void> {
    const { since, loc } = sinceOf(ctx);
    const withData = withDataOf(ctx);
    const region: Region = regionOf(ctx);
    const { record } = await silos.openData(region, param.toLowerCase(), caller?.account);
    checkSinceReached(since, loc, record.version);
    const { account, file_uuid: uuid, created_at } = record;
    const { stream, keyFresh } = open(ctx, caller);
    /** The newest version the client has (or was told to skip). */
    let last = since ?? record.version;
    /** The newest version this stream has heard of (opening, history, the bus): the current one. */
    let newest = record.version;

    const visible = (v: Pick<VersionInfo, 'is_public' | 'region_name'>) => v.region_name === region && (caller !== undefined || v.is_public);
    /** On the public address only the current version's data goes out: an older one was overwritten. */
    const mayCarryData = (version: number) => withData && (caller !== undefined || version >= newest);

    /**
     * An update with `meta`, and its version's data when this stream may send it (`size`: its
     * bytes, when known). Without data it is held, to go out with the others of a replay in one
     * write (flushHeld).
     */
    const sendUpdate = async (meta: EventData, size?: number): Promise<void> => {
      const plain = () => stream.hold(EventStream.frame('update', JSON.stringify(meta), meta.version));
      if (!mayCarryData(meta.version)) return plain();
      const held = texts.hold(`${uuid}:${meta.version}`, sourceOf(account, uuid, meta.version, size));
      try {
        let bytes: Buffer | undefined;
        try {
          bytes = await unlessClosed(stream, held.bytes);
        } catch (error) {
          // The version's data went while it loaded (the silo deleted, the version pruned): its
          // metadata still goes out, and what took the data follows (the delete, newer versions).
          if (error instanceof NotFoundError) return plain();
          throw error;
        }
        if (bytes === undefined) return;
        // A newer version heard of while this one loaded: it follows with its own data.
        if (!mayCarryData(meta.version)) plain();
        else await stream.sendPaced('update', eventData(meta, bytes), meta.version);
      } finally {
        held.release();
      }
    };

    /** Sends every version after `last` up to the current one from history, or `reset` when some are pruned. */
    const catchUp = async () => {
      // Streams opened together replay in turns, not all in the turn that read their requests.
      await bulkTurns.next(REPLAY_COST);
      // History newest first, until it reaches the client's version or its oldest.
      const newer: VersionInfo[] = [];
      for (let page = 1; ; page++) {
        const { versions } = await silos.versions(account, uuid, page, PAGE);
        if (stream.closed) return;
        newer.push(...versions.filter((v) => v.version > last));
        if (versions.length < PAGE || versions.at(-1)!.version <= last + 1) break;
      }
      const current = newer[0];
      if (current === undefined) return;
      newest = Math.max(newest, current.version);
      if (newer.at(-1)!.version > last + 1) {
        // Versions the client lacks are gone from history: it starts again from the current one.
        last = current.version;
        stream.send('reset', JSON.stringify({ file_uuid: uuid, version: current.version }), current.version);
        return;
      }
      for (const v of newer.reverse()) {
        // Ended (closed by its client, dropped): no further version is read for it.
        if (stream.closed) return;
        last = v.version;
        if (!visible(v)) continue;
        const meta: EventData = {
          file_uuid: uuid,
          file_name: v.file_name,
          created_at,
          updated_at: v.updated_at,
          is_public: v.is_public,
          region_name: v.region_name,
          version: v.version,
        };
        await sendUpdate(meta, v.size);
      }
      stream.flushHeld();
    };

    const deliver = async (event: SiloEvent) => {
      const { silo } = event;
      if (silo.version <= last && event.type !== 'delete') return;
      if (caller && !keyFresh()) await caller.confirm();
      if (stream.closed) return;
      if (event.type === 'delete') {
        stream.send('delete', JSON.stringify({ file_uuid: uuid, version: silo.version }), silo.version);
        return stream.close();
      }
      if (event.type === 'move' && silo.region_name !== region) {
        stream.send('move', JSON.stringify({ file_uuid: uuid, region_name: silo.region_name, version: silo.version }), silo.version);
        return stream.close();
      }
      if (!caller && !silo.is_public) return stream.close();
      if (silo.version > last + 1) return catchUp();
      last = silo.version;
      await sendUpdate(silo);
      stream.flushHeld();
    };

    const queue = new SerialQueue(stream);
    /** The common case, sent at once: the next version, in place, visible here, nothing to read. */
    const plainNext = (event: SiloEvent) =>
      queue.idle && event.type === 'update' && event.silo.version === last + 1 && !withData && (caller ? keyFresh() : event.silo.is_public);
    // Subscribed before the replay is queued: nothing written meanwhile falls between the two.
    stream.onClose(
      fanout.onSilo(uuid, (event) => {
        newest = Math.max(newest, event.silo.version);
        if (!plainNext(event)) return queue.add(() => deliver(event));
        last = event.silo.version;
        flusher.add(stream, sharedFrame(event));
      }),
    );
    if (since !== undefined && since < record.version) queue.add(catchUp);
  }

  return {
    /** GET /<file_uuid>/events with X-SILO-KEY. */
    async privateEvents(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'access');
      if (!reaches(caller, param)) throw new NotFoundError();
      await siloStream(ctx, param, caller);
    },

    /** GET /public/<file_uuid>/events: public silos, no credentials, any origin. */
    async publicEvents(ctx: Context, param: string): Promise<void> {
      allowAnyOrigin(ctx);
      await auth.anonymous(ctx);
      await siloStream(ctx, param, undefined);
    },

    /** GET /api/v1/manage/events with X-MAN-API: the account's feed. */
    async accountEvents(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { stream, keyFresh } = open(ctx, caller);
      const queue = new SerialQueue(stream);
      const send = (event: SiloEvent) => stream.send(event.type === 'move' ? 'update' : event.type, JSON.stringify(event.silo));
      const deliver = async (event: SiloEvent) => {
        if (!keyFresh()) await caller.confirm();
        send(event);
      };
      // Metadata only: sent at once while nothing waits and the key was checked lately, so that a
      // burst (hundreds of writes heard in one poll of another process's) is not taken for a
      // client falling behind; a key to confirm first makes events wait their turn, in order.
      stream.onClose(fanout.onAccount(caller.account, (event) => (queue.idle && keyFresh() ? send(event) : queue.add(() => deliver(event)))));
    },

    /** A stream for a keyed caller within the per-client budget, for the other feeds (audit-feed.ts). */
    open: (ctx: Context, caller: Caller) => open(ctx, caller),

    /** Ends every open stream (the server is stopping). */
    endAll: () => budget.endAll(),
  };
}
