/**
 * A minimum data rate for request bodies. Node bounds a whole request (requestTimeout) but not
 * its pace, so a body trickled a byte at a time would hold its connection for minutes. Every
 * body still being received is checked once a second: when fewer than `minBytesPerSecond` ×
 * window bytes arrived over the last window, it is cut (408 when no answer has started, and the
 * connection closed). Seconds when the server is not reading the body (the app has not asked for
 * it yet, or has buffered enough) do not count against the client.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BodyRateOptions {
  minBytesPerSecond: number;
  windowMs: number;
  /** How often bodies are checked. Default 1 s. */
  tickMs?: number;
  /** Cut a request that is too slow (the guard stops watching it). */
  onSlow(req: IncomingMessage, res: ServerResponse, bytesInWindow: number): void;
}

interface Watched {
  res: ServerResponse;
  /** The socket's bytesRead at the last check; undefined until the first (whose interval is partial). */
  lastRead: number | undefined;
  /** Bytes received in each counted check of the current window, newest last. */
  samples: number[];
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Whether the server wants more of the body now: someone reads it and its buffer has room. */
function waitingForData(req: IncomingMessage): boolean {
  return req.readableFlowing === true && req.readableLength < req.readableHighWaterMark;
}

export class BodyRateGuard {
  private readonly watched = new Map<IncomingMessage, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;
  private readonly windowTicks: number;

  constructor(private readonly options: BodyRateOptions) {
    this.tickMs = options.tickMs ?? 1_000;
    this.windowTicks = Math.max(1, Math.round(options.windowMs / this.tickMs));
  }

  /** Call for every request the server receives. */
  watch(req: IncomingMessage, res: ServerResponse): void {
    if (this.options.minBytesPerSecond <= 0 || req.complete || !hasBody(req)) return;
    this.watched.set(req, { res, lastRead: undefined, samples: [] });
    this.timer ??= setInterval(() => this.check(), this.tickMs).unref();
  }

  /** Stops the checks (at shutdown). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private check(): void {
    const needed = (this.options.minBytesPerSecond * this.windowTicks * this.tickMs) / 1000;
    for (const [req, w] of this.watched) {
      if (req.complete || req.destroyed || req.socket.destroyed) {
        this.watched.delete(req);
        continue;
      }
      const read = req.socket.bytesRead;
      const got = read - (w.lastRead ?? read);
      const first = w.lastRead === undefined;
      w.lastRead = read;
      if (first || !waitingForData(req)) continue;
      w.samples.push(got);
      if (w.samples.length > this.windowTicks) w.samples.shift();
      if (w.samples.length < this.windowTicks) continue;
      const inWindow = w.samples.reduce((a, b) => a + b, 0);
      if (inWindow < needed) {
        this.watched.delete(req);
        this.options.onSlow(req, w.res, inWindow);
      }
    }
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
