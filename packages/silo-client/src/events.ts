/**
 * Change feeds as async iterators (contract §11), and the audit feed (§19, fetch only). Two transports:
 *
 * - fetch and a small SSE reader (sse.ts): everywhere, and the only one that can send a key;
 * - the platform's EventSource, where there is one (browsers), for public feeds.
 *
 * Either way a dropped connection (a server restart, a proxy's timeout, the server ending a slow
 * reader) is resumed with `Last-Event-ID`, so no version is missed: the server replays the later
 * versions from history, or sends `reset` when history no longer has them.
 */
import { parseJson, type JsonValue } from 'silo-query';
import { SiloError, retryAfterMs } from './errors.js';
import type { components } from './generated/openapi.js';
import { backoffMs, sleep, type ParseJson, type Transport } from './http.js';
import { readEvents, type RawEvent } from './sse.js';

type Schemas = components['schemas'];
type Region = Schemas['SiloMeta']['region_name'];
/** The document's SiloChangeEvent, its file_data with exact numbers (silo-query's JsonValue). */
type SiloChange = Omit<Schemas['SiloChangeEvent'], 'file_data'> & { file_data?: JsonValue };

/**
 * An event of a feed, its `data` as the OpenAPI document describes it. `id` is the silo's version
 * (a feed of one silo); the account's feed has none, and its `delete` carries the metadata.
 */
export type SiloEvent =
  | { type: 'update'; id: number | undefined; data: SiloChange }
  | { type: 'create'; id: number | undefined; data: SiloChange }
  | { type: 'delete'; id: number | undefined; data: Schemas['SiloDeleteEvent'] & Partial<SiloChange> }
  | { type: 'move'; id: number | undefined; data: Schemas['SiloMoveEvent'] }
  | { type: 'reset'; id: number | undefined; data: Schemas['FeedResetEvent'] };

export interface EventOptions {
  /** The last version the caller has: later versions still in history are replayed first. */
  since?: number;
  /** Each update carries `file_data` (numbers exact). */
  data?: boolean;
  /** Default: private when the client has an access key, else public. */
  address?: 'private' | 'public';
  /** The silo's region, when the client has not seen it. */
  region?: Region;
  /** Ends the feed: the iterator returns. */
  signal?: AbortSignal;
  /** Reconnections in a row without an event before giving up (default 20); the wait doubles from 500 ms to 5 s. */
  reconnects?: number;
  /** `auto` (default): EventSource for a public feed where the platform has one, else fetch. */
  transport?: 'auto' | 'fetch' | 'eventsource';
}

export interface FeedSpec {
  transport: Transport;
  url: string;
  headers: Record<string, string>;
  options: EventOptions;
  /** Whether this feed may use EventSource (it cannot send headers). */
  eventSource: boolean;
  /** The account's feed: a silo's delete or move is one event among others, not the feed's end. */
  account?: boolean;
  onEvent?: (event: SiloEvent) => void;
}

/** Reconnections in a row without an event before a feed gives up. */
const DEFAULT_RECONNECTS = 20;

/** Events after which the server ends a silo's stream: nothing follows (the account's goes on). */
const FINAL = new Set(['delete', 'move']);

function toEvent(raw: RawEvent, parse: ParseJson): SiloEvent {
  const id = raw.id !== undefined && /^\d+$/.test(raw.id) ? Number(raw.id) : undefined;
  return { type: raw.event, id, data: parse(raw.data) } as SiloEvent;
}

/** What this module uses of the platform's EventSource (described here: Node's types have none). */
interface EventSourceLike {
  readonly readyState: number;
  onerror: ((event: unknown) => void) | null;
  addEventListener(type: string, listener: (event: { type: string; data: string; lastEventId: string }) => void): void;
  close(): void;
}
interface EventSourceClass {
  new (url: string): EventSourceLike;
  readonly CLOSED: number;
}

/**
 * A feed opened at its first `next()`: a mistake in the call (a missing key, a transport the
 * platform lacks) rejects there, as every other call of the client rejects, instead of throwing
 * where the iterator is made.
 */
export async function* opened<T>(open: () => AsyncGenerator<T>): AsyncGenerator<T> {
  yield* open();
}

export function events(spec: FeedSpec): AsyncGenerator<SiloEvent> {
  const wanted = spec.options.transport ?? 'auto';
  const EventSourceCtor = (globalThis as { EventSource?: EventSourceClass }).EventSource;
  if (spec.eventSource && EventSourceCtor && wanted !== 'fetch') return viaEventSource(spec, EventSourceCtor);
  if (wanted === 'eventsource') throw new TypeError(EventSourceCtor ? 'EventSource cannot send a key: use the fetch transport' : 'This platform has no EventSource');
  return viaFetch(spec);
}

