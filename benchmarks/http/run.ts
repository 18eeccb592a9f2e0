/**
 * HTTP benchmarks (issues 5, 11 and 14): Silo on memory, SQLite, Redis, PostgreSQL and Redis Cluster
 * (koa-silo on a bare Koa app), and `silo serve` as shipped on SQLite and Redis, against bare Koa +
 * @koa/router, bare node:http and json-server (0.17 and its 1.0 beta line), each server in its own
 * process, autocannon driven from here.
 *
 *   node --import tsx benchmarks/http/run.ts [--quick] [--rounds=N] [--round-sec=S] [--warmup-sec=S]
 *        [--connections=N] [--stores=memory,sqlite,redis,postgres,cluster,serve-sqlite,serve-redis]
 *        [--only=s1,base] [--no-memory] [--no-write] [--redis-url=redis://127.0.0.1:6379/11]
 *        [--postgres-url=postgres://postgres@127.0.0.1:5432/test] [--silo-module=PATH]
 *   node --import tsx benchmarks/http/run.ts --render-only   # http.md and http.svg again from http.json
 *
 * 1. Start every server; each Silo server seeds its silos and prints their uuids.
 * 2. Validate: one request per scenario, status and body checked. Any mismatch aborts the run.
 * 3. Warm-up: one round per scenario.
 * 4. Measured rounds, interleaved: round 1 of every scenario, then round 2, ... (the order rotates),
 *    so that a busy moment of this shared machine hits many scenarios a little rather than one a
 *    lot. Median req/s, p50 and p99 over the rounds.
 * 5. Memory: per store, a fresh server holding one 10 MB silo, 20 concurrent readers; its peak RSS.
 * 6. benchmarks/results/http.json, http.md and http.svg.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BaselineKind, BaselineReady } from './baselines.js';
import { readCpuMs, readMemory, resetPeak, ROOT, type Child } from './children.js';
import { make10mb, standardData } from './data.js';
import { percentile, runLoad, type RoundResult } from './load.js';
import { renderMarkdown, renderSvg } from './report.js';
import { baselineScenarios, siloScenarios, type Scenario } from './scenarios.js';
import { servePairLine, servePairs } from './serve-compare.js';
import { SILO_KINDS, type SiloKind } from './kinds.js';
import {
  BENCH_SCHEMA,
  DEFAULT_POSTGRES_URL,
  DEFAULT_REDIS_URL,
  displayUrl,
  dropBenchSchema,
  flushRedisDb,
  postgresUnreachable,
  postgresVersion,
  startBaseline,
  startBenchCluster,
  startSilo,
  type SiloStartOptions,
  type SiloTarget,
} from './targets.js';
import type { OwnCluster } from '../../test/support/redis-cluster.js';
import type { HttpBenchResults, MemoryResult, ScenarioResult, TargetResult } from './types.js';
import { isInvokedDirectly, machineInfo, median } from '../common.js';

export interface HttpBenchOptions {
  /** 1 s rounds, 3 rounds, 0.5 s warm-up, a 2 s memory phase: a smoke test. */
  quick?: boolean;
  rounds?: number;
  roundSec?: number;
  warmupSec?: number;
  connections?: number;
  /** The Silo servers: koa-silo in-process per store, and `silo serve` (serve-sqlite, serve-redis). */
  stores?: SiloKind[];
  /** Only scenarios whose id contains one of these strings (baselines are kept for the ratios). */
  only?: string[];
  /** Run the 10 MB memory phase (default true). */
  memory?: boolean;
  /** Write benchmarks/results/http.{json,md,svg} (default true). */
  write?: boolean;
  redisUrl?: string;
  /** The PostgreSQL database; the benchmark works in a schema of its own there (BENCH_SCHEMA). */
  postgresUrl?: string;
  /** Measure another koa-silo build (path of its dist/index.js) instead of packages/koa-silo/dist. */
  siloModule?: string;
  log?: (line: string) => void;
}

