/**
 * The two measurements of the events benchmark, given a running server and a fleet of
 * subscriber processes: event latency at one write per second, and write throughput.
 */
import { makeDocument } from '../http/data.js';
import { percentile, runLoad } from '../http/load.js';
import type { Fleet } from './fleet.js';
import { monotonicMs } from './protocol.js';
import { sampleRss, type EventsServer } from './server.js';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const pct = (values: number[], p: number) => percentile(Float64Array.from(values).sort(), p);

export function manageHeaders(server: EventsServer): Record<string, string> {
  return { 'x-man-api': server.manageKey, 'content-type': 'application/json' };
}

/** A public 1 KB silo; its uuid. */
export async function createSilo(server: EventsServer, name: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/manage/`, {
    method: 'POST',
    headers: manageHeaders(server),
    body: JSON.stringify({ file_name: name, file_data: makeDocument(1024, 0), is_public: true }),
  });
  if (!res.ok) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { file_uuid: string }).file_uuid;
}

/** The silo's current version (GET /api/v1/manage/meta/<uuid>). */
async function siloVersion(server: EventsServer, uuid: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/manage/meta/${uuid}`, { headers: manageHeaders(server) });
  if (!res.ok) throw new Error(`meta: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { version: number }).version;
}

/** One PATCH; when its 200 arrived (monotonic ms), its round trip and the version it made. */
async function timedPatch(server: EventsServer, uuid: string, variant: number): Promise<{ at200: number; roundTripMs: number; version: number }> {
  const body = JSON.stringify({ file_data: makeDocument(1024, variant) });
  const sent = monotonicMs();
  // fetch resolves when the status line and headers are in: the 200 is timed there.
  const res = await fetch(`${server.url}/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manageHeaders(server), body });
  const at200 = monotonicMs();
  if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${await res.text()}`);
  const { version } = (await res.json()) as { version: number };
  return { at200, roundTripMs: at200 - sent, version };
}

/**
 * GET /healthz every `everyMs` ms, one at a time, until stopped: its round trips, which grow with
 * whatever holds the server's event loop (here, handing an event to every stream).
 */
function probeLoop(server: EventsServer, everyMs = 20): { stop(): Promise<number[]> } {
  const trips: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const sent = monotonicMs();
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      trips.push(monotonicMs() - sent);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return trips;
    },
  };
}

const lagOf = (trips: number[]) => ({ p50: pct(trips, 50), p99: pct(trips, 99), max: trips.reduce((m, t) => Math.max(m, t), 0) });

export interface LatencyResult {
  subscribers: number;
  writes: number;
  openMs: number;
  /** Per write: ms from its 200 to the event at the last subscriber, and at the median one. */
  perWrite: { version: number; lastMs: number; medianMs: number; missing: number; roundTripMs: number }[];
  /** Over writes, of the last subscriber's time. */
  last: { p50: number; p99: number; max: number };
  /** Over every (subscriber, write) delivery. */
  perSubscriber: { p50: number; p99: number; min: number };
  /** Deliveries that never came (expected: subscribers × writes). */
  missing: number;
  /** Streams the server ended during the phase. */
  endedStreams: number;
  /** PATCH round trips (send to 200), idle (no subscriber) and with the subscribers attached. */
  roundTrip: { idle: { p50: number; max: number }; attached: { p50: number; max: number } };
  /** GET /healthz round trips every 20 ms, ms: with no stream open, and during the writes. */
  healthz: { idle: { p50: number; p99: number; max: number }; writing: { p50: number; p99: number; max: number } };
  /** Server VmRSS, bytes. */
  rss: { idle: number; attached: number; peak: number; end: number };
}

/** Closes every stream and gives the server a second to tear down 2 000 of them before the next measurement. */
async function closeAndSettle(fleet: Fleet): Promise<void> {
  await fleet.close();
  await sleep(1000);
}

/** Phase 1: `subscribers` streams on `uuid`, then one PATCH per second for `writes` writes. */
export async function measureLatency(server: EventsServer, fleet: Fleet, uuid: string, subscribers: number, writes: number): Promise<LatencyResult> {
  // A few writes with no one listening: warms the server and gives the idle round trip.
  const idleTrips: number[] = [];
  for (let i = 0; i < 5; i++) idleTrips.push((await timedPatch(server, uuid, 100 + i)).roundTripMs);
  const rssIdle = server.rss();
  const idleProbe = probeLoop(server);
  await sleep(2000);
  const healthzIdle = await idleProbe.stop();

  const opened = await fleet.open(server.port, `/public/${uuid}/events`, subscribers, true);
  console.log(`  ${opened.opened} streams open in ${(opened.ms / 1000).toFixed(1)} s`);
  await sleep(1000);
  const rssAttached = server.rss();
  const sampler = sampleRss(server);
  const probe = probeLoop(server);

  const done: Awaited<ReturnType<typeof timedPatch>>[] = [];
  const start = monotonicMs();
  for (let i = 0; i < writes; i++) {
    // On a fixed schedule, one per second, whatever each write took.
    await sleep(start + i * 1000 - monotonicMs());
    done.push(await timedPatch(server, uuid, i + 1));
  }
  // Time for the last events to arrive before anything is counted missing.
  await sleep(2000);
  const healthzWriting = await probe.stop();
  const rss = sampler.stop();
  const times = await fleet.times(done.map((w) => w.version));
  const stats = await fleet.stats();
  await closeAndSettle(fleet);

  const all: number[] = [];
  let missing = 0;
  const perWrite = done.map((w, i) => {
    const deltas = times[i]!.filter((t): t is number => t !== null).map((t) => t - w.at200);
    const lost = subscribers - deltas.length;
    missing += lost;
    all.push(...deltas);
    return { version: w.version, lastMs: deltas.length ? Math.max(...deltas) : Number.NaN, medianMs: pct(deltas, 50), missing: lost, roundTripMs: w.roundTripMs };
  });
  const lasts = perWrite.map((w) => w.lastMs);
  const trips = perWrite.map((w) => w.roundTripMs);
  return {
    subscribers,
    writes,
    openMs: opened.ms,
    perWrite,
    last: { p50: pct(lasts, 50), p99: pct(lasts, 99), max: Math.max(...lasts) },
    perSubscriber: { p50: pct(all, 50), p99: pct(all, 99), min: all.reduce((m, t) => Math.min(m, t), Infinity) },
    missing,
    endedStreams: stats.ended,
    roundTrip: { idle: { p50: pct(idleTrips, 50), max: Math.max(...idleTrips) }, attached: { p50: pct(trips, 50), max: Math.max(...trips) } },
    healthz: { idle: lagOf(healthzIdle), writing: lagOf(healthzWriting) },
    rss: { idle: rssIdle, attached: rssAttached, peak: rss.peak, end: rss.last },
  };
}

/** PATCHes of `uuid` at `connections` concurrency for `durationSec` (autocannon, keep-alive). */
export function patchLoad(server: EventsServer, uuid: string, settings: { connections: number; durationSec: number }) {
  const body = JSON.stringify({ file_data: makeDocument(1024, 7) });
  return runLoad({ url: `${server.url}/api/v1/manage/${uuid}`, method: 'PATCH', body, headers: manageHeaders(server) }, settings);
}

/** The fleet's counts once events have stopped arriving (a backlog drains after the load), within 15 s. */
async function settled(fleet: Fleet): Promise<{ events: number; ended: number }> {
  let stats = await fleet.stats();
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    await sleep(500);
    const next = await fleet.stats();
    if (next.events === stats.events) return next;
    stats = next;
  }
  return stats;
}

export type Scenario = 'none' | 'other silo' | 'same silo';
export const SCENARIOS: Scenario[] = ['none', 'other silo', 'same silo'];

export interface ThroughputRound {
  scenario: Scenario;
  reqPerSec: number;
  /** Writes committed during the round (its version after less before: in-flight ones included). */
  writes: number;
  p99Ms: number;
  /** Server VmRSS peak during the round, bytes. */
  rssPeak: number;
  /** Events the subscribers received, and streams the server ended (slow readers are dropped). */
  events: number;
  endedStreams: number;
}

/**
 * Phase 3, one round of one scenario: PATCHes of silo `target` at `connections` concurrency for
 * `durationSec`, with `subscribers` streams on `target` ('same silo'), on `other` ('other silo')
 * or none. Any answer but 200 fails the benchmark.
 */
export async function throughputRound(
  server: EventsServer,
  fleet: Fleet,
  scenario: Scenario,
  silos: { target: string; other: string },
  settings: { subscribers: number; connections: number; durationSec: number },
): Promise<ThroughputRound> {
  if (scenario !== 'none') {
    const on = scenario === 'same silo' ? silos.target : silos.other;
    await fleet.open(server.port, `/public/${on}/events`, settings.subscribers, false);
    await sleep(500);
  }
  const before = await siloVersion(server, silos.target);
  const sampler = sampleRss(server);
  const result = await patchLoad(server, silos.target, settings);
  const rss = sampler.stop();
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`PATCH (${scenario}): ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`);
  const stats = scenario === 'none' ? { events: 0, ended: 0 } : await settled(fleet);
  const writes = (await siloVersion(server, silos.target)) - before;
  if (scenario !== 'none') await closeAndSettle(fleet);
  return { scenario, reqPerSec: result.reqPerSec, writes, p99Ms: result.latency.p99, rssPeak: rss.peak, events: stats.events, endedStreams: stats.ended };
}