/** A feed over fetch, whatever its events: where, with which headers, and from which event on. */
interface FetchFeed {
  transport: Transport;
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
  /** Reconnections in a row without an event before giving up. */
  reconnects: number;
  /** The Last-Event-ID of the next connection (undefined: none), asked before each one. */
  lastId(): string | undefined;
}

/**
 * The raw events of a feed, as they arrive, across connections: a stream that ends or breaks is
 * opened again with Last-Event-ID. Returns when the signal aborts; throws the SiloError of a
 * refused stream, or the last failure once `reconnects` connections in a row brought no event.
 */
async function* fetchEvents(feed: FetchFeed): AsyncGenerator<RawEvent> {
  const { signal } = feed;
  let failures = 0;
  let lastError: unknown;
  while (!signal?.aborted) {
    let retryMs: number | undefined;
    try {
      const lastId = feed.lastId();
      const response = await feed.transport.fetch(feed.url, {
        headers: { Accept: 'text/event-stream', ...feed.headers, ...(lastId === undefined ? {} : { 'Last-Event-ID': lastId }) },
        ...(signal ? { signal } : {}),
      });
      if (!response.ok || response.body === null) {
        const error = await SiloError.from(response);
        // Busy (429: too many streams, 503: storage or memory): wait as asked and try again. Anything else is final.
        if (response.status !== 429 && response.status !== 503 && response.status < 500) throw error;
        lastError = error;
        retryMs = retryAfterMs(response.headers.get('Retry-After'));
      } else {
        const reading = readEvents(response.body);
        for await (const raw of reading.events) {
          failures = 0;
          yield raw;
        }
        retryMs = reading.retryMs();
        lastError = new Error('The event stream ended');
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof SiloError) throw error;
      lastError = error; // the network: the server went away, or the connection broke
    }
    if (++failures > feed.reconnects) throw lastError;
    try {
      await sleep(retryMs ?? Math.min(5000, backoffMs(failures - 1, 500)), signal);
    } catch {
      return; // aborted while waiting
    }
  }
}

/** A silo's or the account's change feed over fetch: resumed from the last event's id (the silo's version). */
async function* viaFetch(spec: FeedSpec): AsyncGenerator<SiloEvent> {
  const { since } = spec.options;
  // A silo's feed starts from ?since= (a bad one is a 422 that names `since`, as the caller wrote
  // it); once an event came, Last-Event-ID too, which the server prefers. The account's feed
  // knows only the header.
  const query = since !== undefined && !spec.account;
  let lastId = since === undefined || query ? undefined : String(since);
  const url = query ? `${spec.url}${spec.url.includes('?') ? '&' : '?'}since=${encodeURIComponent(String(since))}` : spec.url;
  const raws = fetchEvents({
    transport: spec.transport,
    url,
    headers: spec.headers,
    signal: spec.options.signal,
    reconnects: spec.options.reconnects ?? DEFAULT_RECONNECTS,
    lastId: () => lastId,
  });
  for await (const raw of raws) {
    const event = toEvent(raw, spec.transport.parse);
    if (raw.id !== undefined) lastId = raw.id;
    spec.onEvent?.(event);
    yield event;
    if (!spec.account && FINAL.has(event.type)) return;
  }
}

async function* viaEventSource(spec: FeedSpec, EventSourceCtor: EventSourceClass): AsyncGenerator<SiloEvent> {
  const { signal } = spec.options;
  if (signal?.aborted) return;
  // EventSource cannot send Last-Event-ID on its first request: ?since= says the same. On its own
  // reconnections it sends the header, which the server prefers.
  const url = new URL(spec.url, (globalThis as { location?: { href: string } }).location?.href);
  if (spec.options.since !== undefined) url.searchParams.set('since', String(spec.options.since));
  const source = new EventSourceCtor(url.toString());
  const queue: SiloEvent[] = [];
  let wake: (() => void) | undefined;
  let failed = false;
  let lastId = spec.options.since;
  const push = (event: { type: string; data: string; lastEventId: string }) => {
    const parsed = toEvent({ event: event.type, data: event.data, id: event.lastEventId === '' ? undefined : event.lastEventId }, spec.transport.parse);
    if (parsed.id !== undefined) lastId = parsed.id;
    queue.push(parsed);
    wake?.();
  };
  for (const type of ['update', 'delete', 'move', 'reset']) source.addEventListener(type, push);
  // A refused stream (404, 422, ...) closes the EventSource for good; a dropped one it reconnects itself.
  source.onerror = () => {
    if (source.readyState === EventSourceCtor.CLOSED) {
      failed = true;
      wake?.();
    }
  };
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      while (queue.length > 0) {
        const event = queue.shift()!;
        spec.onEvent?.(event);
        yield event;
        if (FINAL.has(event.type)) return;
      }
      if (signal?.aborted) return;
      if (failed) {
        // EventSource does not say why, and gives up: fetch goes on from the last event, and says why when it cannot.
        source.close();
        yield* viaFetch({ ...spec, options: { ...spec.options, ...(lastId === undefined ? {} : { since: lastId }) } });
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    source.close();
    signal?.removeEventListener('abort', onAbort);
  }
}

