/**
 * Turns of the event loop for bulk work on the main thread: the change feed's slices of event data
 * and the replays of streams that open together, and the encoding of large answers into bytes.
 * Unbounded, 100 streams each writing a 64 KiB slice per turn made every turn 100 socket writes
 * long, 100 streams opened at once replayed history in one turn of 200 ms, and 16 readers of
 * different 10 MB silos encoded a 1 MB slice each per turn; a tiny read needs several turns, and
 * waited 200-400 ms. So each turn runs work worth at most BYTES_PER_TURN, first come first served,
 * and the rest waits for the next turns: the loop goes round between them, and other requests are
 * read and answered.
 */

/** Work per turn, in bytes: 1 MiB of socket writes, or of text encoded, take about 1-2 ms. */
export const BYTES_PER_TURN = 1024 * 1024;

interface Waiter {
  bytes: number;
  resolve(): void;
}

export class Turns {
  readonly #waiting: Waiter[] = [];
  #scheduled = false;

  constructor(private readonly perTurn = BYTES_PER_TURN) {}

  /** Resolves in a coming turn of the event loop (never in this one), in order of asking, for work worth `bytes`. */
  next(bytes: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push({ bytes, resolve });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(this.#run);
    });
  }

  readonly #run = (): void => {
    this.#scheduled = false;
    // At least one waiter per turn, however large its work.
    let budget = this.perTurn;
    const now: Waiter[] = [];
    while (this.#waiting.length > 0 && (now.length === 0 || budget >= this.#waiting[0]!.bytes)) {
      const waiter = this.#waiting.shift()!;
      budget -= waiter.bytes;
      now.push(waiter);
    }
    if (this.#waiting.length > 0) {
      this.#scheduled = true;
      setImmediate(this.#run);
    }
    for (const waiter of now) waiter.resolve();
  };
}

/** One event loop per process: one line of turns for all of its bulk work. */
export const bulkTurns = new Turns();
