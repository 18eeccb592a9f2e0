/**
 * The migrate benchmark (issue 11): the throughput of `silo migrate` (silos per second) from a
 * SQLite store of 10 000 silos of ~10 KB into a new SQLite file, Redis (database 2), PostgreSQL (a
 * schema of its own in database `test`) and a Redis Cluster of its own, each run spawned as a user
 * runs it. Also its peak RSS, and the same for a store of a fifth of the silos, to show that memory
 * does not grow with the store.
 *
 *   npm run bench -- migrate [--quick] [--no-write]
 *   node --import tsx benchmarks/migrate/run.ts [--quick] [--no-write]
 *
 * Rounds are interleaved across targets (the first target rotates); each target is emptied before
 * and after every run. Results: benchmarks/results/migrate.md and migrate.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInvokedDirectly, machineInfo, type MachineInfo } from '../common.js';
import { postgresVersion } from '../http/targets.js';
import { runMigrate } from './measure.js';
import { renderMarkdown } from './report.js';
import { seedStore, SILO_BYTES, type SeededStore } from './seed.js';
import { openTargets, POSTGRES_URL, type NotRun, type Target, type TargetName } from './targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = path.join(ROOT, 'benchmarks/results');
/** The `silo` bin (it runs dist/cli.js's main; dist/cli.js alone only exports it). */
const CLI = path.join(ROOT, 'packages/silo-server/bin/silo.js');