type AuditEntry = components['schemas']['AuditEntry'];

/**
 * An event of the account's audit feed: an entry of the audit log as it commits (`id` its time),
 * or `reset`: a resume missed more entries than the server replays (1 000); read them with
 * `audit.list({ since })`, the feed goes on live.
 */
export type AuditEvent =
  | { type: 'audit'; id: string; data: AuditEntry }
  | { type: 'reset'; id: undefined; data: Schemas['AuditResetEvent'] };

export interface AuditEventOptions {
  /**
   * Start with the entries at or after this time (a Date, or RFC 3339 text), at most 1 000 (past
   * that, a `reset`). Without it, the feed has the entries that commit after it opens (until its
   * first entry, a reconnection starts live again: give `since` to miss none).
   */
  since?: Date | string;
  /** Ends the feed: the iterator returns. */
  signal?: AbortSignal;
  /** Reconnections in a row without an event before giving up (default 20); the wait doubles from 500 ms to 5 s. */
  reconnects?: number;
}

export interface AuditFeedSpec {
  transport: Transport;
  /** The feed's address, without a query. */
  url: string;
  headers: Record<string, string>;
  options: AuditEventOptions;
}

/**
 * The audit feed (`GET /api/v1/manage/audit/events`, manage key), over fetch: the key travels in
 * a header. An event's id is its entry's time, and a reconnection asks for the entries at or
 * after the newest time seen, that very millisecond's included: those already seen are left out
 * here (told apart by their JSON, as the server does), so none comes twice and none is missed.
 */
export function auditEvents(spec: AuditFeedSpec): AsyncGenerator<AuditEvent> {
  const { since } = spec.options;
  // ?since= for the first connection (a bad one is a 422 that names `since`); once an entry came,
  // Last-Event-ID, which the server prefers.
  const url = since === undefined ? spec.url : `${spec.url}?${new URLSearchParams({ since: since instanceof Date ? since.toISOString() : since })}`;
  const seen = newestEntries();
  const raws = fetchEvents({
    transport: spec.transport,
    url,
    headers: spec.headers,
    signal: spec.options.signal,
    reconnects: spec.options.reconnects ?? DEFAULT_RECONNECTS,
    lastId: seen.lastId,
  });
  return decodeAudit(raws, seen);
}

async function* decodeAudit(raws: AsyncGenerator<RawEvent>, seen: NewestEntries): AsyncGenerator<AuditEvent> {
  for await (const raw of raws) {
    if (raw.event === 'reset') yield { type: 'reset', id: undefined, data: parseJson(raw.data) as Schemas['AuditResetEvent'] };
    else if (raw.event === 'audit' && raw.id !== undefined && seen.fresh(raw.id, raw.data)) {
      yield { type: 'audit', id: raw.id, data: parseJson(raw.data) as AuditEntry };
    }
  }
}

interface NewestEntries {
  /** The id to resume from: the newest entry time seen. */
  lastId(): string | undefined;
  /** Whether the entry (its time and JSON) is one not seen before; notes it. */
  fresh(id: string, text: string): boolean;
}

/**
 * The entries of the newest time seen: all that a resume replays again. An older entry (one that
 * committed late, behind newer ones) is never replayed, so it needs no remembering.
 */
function newestEntries(): NewestEntries {
  let newest: { id: string; time: number; texts: Set<string> } | undefined;
  return {
    lastId: () => newest?.id,
    fresh(id, text) {
      const time = Date.parse(id);
      if (Number.isNaN(time)) return true;
      if (newest === undefined || time > newest.time) {
        newest = { id, time, texts: new Set([text]) };
        return true;
      }
      if (time < newest.time) return true;
      if (newest.texts.has(text)) return false;
      newest.texts.add(text);
      return true;
    },
  };
}