const RESULTS_DIR = new URL('../results/', import.meta.url);
const MEMORY_LIMIT_BYTES = 300_000_000;
const ALL_STORES: readonly SiloKind[] = SILO_KINDS;
const BASELINES: BaselineKind[] = ['node', 'koa', 'json-server', 'json-server-1'];

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string | null {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages/koa-silo/src', 'packages/silo-query/src', 'packages/silo-server/src'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} (with uncommitted changes in packages/*/src)` : head;
  } catch {
    return null;
  }
}

/** `redis-server --version`'s number: the build the benchmark's cluster nodes ran, or undefined. */
function redisServerVersion(): string | undefined {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1];
  } catch {
    return undefined;
  }
}

function fmt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a';
}

/** The built packages the server imports must exist (npm run bench builds them first). */
function checkBuilt(): void {
  for (const file of ['packages/koa-silo/dist/index.js', 'packages/silo-server/dist/stores.js', 'packages/silo-query/dist/index.js']) {
    if (!existsSync(`${ROOT}${file}`)) throw new Error(`${file} is missing: build first (npx tsc -b)`);
  }
}

function pooled(chunks: readonly Float64Array[]): Float64Array {
  const all = new Float64Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all.sort();
}

function summarize(
  s: Scenario,
  validation: string,
  warmup: RoundResult | null,
  rounds: RoundResult[],
  latencies: readonly Float64Array[],
): ScenarioResult {
  const rps = rounds.map((r) => r.reqPerSec);
  const all = pooled(latencies);
  const med = median(rps);
  const totals = { responses: 0, errors: 0, timeouts: 0, non2xx: 0, statusCodes: {} as Record<string, number> };
  for (const r of [...(warmup ? [warmup] : []), ...rounds]) {
    totals.responses += r.responses;
    totals.errors += r.errors;
    totals.timeouts += r.timeouts;
    totals.non2xx += r.non2xx;
    for (const [code, count] of Object.entries(r.statusCodes)) totals.statusCodes[code] = (totals.statusCodes[code] ?? 0) + count;
  }
  const problems: string[] = [];
  if (totals.non2xx > 0) problems.push(`${totals.non2xx} non-2xx answers (${JSON.stringify(totals.statusCodes)})`);
  if (totals.errors > 0) problems.push(`${totals.errors} connection errors`);
  if (totals.timeouts > 0) problems.push(`${totals.timeouts} timeouts`);
  return {
    id: s.id,
    group: s.group,
    target: s.target,
    title: s.title,
    shown: s.shown,
    validation,
    warmup,
    rounds,
    median: {
      reqPerSec: med,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      relativeMad: med > 0 ? median(rps.map((v) => Math.abs(v - med))) / med : Number.NaN,
      serverCpuUsPerReq: rounds.every((r) => typeof r.serverCpuUsPerReq === 'number')
        ? median(rounds.map((r) => r.serverCpuUsPerReq!))
        : null,
    },
    totals,
    valid: problems.length === 0 && rounds.length > 0,
    ...(problems.length ? { invalidReason: problems.join('; ') } : {}),
    ratios: { koa: null, node: null, jsonServer: null, jsonServer1: null },
  };
}

function addRatios(results: ScenarioResult[]): void {
  const by = new Map(results.map((r) => [r.id, r]));
  const rate = (id: string) => {
    const r = by.get(id);
    return r && r.valid ? r.median.reqPerSec : null;
  };
  const koa = rate('base-koa');
  const node = rate('base-node');
  const jsDoc = rate('base-json-server-doc');
  const jsFilter = rate('base-json-server-filter');
  const js1Doc = rate('base-json-server1-doc');
  const js1Filter = rate('base-json-server1-filter');
  for (const r of results) {
    const mine = r.valid ? r.median.reqPerSec : null;
    const div = (b: number | null) => (mine === null || b === null ? null : mine / b);
    const jsonServer = r.group === '1' ? div(jsDoc) : r.group === '4' ? div(jsFilter) : null;
    const jsonServer1 = r.group === '1' ? div(js1Doc) : r.group === '4' ? div(js1Filter) : null;
    r.ratios = { koa: div(koa), node: div(node), jsonServer, jsonServer1 };
  }
}

