/**
 * A small hand-written timing harness: process.hrtime.bigint, calibration, warm-up, time-boxed
 * rounds, median. Rounds of the candidates of one case are interleaved (round 1 of every
 * candidate, then round 2, ...; the order rotates each round) so that a noisy neighbour on a
 * shared machine slows every candidate alike instead of one of them.
 */

import { median } from '../common.js';

export type Fn = (data: unknown) => unknown;

export interface HarnessOptions {
  /** Target duration of one measured round, in ms. */
  roundMs: number;
  /** Number of measured rounds (median is reported). */
  rounds: number;
  /** Warm-up time per candidate before the measured rounds, in ms. */
  warmupMs: number;
}

export interface Measurement {
  /** Median of the per-round ops/s. */
  opsPerSec: number;
  /** Median time per call, in ms (1000 / opsPerSec). */
  msPerOp: number;
  /** Calls per measured round. */
  iterations: number;
  /** ops/s of every measured round, in the order measured. */
  roundOpsPerSec: number[];
  /** Median absolute deviation of the rounds, relative to the median (0.02 = ±2 %). */
  relativeMad: number;
}

/** Written after every call so that no call can be optimised away. */
let sink: unknown;
export function consumeSink(): unknown {
  return sink;
}

/**
 * The one measuring loop every candidate runs in. It is made megamorphic up front (below), so
 * V8 never inlines a candidate into it: each candidate pays the same call overhead, including
 * the hand-written baseline, and the first candidate measured gets no advantage over the others.
 */
function loop(fn: Fn, data: unknown, n: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = fn(data);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

{
  const polluters: Fn[] = [
    (d) => d,
    (d) => typeof d,
    (d) => [d],
    (d) => ({ d }),
    (d) => d === null,
    (d) => String(d),
    (d) => Array.isArray(d),
    (d) => (d as { x?: unknown } | null)?.x,
  ];
  for (let r = 0; r < 200; r++) for (const p of polluters) loop(p, { x: r }, 10);
}

interface Prepared {
  fn: Fn;
  data: unknown;
  iterations: number;
  rounds: number[];
}

/** Grow n until a batch takes a measurable share of a round, then size n to fill one round. */
function calibrate(fn: Fn, data: unknown, roundMs: number): number {
  let n = 1;
  for (;;) {
    const ms = loop(fn, data, n);
    if (ms >= roundMs / 8 || n >= 1 << 30) {
      return Math.max(1, Math.round((n * roundMs) / Math.max(ms, 1e-3)));
    }
    n *= ms < roundMs / 256 ? 16 : 2;
  }
}

function warmUp(fn: Fn, data: unknown, n: number, warmupMs: number): void {
  const until = performance.now() + warmupMs;
  do loop(fn, data, n); while (performance.now() < until);
}

/**
 * Measures several candidates of one case. Each candidate is calibrated and warmed up, then the
 * measured rounds are interleaved across candidates.
 */
export function measureInterleaved(
  candidates: ReadonlyArray<{ key: string; fn: Fn; data: unknown }>,
  opts: HarnessOptions,
): Map<string, Measurement> {
  const prepared = new Map<string, Prepared>();
  for (const c of candidates) {
    const iterations = calibrate(c.fn, c.data, opts.roundMs);
    warmUp(c.fn, c.data, iterations, opts.warmupMs);
    prepared.set(c.key, { fn: c.fn, data: c.data, iterations, rounds: [] });
  }
  const keys = [...prepared.keys()];
  for (let r = 0; r < opts.rounds; r++) {
    for (let k = 0; k < keys.length; k++) {
      const p = prepared.get(keys[(k + r) % keys.length]!)!;
      const ms = loop(p.fn, p.data, p.iterations);
      p.rounds.push((p.iterations * 1000) / Math.max(ms, 1e-6));
    }
  }
  const out = new Map<string, Measurement>();
  for (const [key, p] of prepared) {
    const opsPerSec = median(p.rounds);
    const mad = median(p.rounds.map((v) => Math.abs(v - opsPerSec)));
    out.set(key, {
      opsPerSec,
      msPerOp: 1000 / opsPerSec,
      iterations: p.iterations,
      roundOpsPerSec: p.rounds,
      relativeMad: mad / opsPerSec,
    });
  }
  return out;
}
