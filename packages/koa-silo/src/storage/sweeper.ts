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
  if (!(intervalMs > 0)) return { stop: () => undefined };
  let running = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await sweep();
    } catch (error) {
      logger.error('silo: the orphan sweep failed (it runs again later)', error);
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
  schedule(Math.min(FIRST_RUN_MS, intervalMs));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
