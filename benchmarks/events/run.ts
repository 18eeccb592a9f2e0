/**
 * The events benchmark (issue 12): 2 000 SSE subscribers on one silo of `silo serve`.
 *
 * 1. Latency: one PATCH per second; for each, the time from its 200 to that version's `update`
 *    event at the last of the subscribers (target p99 < 500 ms), and every subscriber's.
 * 2. The server's RSS with the subscribers attached (target < 400 MB).
 * 3. Write throughput with the subscribers on another silo and on the written one, against none
 *    (target ≥ 80%), in interleaved rounds.
 *
 *   npm run bench -- events [--quick] [--no-write] [--subscribers=N]
 *
 * The subscribers live in separate processes (subscribers.ts) so that neither the writer's
 * timings nor autocannon share an event loop with 2 000 streams.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInvokedDirectly, machineInfo } from '../common.js';
import { Fleet } from './fleet.js';
import { createSilo, measureLatency, patchLoad, SCENARIOS, spread, throughputRound, type ThroughputRound } from './measure.js';
import { renderMarkdown, type EventsResults, type ThroughputSummary } from './report.js';
import { startEventsServer } from './server.js';

const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));

export interface EventsBenchOptions {
  quick?: boolean;
  write?: boolean;
  subscribers?: number;
}

/** Two subscriber processes: one per core here, and 1 000 sockets each stays light. */
const PROCESSES = 2;

function summarize(rounds: ThroughputRound[], subscribers: number): ThroughputSummary[] {
  const none = rounds.filter((r) => r.scenario === 'none');
  return SCENARIOS.map((scenario) => {
    const mine = rounds.filter((r) => r.scenario === scenario);
    // Rounds are paired by position: round i of a scenario against round i with no subscriber.
    const ratios = scenario === 'none' ? null : mine.map((r, i) => r.reqPerSec / none[i]!.reqPerSec);
    const expected = mine.reduce((s, r) => s + r.writes, 0) * subscribers;
    return {
      scenario,
      reqPerSec: spread(mine.map((r) => r.reqPerSec)),
      ratio: ratios ? spread(ratios) : null,
      rssPeakMax: Math.max(...mine.map((r) => r.rssPeak)),
      // Only the written silo's subscribers get events: one per write each.
      delivered: scenario === 'same silo' ? mine.reduce((s, r) => s + r.events, 0) / expected : null,
      endedStreams: mine.reduce((s, r) => s + r.endedStreams, 0),
    };
  });
}

export async function runEventsBenchmarks(options: EventsBenchOptions = {}): Promise<EventsResults> {
  const quick = options.quick === true;
  const subscribers = options.subscribers ?? 2000;
  const settings = { subscribers, processes: PROCESSES, writes: quick ? 8 : 30, rounds: quick ? 1 : 3, durationSec: quick ? 2 : 5, connections: 16 };
  const serverEnv = {
    SILO_MAX_STREAMS_PER_CLIENT: '5000',
    SILO_MAX_CONNECTIONS_PER_ADDRESS: '5000',
    SILO_RATE_LIMIT_PER_MINUTE: '0',
  };
  const server = await startEventsServer(serverEnv);
  const fleet = new Fleet(PROCESSES);
  try {
    const watched = await createSilo(server, 'watched');
    const other = await createSilo(server, 'other');

    // JIT and SQLite warm before anything is timed, so the first scenario is not the cold one.
    await patchLoad(server, watched, { connections: settings.connections, durationSec: quick ? 1 : 3 });

    console.log(`latency: ${subscribers} subscribers, ${settings.writes} writes, one per second`);
    const latency = await measureLatency(server, fleet, watched, subscribers, settings.writes);
    console.log(
      `  last subscriber p50 ${latency.last.p50.toFixed(1)} ms, p99 ${latency.last.p99.toFixed(1)} ms; ` +
        `every delivery p50 ${latency.perSubscriber.p50.toFixed(1)} ms, p99 ${latency.perSubscriber.p99.toFixed(1)} ms; missing ${latency.missing}; ` +
        `RSS peak ${(latency.rss.peak / 2 ** 20).toFixed(0)} MB`,
    );

    console.log(`throughput: PATCH 1 KB, ${settings.connections} connections, ${settings.rounds} × ${settings.durationSec} s per scenario`);
    const rounds: ThroughputRound[] = [];
    for (let i = 0; i < settings.rounds; i++) {
      // The order rotates, so that no scenario always runs first on a cooler machine.
      const order = SCENARIOS.map((_, k) => SCENARIOS[(k + i) % SCENARIOS.length]!);
      for (const scenario of order) {
        const round = await throughputRound(server, fleet, scenario, { target: watched, other }, settings);
        rounds.push(round);
        console.log(
          `  round ${i + 1}, ${scenario}: ${round.reqPerSec.toFixed(0)} req/s, RSS peak ${(round.rssPeak / 2 ** 20).toFixed(0)} MB` +
            (scenario === 'none' ? '' : `, ${round.events} events, ${round.endedStreams} streams dropped`),
        );
      }
    }

    const results: EventsResults = {
      date: new Date().toISOString().slice(0, 10),
      machine: machineInfo(),
      node: process.version,
      quick,
      serverEnv,
      settings,
      latency,
      throughput: { rounds, summary: summarize(rounds, subscribers) },
    };
    const markdown = renderMarkdown(results);
    console.log(`\n${markdown}`);
    if (options.write !== false) {
      fs.writeFileSync(path.join(RESULTS, 'events.json'), `${JSON.stringify(results, null, 2)}\n`);
      fs.writeFileSync(path.join(RESULTS, 'events.md'), markdown);
      console.log('written: benchmarks/results/events.md and events.json');
    }
    return results;
  } finally {
    await fleet.stop();
    await server.stop();
  }
}

export function parseEventsArgs(flags: readonly string[]): EventsBenchOptions {
  const o: EventsBenchOptions = {};
  for (const flag of flags) {
    if (flag === '--quick') o.quick = true;
    else if (flag === '--no-write') o.write = false;
    else if (/^--subscribers=\d+$/.test(flag)) o.subscribers = Number(flag.slice('--subscribers='.length));
    else throw new Error(`the events suite takes --quick, --no-write and --subscribers=N (got ${flag})`);
  }
  return o;
}

if (isInvokedDirectly(import.meta.url)) {
  try {
    await runEventsBenchmarks(parseEventsArgs(process.argv.slice(2)));
  } catch (err) {
    console.error(`\nevents benchmark aborted — ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
