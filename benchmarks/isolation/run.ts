/**
 * The isolation benchmark (issue 22): how much the attacks of the isolation review slow everyone
 * else down. `silo serve` on SQLite with its default memory budget; for each attack, a separate
 * process reads a tiny public silo every 50 ms, and the server reports its own event-loop delay
 * (perf_hooks, preloaded: event-loop-delay.mjs). Both against the same measures at rest, in the
 * same run, so the table reads as ratios rather than this machine's absolute speed.
 *
 *   npm run bench -- isolation [--quick] [--no-write]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { attacks, hammer, MiB, quantile, seedIsolationData } from '../../test/support/isolation.js';
import { startReadProbe } from '../../test/support/read-probe.js';
import { sampleRss } from '../../test/support/rss.js';
import { startSiloServer, type SiloServer } from '../../test/support/silo-server.js';
import { isInvokedDirectly, machineInfo, median } from '../common.js';

const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./event-loop-delay.mjs', import.meta.url));
const PROBE_EVERY_MS = 50;

export interface IsolationBenchOptions {
  quick?: boolean;
  write?: boolean;
}

interface Delay {
  p50: number;
  p99: number;
  max: number;
}

interface Measured {
  scenario: string;
  round: number;
  tinyP50: number;
  tinyP99: number;
  tinyFailures: number;
  eventLoop: Delay;
  peakRssMiB: number;
  /** The attack's answers by status. */
  statuses: Record<string, number>;
}

type Attack = (ms: number) => Promise<Map<number, number>>;

/** `one` repeated one after another until `ms` have passed. */
const repeat = (one: () => Promise<{ status: number }>): Attack => (ms) => hammer(1, ms, async () => (await one()).status);

function scenarios(attack: ReturnType<typeof attacks>): [string, Attack][] {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  return [
    ['at rest', async (ms) => (await sleep(ms), new Map())],
    ['1. 10 MB of [1,1,...] as a JSON Patch value and a create', repeat(async () => (await attack.replaceWithOnes(), attack.createOnes()))],
    ['1. 1 000 malformed patch operations', repeat(attack.malformedOperations)],
    ['2. 1 000 moves in a 3.3 M element silo', repeat(() => attack.moves(1000))],
    ['3. a value copied into itself 22 times', repeat(attack.copies)],
    ['5. 40 readers of past versions of 9.9 MB, 4 MB/s each', (ms) => hammer(40, ms, (lane) => attack.history(agent, 1 + (lane % 2), 4 * MiB))],
    ['6. 4 searches answering 9.9 MB (another account reads)', (ms) => hammer(4, ms, () => attack.search(agent))],
  ];
}

/** Sends SIGUSR2 and reads the `ELD` line it makes the server write. */
async function eventLoopDelay(server: SiloServer): Promise<Delay> {
  const count = () => server.output().split('\nELD ').length;
  const before = count();
  process.kill(server.child.pid!, 'SIGUSR2');
  for (let i = 0; i < 100 && count() === before; i++) await sleep(20);
  const line = server.output().split('\nELD ').at(-1)!.split('\n')[0]!;
  return JSON.parse(line) as Delay;
}