/**
 * The targets. Each compares a scenario with a baseline measured in the same block of every round,
 * a few seconds apart: the decision uses the median of the per-round ratios (paired), which a
 * busy moment of the machine shifts far less than the ratio of two medians taken minutes apart.
 */
function evaluateTargets(results: ScenarioResult[], stores: readonly SiloKind[]): TargetResult[] {
  const by = new Map(results.map((r) => [r.id, r]));
  const targets: TargetResult[] = [];
  const check = (target: string, scenarioId: string, versus: string, required: number) => {
    const r = by.get(scenarioId);
    const b = by.get(versus);
    if (!r) return;
    const valid = r.valid && b !== undefined && b.valid;
    const paired = valid && r.rounds.length === b.rounds.length
      ? median(r.rounds.map((x, i) => x.reqPerSec / b.rounds[i]!.reqPerSec))
      : null;
    const ofMedians = valid ? r.median.reqPerSec / b.median.reqPerSec : null;
    const note = !r.valid
      ? `scenario invalid: ${r.invalidReason ?? 'no rounds'}`
      : !b?.valid
        ? 'baseline not measured or invalid'
        : undefined;
    const mine = r.median.serverCpuUsPerReq;
    const theirs = b?.median.serverCpuUsPerReq ?? null;
    targets.push({
      target,
      scenarioId,
      versus,
      ratio: paired,
      ratioOfMedians: ofMedians,
      required,
      met: paired === null ? (r.valid ? null : false) : paired >= required,
      cpuRatio: mine && theirs ? theirs / mine : null,
      ...(note ? { note } : {}),
    });
  };
  check('scenario 1 on memory ≥ 80% of bare Koa + router', 's1-memory', 'base-koa', 0.8);
  check('scenario 1 on SQLite ≥ 60% of bare Koa + router', 's1-sqlite', 'base-koa', 0.6);
  check('scenario 3 on memory ≥ 70% of bare Koa + router', 's3-memory', 'base-koa', 0.7);
  // Issue 14: the server as shipped, on its default store.
  check('silo serve on SQLite: scenario 1 ≥ 80% of bare Koa + router', 's1-serve-sqlite', 'base-koa', 0.8);
  check('silo serve on SQLite: scenario 3 ≥ 75% of bare Koa + router', 's3-serve-sqlite', 'base-koa', 0.75);
  // Issue 26: the same on Redis, and the search against json-server's 1.0 beta line.
  check('silo serve on Redis: scenario 1 ≥ 80% of bare Koa + router', 's1-serve-redis', 'base-koa', 0.8);
  check('silo serve on Redis: scenario 3 ≥ 75% of bare Koa + router', 's3-serve-redis', 'base-koa', 0.75);
  for (const store of ['serve-sqlite', 'serve-redis'] as const) check(`scenario 4 ≥ 5× json-server 1.0's filter (${store})`, `s4-${store}`, 'base-json-server1-filter', 5);
  // json-server 0.17, the peer of issue 5's targets; its 1.0 beta line is shown beside it (column
  // "vs json-server 1.0β"), as a peer, not a target.
  for (const store of stores) check(`scenario 1 ≥ 2× json-server's 1 KB document (${store})`, `s1-${store}`, 'base-json-server-doc', 2);
  for (const store of stores) check(`scenario 4 ≥ 2× json-server's filter (${store})`, `s4-${store}`, 'base-json-server-filter', 2);
  return targets;
}

/**
 * Blocks of the measuring order: scenarios that a target compares run next to each other in every
 * round (the baseline and its contenders within ~20 s), the rest after them.
 */
