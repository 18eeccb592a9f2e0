/** benchmarks/results/events.md from the results of a run. */
import type { MachineInfo } from '../common.js';
import type { LatencyResult, Scenario, Spread, ThroughputRound } from './measure.js';

export const TARGETS = { lastP99Ms: 500, rssBytes: 400 * 2 ** 20, throughputRatio: 0.8 } as const;

export interface ThroughputSummary {
  scenario: Scenario;
  reqPerSec: Spread;
  /** With subscribers ÷ without, per round. */
  ratio: Spread | null;
  rssPeakMax: number;
  /** Events received per expected event (writes × subscribers on the written silo). */
  delivered: number | null;
  endedStreams: number;
}

export interface EventsResults {
  date: string;
  machine: MachineInfo;
  node: string;
  quick: boolean;
  /** The server's settings that the benchmark changes from the defaults, and why. */
  serverEnv: Record<string, string>;
  settings: { subscribers: number; processes: number; writes: number; rounds: number; durationSec: number; connections: number };
  latency: LatencyResult;
  throughput: { rounds: ThroughputRound[]; summary: ThroughputSummary[] };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const range = (s: Spread, f: (v: number) => string) => `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;

export function renderMarkdown(r: EventsResults): string {
  const m = r.machine;
  const l = r.latency;
  const s = r.settings;
  const perStreamKb = (l.rss.attached - l.rss.idle) / l.subscribers / 1024;
  const lines = [
    '# Events benchmark',
    '',
    `${r.date}, ${m.cpuModel} (${m.cores} cores), ${m.memoryGiB.toFixed(1)} GiB, Node ${r.node}${r.quick ? ' — **quick mode**' : ''}. ` +
      `\`silo serve\` on SQLite, ${s.subscribers} SSE subscribers on \`/public/<uuid>/events\` from ${s.processes} separate processes (one connection each). ` +
      'Produced by `npm run bench -- events`.',
    '',
    `Server settings changed for the benchmark: ${Object.entries(r.serverEnv).map(([k, v]) => `\`${k}=${v}\``).join(', ')} ` +
      `(${s.subscribers} streams from one address exceed the per-client stream cap (20) and the per-address connection cap (256); the rate limiter is not what is measured).`,
    '',
    '## Targets (issue 12)',
    '',
    '| Target | Measured | |',
    '| --- | --- | --- |',
    `| write's 200 → event at the last of ${l.subscribers} subscribers, p99 < ${TARGETS.lastP99Ms} ms | p99 ${ms(l.last.p99)} (p50 ${ms(l.last.p50)}) over ${l.writes} writes | ${met(l.last.p99 < TARGETS.lastP99Ms)} |`,
    `| server RSS < ${mb(TARGETS.rssBytes)} with ${l.subscribers} subscribers | peak ${mb(l.rss.peak)}, end ${mb(l.rss.end)} | ${met(l.rss.peak < TARGETS.rssBytes)} |`,
    ...r.throughput.summary
      .filter((t) => t.ratio !== null)
      .map((t) => `| write throughput with ${l.subscribers} subscribers (${t.scenario}) ≥ ${TARGETS.throughputRatio * 100}% of none | ${(t.ratio!.median * 100).toFixed(0)}% [${(t.ratio!.min * 100).toFixed(0)}–${(t.ratio!.max * 100).toFixed(0)}%] | ${met(t.ratio!.median >= TARGETS.throughputRatio)} |`),
    '',
    '## Latency: one write per second',
    '',
    `From the PATCH's 200 (as the writer sees it) to the \`update\` event of that version at each subscriber, on one monotonic clock. ` +
      'Negative times: the event reached the subscriber before the 200 reached the writer.',
    '',
    '| | p50 | p99 | max |',
    '| --- | --- | --- | --- |',
    `| last subscriber, over writes | ${ms(l.last.p50)} | ${ms(l.last.p99)} | ${ms(l.last.max)} |`,
    `| every delivery (subscriber × write) | ${ms(l.perSubscriber.p50)} | ${ms(l.perSubscriber.p99)} | |`,
    '',
    `Missing deliveries: ${l.missing} of ${l.subscribers * l.writes}; streams ended by the server: ${l.endedStreams}. ` +
      `Opening ${l.subscribers} streams took ${(l.openMs / 1000).toFixed(1)} s. ` +
      `PATCH round trip p50 ${ms(l.roundTrip.idle.p50)} with no subscriber, ${ms(l.roundTrip.attached.p50)} (max ${ms(l.roundTrip.attached.max)}) with them attached.`,
    '',
    `Event loop, as another client sees it (GET /healthz every 20 ms): p50 ${ms(l.healthz.idle.p50)}, p99 ${ms(l.healthz.idle.p99)}, max ${ms(l.healthz.idle.max)} with no stream open; ` +
      `p50 ${ms(l.healthz.writing.p50)}, p99 ${ms(l.healthz.writing.p99)}, max ${ms(l.healthz.writing.max)} with the streams open and one write per second.`,
    '',
    `Server RSS: ${mb(l.rss.idle)} idle, ${mb(l.rss.attached)} with the streams open (≈ ${perStreamKb.toFixed(0)} KB per stream), peak ${mb(l.rss.peak)} while writing, ${mb(l.rss.end)} at the end.`,
    '',
    '## Write throughput',
    '',
    `PATCH of a 1 KB public silo, ${s.connections} keep-alive connections (autocannon), ${s.durationSec} s per round, ${s.rounds} interleaved rounds; ` +
      `${s.subscribers} subscribers on another silo or on the written one. Medians, lowest and highest round in brackets.`,
    '',
    '| Subscribers | req/s | vs none | server RSS peak | events delivered | streams dropped |',
    '| --- | --- | --- | --- | --- | --- |',
    ...r.throughput.summary.map(
      (t) =>
        `| ${t.scenario} | ${range(t.reqPerSec, (v) => v.toFixed(0))} | ${t.ratio ? range(t.ratio, (v) => `${(v * 100).toFixed(0)}%`) : '—'} | ${mb(t.rssPeakMax)} | ` +
        `${t.delivered === null ? '—' : `${(t.delivered * 100).toFixed(1)}%`} | ${t.scenario === 'none' ? '—' : t.endedStreams} |`,
    ),
    '',
    ...r.throughput.summary
      .filter((t) => t.scenario === 'same silo')
      .map(
        (t) =>
          `With the subscribers on the written silo every PATCH is also ${s.subscribers} events: ${t.reqPerSec.median.toFixed(0)} req/s is ` +
          `${((t.reqPerSec.median * s.subscribers) / 1000).toFixed(0)} k events/s handed to streams, and that fan-out, not the write itself, sets the pace.`,
      ),
    '',
    '"events delivered": events received ÷ (writes × subscribers) on the written silo. A subscriber whose socket has more than 256 KB waiting is dropped by the server ' +
      '(it would reconnect and catch up from history); "streams dropped" counts them over all rounds.',
    '',
  ];
  return lines.join('\n');
}
