/**
 * A stream's events, handled one at a time and in order. Its client sets the pace (a large event
 * is written as fast as it reads, see event-stream.ts), so events may wait here; how far behind a
 * client may fall is bounded, by count and by time, and past either the stream ends: its client
 * reconnects with Last-Event-ID and catches up from history, which costs one listing instead of
 * every event it missed.
 */
import type { EventStream } from './event-stream.js';

/** Events a stream may have waiting (its client or storage is slow) before it is ended. */
export const MAX_PENDING = 100;
/** How long an event may wait for the ones before it to be written before the stream is ended. */
export const MAX_LAG_MS = 60_000;

export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  /** When each waiting event was added, oldest first. */
  readonly #since: number[] = [];

  constructor(private readonly stream: EventStream) {}

  /** Nothing waits: an event may be sent at once, in order. */
  get idle(): boolean {
    return this.#since.length === 0;
  }

  add(work: () => Promise<void>): void {
    if (this.stream.closed) return;
    const now = Date.now();
    if (this.#since.length >= MAX_PENDING || now - (this.#since[0] ?? now) > MAX_LAG_MS) return this.stream.close(true);
    this.#since.push(now);
    this.#tail = this.#tail
      // A closed stream does no more work: nothing queued for it is read or written.
      .then(() => (this.stream.closed ? undefined : work()))
      // Storage failing, a key revoked, the memory budget full past its wait: the stream ends, and
      // its client reconnects (and catches up from history).
      .catch(() => this.stream.close())
      .finally(() => this.#since.shift());
  }
}