const BLOCKS: RegExp[] = [
  /^(base-koa|base-node|base-json-server1?-doc|s1-.*|s3-(memory|sqlite|serve-sqlite|serve-redis))$/,
  /^(base-json-server1?-filter|s4-.*)$/,
];

function blocksOf(scenarios: Scenario[]): Scenario[][] {
  const blocks: Scenario[][] = BLOCKS.map(() => []);
  const rest: Scenario[] = [];
  for (const s of scenarios) {
    const i = BLOCKS.findIndex((re) => re.test(s.id));
    (i >= 0 ? blocks[i]! : rest).push(s);
  }
  return [...blocks, rest].filter((b) => b.length > 0);
}

/** Round `round`'s order: every block in turn, each block's scenarios rotated by the round. */
function roundOrder(blocks: Scenario[][], round: number): Scenario[] {
  return blocks.flatMap((b) => {
    const shift = (round * Math.max(1, Math.floor(b.length / 2) + 1)) % b.length;
    return [...b.slice(shift), ...b.slice(0, shift)];
  });
}

const MEMORY_PHASES = [
  { key: 'public', phase: 'public GET, stored text sent as is', request: 'GET /public/<uuid>' },
  { key: 'query', phase: 'private GET with idx and path (data parsed once, then cached)', request: 'GET /<uuid>?idx=0&path=name' },
] as const;

/** One phase of the memory test on a fresh server (so that one phase's garbage does not count in the next). */
async function memoryPhase(
  store: SiloKind,
  which: (typeof MEMORY_PHASES)[number],
  settings: { connections: number; sec: number },
  storeOptions: SiloStartOptions,
  bigText: string,
  log: (line: string) => void,
): Promise<MemoryResult> {
  const target = await startSilo(store, { ...storeOptions, seed: 'big' });
  try {
    const ready = target.child.ready;
    const base = `http://127.0.0.1:${ready.port}`;
    const uuid = ready.silos.big!;
    const check = await fetch(`${base}/public/${uuid}`);
    const text = await check.text();
    if (check.status !== 200 || text !== bigText) {
      throw new Error(`memory phase (${store}): the 10 MB silo did not read back (status ${check.status}, ${text.length} characters)`);
    }
    const request = which.key === 'public'
      ? { url: `${base}/public/${uuid}` }
      : { url: `${base}/${uuid}?idx=0&path=name`, headers: { 'X-SILO-KEY': ready.keys.access } };
    if (which.key === 'query') {
      const q = await fetch(request.url, { headers: { 'X-SILO-KEY': ready.keys.access } });
      const got = await q.text();
      if (q.status !== 200 || got !== JSON.stringify(make10mbFirstName(bigText))) {
        throw new Error(`memory phase (${store}): the query answered ${q.status} ${got.slice(0, 100)}`);
      }
    }
    const before = readMemory(target.child.pid);
    const reset = resetPeak(target.child.pid);
    const r = await runLoad(request, { connections: settings.connections, durationSec: settings.sec });
    const after = readMemory(target.child.pid);
    const peak = reset && after ? after.hwm : null;
    log(
      `  ${store.padEnd(12)} ${which.request.padEnd(28)} peak RSS ${peak === null ? 'n/a' : `${(peak / 1e6).toFixed(0)} MB`}` +
        ` (before ${before ? (before.rss / 1e6).toFixed(0) : '?'} MB) · ${r.reqPerSec.toFixed(1)} req/s · p99 ${r.latency.p99.toFixed(0)} ms` +
        (r.non2xx || r.errors ? ` · ${r.non2xx} non-2xx, ${r.errors} errors` : ''),
    );
    return {
      store,
      phase: which.phase,
      request: which.request,
      connections: settings.connections,
      durationSec: r.durationSec,
      siloBytes: ready.bytes.big ?? Buffer.byteLength(bigText),
      rssBefore: before?.rss ?? null,
      peakRss: peak,
      reqPerSec: r.reqPerSec,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      limitBytes: MEMORY_LIMIT_BYTES,
      met: peak === null ? null : peak < MEMORY_LIMIT_BYTES && r.non2xx === 0 && r.errors === 0 && r.timeouts === 0,
    };
  } finally {
    await target.dispose();
  }
}

