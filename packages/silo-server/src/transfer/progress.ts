/**
 * Progress of an export, import or migrate, always on stderr (stdout may be the export itself):
 * a bar on a terminal (cli-progress: the long-standing Node progress bar, one small dependency,
 * ETA and rate built in), plain lines elsewhere (a log, a CI job): one every PLAIN_EVERY silos and
 * one at the end, so that a log shows the work moving without a line per silo.
 */
import cliProgress from 'cli-progress';
import type { Counts } from './format.js';

export interface Progress {
  /** The work is `total` silos. */
  start(total: number): void;
  /** `n` more silos done. */
  tick(n: number): void;
  /** All done: what was moved. */
  done(counts: Counts): void;
  /** Stops drawing (also after a failure); idempotent. */
  stop(): void;
}

/** Plain progress lines come every this many silos. */
export const PLAIN_EVERY = 1000;

export const summary = (c: Counts): string =>
  `${c.accounts} accounts, ${c.keys} keys, ${c.silos} silos, ${c.versions} versions, ${c.webhooks} webhooks, ${c.users} users, ${c.audit} audit entries`;

/** Counts silos done and says so at the end: what both kinds of progress share. */
function tally(label: string) {
  let total = 0;
  let done = 0;
  const started = Date.now();
  const rate = () => Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
  return {
    start: (t: number) => void (total = t),
    add: (n: number) => void (done += n),
    get done() {
      return done;
    },
    get total() {
      return total;
    },
    now: () => `${label}: ${done}/${total} silos (${rate()} silos/s)\n`,
    end: (counts: Counts) => `${label}: ${done}/${total} silos in ${((Date.now() - started) / 1000).toFixed(1)} s (${rate()} silos/s): ${summary(counts)}\n`,
  };
}

/** Plain lines through `write`, each starting with `label` (`silo export`). */
export function plainProgress(label: string, write: (text: string) => void): Progress {
  const t = tally(label);
  return {
    start(total) {
      t.start(total);
      write(`${label}: ${total} silos to go\n`);
    },
    tick(n) {
      const before = Math.floor(t.done / PLAIN_EVERY);
      t.add(n);
      if (Math.floor(t.done / PLAIN_EVERY) > before && t.done < t.total) write(t.now());
    },
    done(counts) {
      write(t.end(counts));
    },
    stop() {},
  };
}

/** A bar drawn on `terminal` (a TTY) while the work runs, then the same closing line as plainProgress. */
export function barProgress(label: string, terminal: NodeJS.WriteStream): Progress {
  const bar = new cliProgress.SingleBar(
    {
      stream: terminal,
      format: `${label} {bar} {value}/{total} silos | {duration_formatted} | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 200,
    },
    cliProgress.Presets.shades_classic,
  );
  const t = tally(label);
  let running = false;
  const stop = () => {
    if (running) bar.stop();
    running = false;
  };
  return {
    start(total) {
      t.start(total);
      running = true;
      bar.start(total, 0);
    },
    tick(n) {
      t.add(n);
      bar.increment(n);
    },
    done(counts) {
      stop();
      terminal.write(t.end(counts));
    },
    stop,
  };
}

/** A bar when `terminal` is given (stderr is a TTY), plain lines through `write` otherwise. */
export function progressFor(label: string, write: (text: string) => void, terminal: NodeJS.WriteStream | undefined): Progress {
  return terminal ? barProgress(label, terminal) : plainProgress(label, write);
}

/** No progress at all (the export half of a migrate: the import half reports). */
export const silentProgress: Progress = { start() {}, tick() {}, done() {}, stop() {} };
