/**
 * One server-sent events response (text/event-stream): events written as they come, a comment
 * every keep-alive period so that proxies keep an idle stream open, and an end.
 *
 * Koa's response is bypassed (`ctx.respond = false`): the response stays open after the handler
 * returns. Two ways to write an event:
 *
 * - `send` (metadata, a few hundred bytes): written at once. A subscriber that reads too slowly is
 *   not buffered for: past MAX_BUFFERED bytes queued in its socket the stream ends, and the client
 *   (an EventSource reconnects by itself, sending Last-Event-ID) catches up from history.
 * - `sendPaced` (events with data, up to the plan's 10 MB and more): written in CHUNK_BYTES slices,
 *   each once the socket has taken the one before and in its turn (loop-turns.ts), so that a
 *   large event is never dropped for its own size, never sits in memory once per stream, and never
 *   holds up other requests. Only a client that takes nothing of a slice for STALL_MS is ended (it
 *   is not reading).
 */
import type { Context } from 'koa';
import { bulkTurns } from '../limits/loop-turns.js';

/** An event's lines up to its data. */
const head = (event: string, id: number | string | undefined) => `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: `;

/** Bytes a stream may have waiting in its socket before it is dropped (`send`). */
const MAX_BUFFERED = 256 * 1024;
/**
 * Slice of an event's data written at a time (`sendPaced`): at most this much (plus the socket's
 * own high-water mark) waits in a stream's socket, and other work runs between two slices.
 */
export const CHUNK_BYTES = 64 * 1024;
/**
 * How long a client may take none of a slice (read nothing, about 64 KiB behind) before its
 * stream is dropped: a client reading slower than ~13 KB/s. It reconnects and catches up.
 */
export const STALL_MS = 5000;

/** What closing a stalled stream counts as in a turn's work (loop-turns.ts): about a slice's writing. */
const STALLED_CLOSE_COST = CHUNK_BYTES;

/** Shared data from this size on is written as it is, never copied into a slice of its own. */
const SHARED_FROM = 4 * 1024;

/**
 * An event's parts as slices of CHUNK_BYTES at most: small parts joined into one slice, large
 * shared buffers (the data every stream of a silo sends) cut, never copied: a copy per stream of
 * their first 64 KiB cost 2 500 streams 160 MB of copying in one turn. A small event is one slice:
 * one write.
 */
function* slices(parts: (string | Buffer)[]): Generator<Buffer> {
  let pending: Buffer[] = [];
  let size = 0;
  function* flush(): Generator<Buffer> {
    if (size === 0) return;
    yield pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    size = 0;
  }
  for (const part of parts) {
    if (typeof part !== 'string' && part.length >= SHARED_FROM) {
      yield* flush();
      for (let at = 0; at < part.length; at += CHUNK_BYTES) yield part.subarray(at, at + CHUNK_BYTES);
      continue;
    }
    let rest = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    while (rest.length > 0) {
      const piece = rest.subarray(0, CHUNK_BYTES - size);
      pending.push(piece);
      size += piece.length;
      rest = rest.subarray(piece.length);
      if (size === CHUNK_BYTES) yield* flush();
    }
  }
  yield* flush();
}

export class EventStream {
  readonly #ctx: Context;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #onClose: (() => void)[] = [];
  readonly #ended = new AbortController();
  /** Frames waiting for the next flush (see FrameFlusher), or for the paced event being written. */
  #held: Buffer[] = [];
  /** An event is being written in slices: nothing else may go between them. */
  #pacing = false;
  /** Resolves the wait for 'drain' of the slice being written. */
  #waiting: ((ok: boolean) => void) | undefined;
  /** When that wait began; undefined when nothing waits. */
  #waitingSince: number | undefined;
  /** The 'drain' listener and the stall check are installed (at the first wait). */
  #watching = false;
  #closed = false;