export async function runIsolationBenchmarks(options: IsolationBenchOptions = {}): Promise<Measured[]> {
  const rounds = options.quick ? 1 : 2;
  const ms = options.quick ? 4000 : 8000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-isolation-'));
  let server: SiloServer | undefined;
  const measured: Measured[] = [];
  try {
    const data = await seedIsolationData(dir);
    server = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0' }, 30_000, ['--import', PRELOAD]);
    const attack = attacks(server.port, data);
    const list = scenarios(attack);
    for (let round = 1; round <= rounds; round++) {
      for (const [scenario, run] of list) {
        await eventLoopDelay(server);
        const probe = await startReadProbe(server.port, `/public/${data.tiny}`, PROBE_EVERY_MS);
        const rss = sampleRss(server.child.pid!);
        const statuses = await run(ms);
        const { latencies, failures } = await probe.stop();
        const eventLoop = await eventLoopDelay(server);
        const row: Measured = {
          scenario,
          round,
          tinyP50: quantile(latencies, 0.5),
          tinyP99: quantile(latencies, 0.99),
          tinyFailures: failures.length,
          eventLoop,
          peakRssMiB: Math.round(rss.stop().peak / MiB),
          statuses: Object.fromEntries(statuses),
        };
        measured.push(row);
        console.log(
          `${scenario} (round ${round}): tiny read p50 ${row.tinyP50.toFixed(1)} ms, p99 ${row.tinyP99.toFixed(1)} ms; ` +
            `event loop p99 ${eventLoop.p99} ms, max ${eventLoop.max} ms; RSS ${row.peakRssMiB} MiB; answers ${JSON.stringify(row.statuses)}`,
        );
        if (!server.alive()) throw new Error(`the server died under "${scenario}":\n${server.output().slice(-2000)}`);
      }
    }
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (options.write !== false) writeResults(measured, options.quick ?? false, ms);
  return measured;
}

function writeResults(measured: Measured[], quick: boolean, ms: number): void {
  const date = new Date().toISOString();
  const machine = machineInfo();
  fs.writeFileSync(path.join(RESULTS, 'isolation.json'), `${JSON.stringify({ date, machine, node: process.version, quick, ms, measured }, null, 2)}\n`);
  const names = [...new Set(measured.map((m) => m.scenario))];
  const of = (name: string) => measured.filter((m) => m.scenario === name);
  const restP99 = median(of('at rest').map((m) => m.tinyP99));
  const restLoop = median(of('at rest').map((m) => m.eventLoop.p99));
  const spread = (values: number[]) => (values.length > 1 ? ` (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})` : '');
  const lines = [
    '# Isolation benchmark',
    '',
    `${date}, ${machine.cpuModel}, ${machine.cores} cores, Node ${process.version}${quick ? ', quick' : ''}. ` +
      `\`silo serve\` on SQLite, default memory budget (512 MiB); each attack for ${ms / 1000} s per round, ` +
      `${measured.filter((m) => m.scenario === 'at rest').length} round(s); a tiny public read every ${PROBE_EVERY_MS} ms from another process. ` +
      'Event-loop delay is measured inside the server (perf_hooks). Medians over rounds, with the range.',
    '',
    '| attack (issue 22 item) | tiny read p50 ms | tiny read p99 ms | p99 vs rest | event loop p99 ms | event loop max ms | peak RSS MiB | attack answers |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const name of names) {
    const rows = of(name);
    const p99 = rows.map((r) => r.tinyP99);
    const loop = rows.map((r) => r.eventLoop.p99);
    const statuses = rows.reduce<Record<string, number>>((all, r) => {
      for (const [status, n] of Object.entries(r.statuses)) all[status] = (all[status] ?? 0) + n;
      return all;
    }, {});
    lines.push(
      `| ${name} | ${median(rows.map((r) => r.tinyP50)).toFixed(1)} | ${median(p99).toFixed(1)}${spread(p99)} | ${(median(p99) / restP99).toFixed(1)}× | ` +
        `${median(loop).toFixed(1)}${spread(loop)} | ${Math.max(...rows.map((r) => r.eventLoop.max)).toFixed(0)} | ` +
        `${Math.max(...rows.map((r) => r.peakRssMiB))} | ${Object.entries(statuses).map(([s, n]) => `${n}× ${s}`).join(', ') || '—'} |`,
    );
  }
  lines.push('', `At rest: tiny read p99 ${restP99.toFixed(1)} ms, event loop p99 ${restLoop.toFixed(1)} ms.`, '');
  fs.writeFileSync(path.join(RESULTS, 'isolation.md'), `${lines.join('\n')}\n`);
}

if (isInvokedDirectly(import.meta.url)) {
  const flags = process.argv.slice(2);
  await runIsolationBenchmarks({ quick: flags.includes('--quick'), write: !flags.includes('--no-write') });
}