export interface MigrateBenchOptions {
  quick?: boolean;
  write?: boolean;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** One `silo migrate` run. */
export interface RunRecord {
  round: number;
  target: TargetName;
  silos: number;
  seconds: number;
  silosPerSec: number;
  mbPerSec: number;
  peakRssMiB: number | undefined;
  /** The command's closing line. */
  summary: string;
}

export interface TargetSummary {
  target: TargetName;
  silosPerSec: Spread;
  mbPerSec: Spread;
  seconds: Spread;
  /** Peak RSS migrating the large store, and the small one. */
  peakRssMiB: Spread | undefined;
  smallPeakRssMiB: Spread | undefined;
}

export interface StoreFacts {
  silos: number;
  versions: number;
  dataMB: number;
  exportMB: number;
  seedSeconds: number;
}

export interface MigrateResults {
  date: string;
  machine: MachineInfo;
  node: string;
  postgres: string | undefined;
  quick: boolean;
  rounds: number;
  siloBytes: number;
  stores: { large: StoreFacts; small: StoreFacts };
  summary: TargetSummary[];
  notRun: NotRun[];
  runs: RunRecord[];
  totalSeconds: number;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

const mib = (bytes: number) => bytes / 2 ** 20;
const facts = (s: SeededStore): StoreFacts => ({ silos: s.silos, versions: s.versions, dataMB: s.dataBytes / 1e6, exportMB: s.exportBytes / 1e6, seedSeconds: s.seedSeconds });

/** What the closing line of an import or migrate of `store` says it wrote. */
const moved = (store: SeededStore) => `, ${store.silos} silos, ${store.versions} versions`;

/** Empties `target`, migrates `store` into it, empties it again. */
async function measure(target: Target, store: SeededStore, round: number): Promise<RunRecord> {
  const to = await target.empty();
  try {
    const run = await runMigrate(CLI, store.url, to);
    if (!run.summary.includes(moved(store))) throw new Error(`silo migrate --to ${to} did not report ${moved(store)}: ${run.summary}`);
    return {
      round,
      target: target.name,
      silos: store.silos,
      seconds: run.seconds,
      silosPerSec: store.silos / run.seconds,
      mbPerSec: store.dataBytes / 1e6 / run.seconds,
      peakRssMiB: run.peakRssBytes === undefined ? undefined : mib(run.peakRssBytes),
      summary: run.summary,
    };
  } finally {
    await target.clear();
  }
}

function summarize(target: TargetName, runs: RunRecord[], large: number): TargetSummary {
  const mine = runs.filter((r) => r.target === target);
  const big = mine.filter((r) => r.silos === large);
  const rss = (rs: RunRecord[]) => {
    const values = rs.flatMap((r) => (r.peakRssMiB === undefined ? [] : [r.peakRssMiB]));
    return values.length > 0 ? spread(values) : undefined;
  };
  return {
    target,
    silosPerSec: spread(big.map((r) => r.silosPerSec)),
    mbPerSec: spread(big.map((r) => r.mbPerSec)),
    seconds: spread(big.map((r) => r.seconds)),
    peakRssMiB: rss(big),
    smallPeakRssMiB: rss(mine.filter((r) => r.silos !== large)),
  };
}

export async function runMigrateBenchmarks(options: MigrateBenchOptions = {}): Promise<MigrateResults> {
  const started = performance.now();
  if (!fs.existsSync(path.join(ROOT, 'packages/silo-server/dist/cli.js'))) throw new Error(`packages/silo-server is not built: run npx tsc -b`);
  const quick = options.quick === true;
  const rounds = quick ? 1 : 3;
  const largeSilos = quick ? 2_000 : 10_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-migrate-'));
  let opened: { targets: Target[]; notRun: NotRun[] } | undefined;
  try {
    console.log(`seeding SQLite stores of ${largeSilos} and ${largeSilos / 5} silos (silo import) in ${dir}`);
    const large = await seedStore(CLI, dir, largeSilos);
    const small = await seedStore(CLI, dir, largeSilos / 5);
    console.log(`  ${large.silos} silos, ${large.versions} versions, ${(large.dataBytes / 1e6).toFixed(1)} MB of data, seeded in ${large.seedSeconds.toFixed(1)} s`);
    opened = await openTargets(dir);
    for (const n of opened.notRun) console.log(`  not run: ${n.name}: ${n.reason}`);
    const { targets } = opened;
    const runs: RunRecord[] = [];
    for (let round = 1; round <= rounds; round++) {
      // Rotate who goes first, so that no target always meets the same warm or cold machine.
      const order = targets.map((_, i) => targets[(i + round - 1) % targets.length]!);
      for (const target of order) {
        for (const store of [large, small]) {
          const r = await measure(target, store, round);
          runs.push(r);
          console.log(
            `  round ${round} ${target.name.padEnd(13)} ${String(r.silos).padStart(5)} silos: ${r.seconds.toFixed(2)} s, ${r.silosPerSec.toFixed(0)} silos/s, ${r.mbPerSec.toFixed(1)} MB/s, peak RSS ${r.peakRssMiB?.toFixed(0) ?? '?'} MiB`,
          );
        }
      }
    }
    const results: MigrateResults = {
      date: new Date().toISOString().slice(0, 10),
      machine: machineInfo(),
      node: process.version,
      postgres: targets.some((t) => t.name === 'PostgreSQL') ? await postgresVersion(POSTGRES_URL) : undefined,
      quick,
      rounds,
      siloBytes: SILO_BYTES,
      stores: { large: facts(large), small: facts(small) },
      summary: targets.map((t) => summarize(t.name, runs, large.silos)),
      notRun: opened.notRun,
      runs,
      totalSeconds: (performance.now() - started) / 1000,
    };
    const markdown = renderMarkdown(results);
    console.log(`\n${markdown}`);
    if (options.write !== false) {
      fs.writeFileSync(path.join(RESULTS, 'migrate.json'), `${JSON.stringify(results, null, 2)}\n`);
      fs.writeFileSync(path.join(RESULTS, 'migrate.md'), markdown);
      console.log('written: benchmarks/results/migrate.md and migrate.json');
    }
    return results;
  } finally {
    for (const t of opened?.targets ?? []) await t.dispose().catch((err: unknown) => console.log(`  cleaning up ${t.name}: ${String(err)}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function parseMigrateArgs(flags: readonly string[]): MigrateBenchOptions {
  const o: MigrateBenchOptions = {};
  for (const flag of flags) {
    if (flag === '--quick') o.quick = true;
    else if (flag === '--no-write') o.write = false;
    else throw new Error(`the migrate suite takes --quick and --no-write (got ${flag})`);
  }
  return o;
}

if (isInvokedDirectly(import.meta.url)) {
  try {
    await runMigrateBenchmarks(parseMigrateArgs(process.argv.slice(2)));
  } catch (err) {
    console.error(`\nmigrate benchmark aborted — ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