/** The `name` of the first element of the 10 MB array (what `idx=0&path=name` selects). */
function make10mbFirstName(bigText: string): unknown {
  return (JSON.parse(bigText.slice(0, bigText.indexOf('},') + 1) + ']') as Array<{ name: unknown }>)[0]!.name;
}

export async function runHttpBenchmarks(options: HttpBenchOptions = {}): Promise<HttpBenchResults> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = performance.now();
  const loadAverageAtStart = os.loadavg();
  const quick = options.quick ?? false;
  const settings = {
    connections: options.connections ?? 50,
    pipelining: 1 as const,
    rounds: Math.max(3, options.rounds ?? (quick ? 3 : 7)),
    roundSec: options.roundSec ?? (quick ? 1 : 2),
    warmupSec: options.warmupSec ?? (quick ? 0.5 : 2),
    interleaved: true as const,
    memoryConnections: 20,
    memorySec: quick ? 2 : 5,
  };
  const custom = options.rounds !== undefined || options.roundSec !== undefined || options.warmupSec !== undefined ||
    options.connections !== undefined || (options.only?.length ?? 0) > 0 || options.stores !== undefined || options.memory === false ||
    options.siloModule !== undefined;
  const mode: HttpBenchResults['mode'] = quick ? 'quick' : custom ? 'custom' : 'full';
  const redisUrl = options.redisUrl ?? DEFAULT_REDIS_URL;
  const postgresUrl = options.postgresUrl ?? DEFAULT_POSTGRES_URL;
  checkBuilt();

  const notRun: HttpBenchResults['notRun'] = [];
  const loadAverages: number[] = [];
  let stores = options.stores ?? ALL_STORES;
  if ((stores.includes('redis') || stores.includes('serve-redis')) && !(await flushRedisDb(redisUrl))) {
    notRun.push({ what: 'every Redis scenario (in-process and silo serve)', reason: `Redis not reachable at ${redisUrl}` });
    log(`Redis is not reachable at ${redisUrl}: its scenarios are not run.`);
    stores = stores.filter((s) => s !== 'redis' && s !== 'serve-redis');
  }
  if (stores.includes('postgres')) {
    const why = await postgresUnreachable(postgresUrl);
    if (why !== undefined) {
      notRun.push({ what: 'every PostgreSQL scenario', reason: `PostgreSQL not reachable at ${displayUrl(postgresUrl)}: ${why}` });
      log(`PostgreSQL is not reachable at ${displayUrl(postgresUrl)} (${why}): its scenarios are not run.`);
      stores = stores.filter((s) => s !== 'postgres');
    }
  }
  // One cluster for the whole run (starting one takes seconds), flushed before and after each server.
  let cluster: OwnCluster | undefined;
  if (stores.includes('cluster')) {
    const started = await startBenchCluster();
    if ('reason' in started) {
      notRun.push({ what: 'every Redis Cluster scenario', reason: started.reason });
      log(`${started.reason}: the Redis Cluster scenarios are not run.`);
      stores = stores.filter((s) => s !== 'cluster');
    } else {
      cluster = started;
      log(`Redis Cluster of the benchmark's own: masters on ports ${started.ports.join(', ')}`);
    }
  }
  const storeOptions: SiloStartOptions = { redisUrl, postgresUrl, siloModule: options.siloModule, ...(cluster ? { cluster } : {}) };

  const data = standardData();
  const silos: SiloTarget[] = [];
  const baselines = new Map<BaselineKind, Child<BaselineReady>>();
  const results: ScenarioResult[] = [];
  const memory: MemoryResult[] = [];
  try {
    try {
      log(`Starting servers (Silo on ${stores.join(', ')}; ${BASELINES.join(', ')})…`);
      for (const store of stores) {
        const t = await startSilo(store, storeOptions);
        silos.push(t);
        log(
          `  silo-${store.padEnd(12)} pid ${t.child.pid}, port ${t.child.ready.port}, seeded in ${Math.round(t.child.ready.seedMs)} ms` +
            (t.requestLog ? ` (request log: stdout → pipe → ${t.requestLog.path})` : ''),
        );
      }
      for (const kind of BASELINES) {
        const b = await startBaseline(kind);
        baselines.set(kind, b);
        log(`  ${kind.padEnd(13)} pid ${b.pid}, port ${b.ready.port}`);
      }

      let scenarios: Scenario[] = [
        ...baselineScenarios(Object.fromEntries([...baselines].map(([k, b]) => [k, { port: b.ready.port, pid: b.pid }])), data),
        ...silos.flatMap((t) => siloScenarios(t.child.ready, data)),
      ];
      if (options.only?.length) {
        const only = options.only;
        scenarios = scenarios.filter((s) => s.group === 'baseline' || only.some((o) => s.id.includes(o)));
      }

      log('Validation (status and body of one request per scenario):');
      const validations = new Map<string, string>();
      for (const s of scenarios) {
        const what = await s.validate();
        validations.set(s.id, what);
        log(`  ok  ${s.id.padEnd(24)} ${what}`);
      }

      const measure = async (s: Scenario, durationSec: number, sink?: (sorted: Float64Array) => void): Promise<RoundResult> => {
        const cpu0 = readCpuMs(s.pid);
        const r = await runLoad(s.request, { connections: settings.connections, durationSec, ...(sink ? { latencies: sink } : {}) });
        const cpu1 = readCpuMs(s.pid);
        r.serverCpuUsPerReq = cpu0 === undefined || cpu1 === undefined || r.responses === 0 ? null : ((cpu1 - cpu0) * 1000) / r.responses;
        return r;
      };
      const blocks = blocksOf(scenarios);
      log(`Warm-up: ${settings.warmupSec} s per scenario, ${settings.connections} connections`);
      const warmups = new Map<string, RoundResult>();
      for (const s of blocks.flat()) {
        warmups.set(s.id, await measure(s, settings.warmupSec));
        await sleep(200);
      }

      log(
        `Measuring: ${settings.rounds} interleaved rounds × ${settings.roundSec} s per scenario, ${settings.connections} connections, pipelining 1` +
          ` (blocks: ${blocks.map((b) => b.length).join(' + ')} scenarios)`,
      );
      const rounds = new Map<string, RoundResult[]>(scenarios.map((s) => [s.id, []]));
      const latencies = new Map<string, Float64Array[]>(scenarios.map((s) => [s.id, []]));
      for (let round = 0; round < settings.rounds; round++) {
        for (const s of roundOrder(blocks, round)) {
          rounds.get(s.id)!.push(await measure(s, settings.roundSec, (sorted) => latencies.get(s.id)!.push(sorted.slice())));
          await sleep(200);
        }
        loadAverages.push(os.loadavg()[0]!);
        log(`  round ${round + 1}/${settings.rounds} done (load average ${os.loadavg()[0]!.toFixed(2)})`);
      }

      for (const s of scenarios) {
        results.push(summarize(s, validations.get(s.id) ?? '', warmups.get(s.id) ?? null, rounds.get(s.id)!, latencies.get(s.id)!));
      }
      addRatios(results);
      for (const r of results.filter((x) => x.group === '6')) {
        const created = (r.totals.statusCodes['201'] ?? 0) + 1;
        r.note = `${created.toLocaleString('en-US')} silos created in the account during the run (it held ${silos[0]!.child.ready.patchSilos.length + 4} before); req/s by round: ${r.rounds.map((x) => fmt(x.reqPerSec)).join(', ')}`;
      }
      log('Results (median req/s · p50 · p99):');
      for (const r of results) {
        log(
          `  ${r.id.padEnd(24)} ${fmt(r.median.reqPerSec).padStart(7)} req/s · p50 ${r.median.p50.toFixed(2)} ms · p99 ${r.median.p99.toFixed(2)} ms` +
            (r.median.serverCpuUsPerReq !== null ? ` · server CPU ${r.median.serverCpuUsPerReq.toFixed(0)} µs/req` : '') +
            (r.ratios.koa !== null ? ` · ${(r.ratios.koa * 100).toFixed(0)}% of Koa` : '') +
            (r.ratios.jsonServer !== null ? ` · ${r.ratios.jsonServer.toFixed(1)}× json-server` : '') +
            (r.ratios.jsonServer1 != null ? ` · ${r.ratios.jsonServer1.toFixed(1)}× json-server 1.0β` : '') +
            (r.valid ? '' : ` · INVALID: ${r.invalidReason ?? ''}`),
        );
      }
      const pairs = servePairs(results);
      if (pairs.length > 0) {
        log('silo serve against koa-silo in-process on the same store (paired req/s; server CPU added):');
        for (const p of pairs) log(`  ${servePairLine(p)}`);
      }
    } finally {
      for (const t of silos) {
        if (t.requestLog) log(`  silo-${t.store}: request log ${t.requestLog.lines().toLocaleString('en-US')} lines, ${(t.requestLog.bytes() / 1e6).toFixed(1)} MB`);
        await t.dispose().catch((err: unknown) => log(`stopping silo-${t.store}: ${String(err)}`));
      }
      for (const b of baselines.values()) await b.stop().catch(() => undefined);
    }

    if (options.memory ?? true) {
      log(`Memory: a fresh server per store and phase holding one 10 MB silo, ${settings.memoryConnections} concurrent readers for ${settings.memorySec} s`);
      const bigText = JSON.stringify(make10mb());
      for (const store of stores) {
        for (const phase of MEMORY_PHASES) {
          memory.push(
            await memoryPhase(store, phase, { connections: settings.memoryConnections, sec: settings.memorySec }, storeOptions, bigText, log),
          );
        }
      }
    }
  } finally {
    await cluster?.dispose().catch((err: unknown) => log(`stopping the Redis Cluster: ${String(err)}`));
    // Each server drops the schema when it stops; this also covers a run that failed in between.
    if (stores.includes('postgres')) await dropBenchSchema(postgresUrl).catch((err: unknown) => log(`dropping schema ${BENCH_SCHEMA}: ${String(err)}`));
  }

  const targets = evaluateTargets(results, stores);
  for (const m of memory) {
    targets.push({
      target: `20 concurrent reads of a 10 MB silo: peak RSS < 300 MB (${m.store}, ${m.request})`,
      scenarioId: `memory-${m.store}`,
      versus: '300 MB',
      ratio: m.peakRss === null ? null : m.peakRss / 1e6,
      required: 300,
      met: m.met,
      ...(m.peakRss === null ? { note: 'peak RSS not measurable here (/proc/<pid>/clear_refs unavailable)' } : {}),
    });
  }

  const pgServer = stores.includes('postgres') ? await postgresVersion(postgresUrl) : undefined;
  const clusterRedis = stores.includes('cluster') ? redisServerVersion() : undefined;
  const out: HttpBenchResults = {
    schema: 1,
    generatedAt: new Date().toISOString(),
    command: 'node --import tsx benchmarks/http/run.ts' + (quick ? ' --quick' : '') + (options.siloModule ? ` --silo-module=${options.siloModule}` : ''),
    mode,
    machine: {
      ...machineInfo(),
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg(),
      loadAverageByRound: loadAverages,
    },
    node: process.version,
    versions: {
      autocannon: packageVersion('autocannon'),
      'json-server': packageVersion('json-server'),
      // The 1.0 beta line, installed as the npm alias json-server-1 (beta.3: later betas need Node >= 22.12).
      'json-server (1.0 beta line)': packageVersion('json-server-1'),
      koa: packageVersion('koa'),
      '@koa/router': packageVersion('@koa/router'),
      keyv: packageVersion('keyv'),
      '@keyv/redis': packageVersion('@keyv/redis'),
      'better-sqlite3': packageVersion('better-sqlite3'),
      pg: packageVersion('pg'),
      ...(pgServer ? { PostgreSQL: pgServer } : {}),
      ...(clusterRedis ? { 'redis-server (cluster)': clusterRedis } : {}),
    },
    commit: gitCommit(),
    settings,
    scenarios: results,
    targets,
    memory,
    notRun,
    durationSeconds: (performance.now() - started) / 1000,
  };

  log('Targets:');
  for (const t of out.targets) {
    const met = t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED';
    const value = t.ratio === null ? 'n/a' : t.versus === '300 MB' ? `${t.ratio.toFixed(0)} MB` : t.required >= 2 ? `${t.ratio.toFixed(2)}×` : `${(t.ratio * 100).toFixed(0)}%`;
    log(`  ${met.padEnd(12)} ${t.target}: ${value}${t.note ? ` (${t.note})` : ''}`);
  }

  if (options.write ?? true) {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(new URL('http.json', RESULTS_DIR), `${JSON.stringify(out, null, 2)}\n`);
    writeFileSync(new URL('http.md', RESULTS_DIR), renderMarkdown(out));
    writeFileSync(new URL('http.svg', RESULTS_DIR), renderSvg(out));
    log(`Wrote benchmarks/results/http.md, http.json and http.svg (${Math.round(out.durationSeconds)} s).`);
  } else {
    log(`Results not written (--no-write); ${Math.round(out.durationSeconds)} s.`);
  }
  return out;
}