  constructor(ctx: Context, keepAliveMs: number) {
    this.#ctx = ctx;
    ctx.respond = false;
    const { res } = ctx;
    res.writeHead(200, {
      ...(ctx.response.headers as Record<string, string | string[]>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx and the like pass it on as it comes instead of buffering it.
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    // While an event is written in slices, bytes flow anyway (and a comment would split its data line).
    this.#keepAlive = setInterval(() => {
      if (!this.#pacing) this.#write(': keep-alive\n\n');
    }, keepAliveMs);
    this.#keepAlive.unref();
    const gone = () => this.close();
    ctx.req.socket.once('close', gone);
    res.once('close', gone);
    res.once('error', gone);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Aborted when the stream ends: work done for it (loads, waits) stops there. */
  get signal(): AbortSignal {
    return this.#ended.signal;
  }

  /** An event as bytes, to send as it is to many streams (hold, FrameFlusher). */
  static frame(event: string, data: string, id?: number | string): Buffer {
    return Buffer.from(`${head(event, id)}${data}\n\n`, 'utf8');
  }

  /** Keeps a frame made by `frame` for the next flush (FrameFlusher.add). */
  hold(frame: Buffer): void {
    if (!this.#closed) this.#held.push(frame);
  }

  /** Writes the held frames, together (one write and one system call rather than one per frame). */
  flushHeld(): boolean {
    if (this.#held.length === 0 || this.#pacing) return !this.#closed;
    const held = this.#held;
    this.#held = [];
    return this.#write(held.length === 1 ? held[0]! : Buffer.concat(held));
  }

  /** One event; `data` is one line of JSON. False when the stream has ended. */
  send(event: string, data: string, id?: number | string): boolean {
    // In order: after a paced event still being written, and after what is held.
    if (this.#pacing) {
      this.hold(EventStream.frame(event, data, id));
      return !this.#closed;
    }
    this.flushHeld();
    return this.#write(`${head(event, id)}${data}\n\n`);
  }

  /**
   * One event whose data may be large, written at the client's pace: `data` is one line of JSON in
   * parts (shared buffers are written in slices, never copied). Resolves false when the stream has
   * ended (closed meanwhile, or dropped for stalling).
   */
  async sendPaced(event: string, data: (string | Buffer)[], id?: number): Promise<boolean> {
    if (this.#closed) return false;
    this.flushHeld();
    this.#pacing = true;
    try {
      for (const slice of slices([head(event, id), ...data, '\n\n'])) {
        if (!(await this.#writePaced(slice))) return false;
      }
      return true;
    } finally {
      this.#pacing = false;
      this.flushHeld();
    }
  }

  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#onClose.push(fn);
  }

  /** Ends the stream (idempotent); `drop`: at once, without sending what is still queued. */
  close(drop = false): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    const { res } = this.#ctx;
    // Halfway through a paced event, what is queued is part of an event the client cannot use.
    if (drop || this.#pacing) res.destroy();
    else if (!res.writableEnded) {
      for (const frame of this.#held) res.write(frame);
      res.end();
    }
    this.#held = [];
    this.#ended.abort();
    this.#wake(false);
    for (const fn of this.#onClose.splice(0)) fn();
  }

  #write(text: string | Buffer): boolean {
    if (this.#closed) return false;
    const { res } = this.#ctx;
    // Past the limit with what waits already: one large event may go out to a reader keeping up.
    if (res.writableLength > MAX_BUFFERED || (res.writableLength > 0 && res.writableLength + text.length > 4 * MAX_BUFFERED)) {
      // Not reading: its connection goes, and the client catches up from history when it is back.
      this.close(true);
      return false;
    }
    res.write(text);
    return true;
  }

  /**
   * Waits for its turn (loop-turns.ts), writes one slice, then waits for the socket to take it
   * when it has not at once. The turn comes first, for every slice: a socket that takes every
   * slice at once (a fast reader on loopback) reports 'drain' in the same turn, and would otherwise
   * have all 10 MB written before any other request is read; and an update reaches every stream
   * of its silo in one turn, so first slices written at once were 64 KiB times the streams (2 500
   * streams: 160 MB of socket writes, a tiny read waited 1.1 s).
   */
  async #writePaced(slice: Buffer): Promise<boolean> {
    await bulkTurns.next(slice.length);
    if (this.#closed) return false;
    if (!this.#ctx.res.write(slice) && !(await this.#drained())) return false;
    return !this.#closed;
  }

  /** True once the socket has taken what waits; false when the stream ends first (or stalls STALL_MS: dropped). */
  #drained(): Promise<boolean> {
    if (!this.#watching) {
      this.#watching = true;
      // Installed once: one listener and one timer per stream rather than one per slice.
      this.#ctx.res.on('drain', () => this.#wake(true));
      this.#watchStall();
    }
    this.#waitingSince = Date.now();
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  #wake(ok: boolean): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    this.#waitingSince = undefined;
    waiting?.(ok && !this.#closed);
  }

  /** Drops the stream once a wait for 'drain' has lasted STALL_MS (checked at most every STALL_MS). */
  #watchStall(): void {
    const check = () => {
      if (this.#closed) return;
      const waited = this.#waitingSince === undefined ? 0 : Date.now() - this.#waitingSince;
      // Not reading: its connection goes, and the client catches up from history when it is back.
      // In turns: streams that stalled on one update stall together, and 2 500 sockets with full
      // send buffers closed in one turn held the event loop 150 ms.
      if (waited >= STALL_MS) return void bulkTurns.next(STALLED_CLOSE_COST).then(() => this.close(true));
      setTimeout(check, STALL_MS - waited).unref();
    };
    setTimeout(check, STALL_MS).unref();
  }
}

/**
 * Writes held frames to their streams together: at once when nothing was flushed for
 * `intervalMs`, else at the end of that interval. A write now and then reaches its subscribers at
 * once; a burst of writes reaches each subscriber as one socket write per interval instead of one
 * per event, so that thousands of subscribers of one silo do not starve its writers.
 */
export class FrameFlusher {
  #due = new Set<EventStream>();
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  #last = 0;

  constructor(private readonly intervalMs = 50) {}

  add(stream: EventStream, frame: Buffer): void {
    stream.hold(frame);
    this.#due.add(stream);
    if (this.#timer) return;
    const wait = this.#last + this.intervalMs - Date.now();
    this.#timer = wait > 0 ? setTimeout(this.#flush, wait) : setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#timer = undefined;
    this.#last = Date.now();
    const due = this.#due;
    this.#due = new Set();
    for (const stream of due) stream.flushHeld();
  };
}
