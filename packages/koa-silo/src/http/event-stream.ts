/**
 * One server-sent events response (text/event-stream): events written as they come, a comment
 * every keep-alive period so that proxies keep an idle stream open, and an end.
 *
 * Koa's response is bypassed (`ctx.respond = false`): the response stays open after the handler
 * returns. A subscriber that reads too slowly is not buffered for: past MAX_BUFFERED bytes queued
 * in its socket the stream ends, and the client (an EventSource reconnects by itself, sending
 * Last-Event-ID) catches up from history.
 */
import type { Context } from 'koa';

/** An event's lines up to its data. */
const head = (event: string, id: number | undefined) => `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: `;

/** Bytes a stream may have waiting in its socket before it is dropped. */
const MAX_BUFFERED = 256 * 1024;

export class EventStream {
  readonly #ctx: Context;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #onClose: (() => void)[] = [];
  /** Frames waiting for the next flush (see FrameFlusher). */
  #held: Buffer[] = [];
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
    this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), keepAliveMs);
    this.#keepAlive.unref();
    const gone = () => this.close();
    ctx.req.socket.once('close', gone);
    res.once('close', gone);
    res.once('error', gone);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** An event as bytes, to send as it is to many streams (hold, FrameFlusher). */
  static frame(event: string, data: string, id?: number): Buffer {
    return Buffer.from(`${head(event, id)}${data}\n\n`, 'utf8');
  }

  /** Keeps a frame made by `frame` for the next flush (FrameFlusher.add). */
  hold(frame: Buffer): void {
    if (!this.#closed) this.#held.push(frame);
  }

  /** Writes the held frames, together (one system call rather than one per frame). */
  flushHeld(): boolean {
    if (this.#held.length === 0) return !this.#closed;
    const held = this.#held;
    this.#held = [];
    const { res } = this.#ctx;
    res.cork();
    const ok = held.every((frame) => this.#write(frame));
    if (!this.#closed) res.uncork();
    return ok;
  }

  /** One event; `data` is one line of JSON (in parts: shared buffers are written, not copied). False when the stream has ended. */
  send(event: string, data: string | (string | Buffer)[], id?: number): boolean {
    // After what is held: events go out in order.
    this.flushHeld();
    if (typeof data === 'string') return this.#write(`${head(event, id)}${data}\n\n`);
    return this.#write(head(event, id)) && data.every((part) => this.#write(part)) && this.#write('\n\n');
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
    if (drop) res.destroy();
    else if (!res.writableEnded) {
      for (const frame of this.#held) res.write(frame);
      res.end();
    }
    this.#held = [];
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
