/**
 * Turns for large synchronous work. JSON.parse of a dense 10 MB silo (`[{},{},...]`) blocks the
 * event loop for 1 to 2 s, and a request needs several turns of the loop (accept, read, storage,
 * write): back-to-back parses would hold a tiny read for as many parses as it needs turns (25 s
 * measured with 20 queued reads). So large parses run one at a time, and after each the loop is
 * left to everything else for as long as the parse took: other requests get at least half of it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Texts shorter than this parse in a few milliseconds: they take no turn. */
export const PACED_CHARS = 1_000_000;

export class Pacer {
  private tail: Promise<unknown> = Promise.resolve();
  /** When the next turn may start (performance.now()). */
  private freeAt = 0;

  /** Runs the synchronous `work` of a text of `chars` characters, in its turn when the text is large. */
  run<T>(chars: number, work: () => T): Promise<T> {
    if (chars < PACED_CHARS) return Promise.resolve().then(work);
    const turn = this.tail.then(async () => {
      const pause = this.freeAt - performance.now();
      if (pause > 0) await sleep(pause);
      const start = performance.now();
      try {
        return work();
      } finally {
        const end = performance.now();
        this.freeAt = end + (end - start);
      }
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}