/** Re-renders http.md and http.svg from http.json (after a change to the report, without measuring again). */
export function renderFromJson(log: (line: string) => void = (line) => console.log(line)): void {
  const results = JSON.parse(readFileSync(new URL('http.json', RESULTS_DIR), 'utf8')) as HttpBenchResults;
  writeFileSync(new URL('http.md', RESULTS_DIR), renderMarkdown(results));
  writeFileSync(new URL('http.svg', RESULTS_DIR), renderSvg(results));
  log('Rendered benchmarks/results/http.md and http.svg from http.json.');
}

export function parseHttpArgs(argv: readonly string[]): HttpBenchOptions {
  const o: HttpBenchOptions = {};
  for (const arg of argv) {
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? undefined : arg.slice(eq + 1);
    const num = (): number => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
      return n;
    };
    switch (flag) {
      case '--quick': o.quick = true; break;
      case '--no-write': o.write = false; break;
      case '--no-memory': o.memory = false; break;
      case '--rounds': o.rounds = num(); break;
      case '--round-sec': o.roundSec = num(); break;
      case '--warmup-sec': o.warmupSec = num(); break;
      case '--connections': o.connections = num(); break;
      case '--redis-url': o.redisUrl = value ?? DEFAULT_REDIS_URL; break;
      case '--postgres-url': o.postgresUrl = value ?? DEFAULT_POSTGRES_URL; break;
      case '--silo-module': o.siloModule = value; break;
      case '--only': o.only = (value ?? '').split(',').filter(Boolean); break;
      case '--stores': {
        const list = (value ?? '').split(',').filter(Boolean);
        for (const s of list) if (!ALL_STORES.includes(s as SiloKind)) throw new Error(`--stores: unknown store ${s}`);
        o.stores = list as SiloKind[];
        break;
      }
      default: throw new Error(`unknown argument ${arg}`);
    }
  }
  return o;
}

const invokedDirectly = isInvokedDirectly(import.meta.url);

if (invokedDirectly) {
  try {
    if (process.argv.includes('--render-only')) renderFromJson();
    else await runHttpBenchmarks(parseHttpArgs(process.argv.slice(2)));
  } catch (err) {
    console.error(`\nHTTP benchmarks aborted — ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    process.exitCode = 1;
  }
}

