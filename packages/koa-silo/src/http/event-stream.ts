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

/** Bytes a stream may have waiting in its socket before it is dropped. */
const MAX_BUFFERED = 256 * 1024;

export class EventStream {
  readonly #ctx: Context;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #onClose: (() => void)[] = [];
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

  /** One event; `data` is one line of JSON. False when the stream has ended. */
  send(event: string, data: string, id?: number): boolean {
    return this.#write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`);
  }

  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#onClose.push(fn);
  }

  /** Ends the stream (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    if (!this.#ctx.res.writableEnded) this.#ctx.res.end();
    for (const fn of this.#onClose.splice(0)) fn();
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    const { res } = this.#ctx;
    if (res.writableLength > MAX_BUFFERED) {
      this.close();
      return false;
    }
    res.write(text);
    return true;
  }
}
