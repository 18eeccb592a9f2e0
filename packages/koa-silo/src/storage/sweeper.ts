/**
 * Runs the orphan sweep by itself: once shortly after start, then every `intervalMs`. Timers never
 * keep the process alive, runs never overlap, and a failed run (a storage outage) only waits for
 * the next one.
 */
import type { SweepReport } from './types.js';

/** The first run waits this long, so that a start is not slowed by it. */
const FIRST_RUN_MS = 5_000;

export function startSweeper(
  sweep: () => Promise<SweepReport>,
  intervalMs: number,
  logger: { error(message: string, err?: unknown): void },
): { stop(): void } {
  return runPeriodically(sweep, { intervalMs, firstRunMs: FIRST_RUN_MS, failure: 'silo: the orphan sweep failed (it runs again later)' }, logger);
}

/**
 * Runs `task` shortly after start (`firstRunMs`, or `intervalMs` if sooner), then every
 * `intervalMs` (0: never): the timers never keep the process alive, runs never overlap, and a
 * failed run is logged as `failure` and only waits for the next one. The sweep and the audit
 * log's pruning both run so.
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  { intervalMs, firstRunMs, failure }: { intervalMs: number; firstRunMs: number; failure: string },
  logger: { error(message: string, err?: unknown): void },
): { stop(): void } {
  if (!(intervalMs > 0)) return { stop: () => undefined };
  let running = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      // A run still under way when its owner stopped it fails as the storage closes: no fault.
      if (!stopped) logger.error(failure, error);
    } finally {
      running = false;
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void run().finally(() => schedule(intervalMs));
    }, ms);
    timer.unref();
  };
  schedule(Math.min(firstRunMs, intervalMs));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
