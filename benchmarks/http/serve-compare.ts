/**
 * `silo serve` against koa-silo mounted in-process on the same store: what the shipped server
 * (its request log, HTTP edge checks, health routes, console, JSON 404) adds per request.
 */
import { median } from '../common.js';
import { isServeKind, type StoreKind } from './kinds.js';
import type { Group } from './scenarios.js';
import type { ScenarioResult } from './types.js';

export interface ServePair {
  group: Group;
  serveId: string;
  inProcessId: string;
  /** Median over the rounds of (silo serve req/s ÷ in-process req/s in the same round). */
  ratio: number | null;
  /** silo serve's server CPU µs per request minus the in-process server's (medians). */
  cpuAddedUs: number | null;
}

export function servePairs(results: readonly ScenarioResult[]): ServePair[] {
  const by = new Map(results.map((r) => [r.id, r]));
  const pairs: ServePair[] = [];
  for (const r of results) {
    if (!isServeKind(r.target)) continue;
    const store = r.target.slice('serve-'.length) as StoreKind;
    const inProcessId = `s${r.group}-${store}`;
    const other = by.get(inProcessId);
    if (!other) continue;
    const valid = r.valid && other.valid && r.rounds.length === other.rounds.length && r.rounds.length > 0;
    const cpu = r.median.serverCpuUsPerReq;
    const otherCpu = other.median.serverCpuUsPerReq;
    pairs.push({
      group: r.group,
      serveId: r.id,
      inProcessId,
      ratio: valid ? median(r.rounds.map((x, i) => x.reqPerSec / other.rounds[i]!.reqPerSec)) : null,
      cpuAddedUs: valid && cpu !== null && otherCpu !== null ? cpu - otherCpu : null,
    });
  }
  return pairs;
}

/** One line per pair, for the console. */
export function servePairLine(p: ServePair): string {
  const ratio = p.ratio === null ? 'n/a' : `${(p.ratio * 100).toFixed(0)}%`;
  const cpu = p.cpuAddedUs === null ? '' : ` · server CPU ${p.cpuAddedUs >= 0 ? '+' : ''}${p.cpuAddedUs.toFixed(0)} µs/req`;
  return `${p.serveId.padEnd(20)} ${ratio.padStart(5)} of ${p.inProcessId}${cpu}`;
}
