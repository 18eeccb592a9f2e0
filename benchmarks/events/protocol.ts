/** Messages between the benchmark (run.ts, through fleet.ts) and its subscriber processes. */

/** Parent → subscriber process. */
export type Command =
  /** Open `count` streams on `path`; `record`: keep each stream's arrival time per version. */
  | { type: 'open'; port: number; path: string; count: number; record: boolean }
  /** Arrival times of these versions (recorded streams only). */
  | { type: 'times'; versions: number[] }
  /** Events and ended streams so far. */
  | { type: 'stats' }
  /** Close every stream and forget what was recorded. */
  | { type: 'close' };

export interface Stats {
  open: number;
  /** Streams the server ended (or that failed) after they had opened. */
  ended: number;
  /** `update` events received, all streams together. */
  events: number;
}

/** Subscriber process → parent: one reply per command, in order. */
export type Reply =
  | { type: 'opened'; opened: number; failed: number; firstError?: string; ms: number }
  /** times[v][i]: when stream i got version versions[v], ms on the monotonic clock; null when it did not. */
  | { type: 'times'; times: (number | null)[][] }
  | { type: 'stats'; stats: Stats }
  | { type: 'closed' }
  | { type: 'error'; message: string };

/**
 * Now, in ms, on CLOCK_MONOTONIC (what process.hrtime reads on Linux): one clock for the whole
 * machine, so a time taken in a subscriber process compares with one taken in the benchmark.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}
