/**
 * Profile one scenario: its server runs under `node --cpu-prof` (profiles go to a temp dir, never
 * into the repository), the scenario is validated, warmed up and loaded, the server is stopped
 * (so V8 writes the profile), then the samples taken while the load ran are summarised: self time
 * by function, time by module, and inclusive time of koa-silo's functions.
 *
 *   node --import tsx benchmarks/http/profile.ts <scenario id> [--sec=10] [--connections=50]
 *        [--dir=/tmp/...] [--top=30] [--silo-module=PATH of another koa-silo build's dist/index.js]
 *
 * Scenario ids are those of the results (s1-memory, s3-sqlite, s6-redis, s4-postgres, s1-serve-sqlite,
 * base-koa, base-json-server-filter, base-json-server1-doc, ...; silo serve runs as
 * `node --cpu-prof ... packages/silo-server/bin/silo.js serve`), plus mem-<store>-public and
 * mem-<store>-query: the 10 MB silo read by 20 connections.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BaselineKind } from './baselines.js';
import { ROOT, type Child } from './children.js';
import { standardData } from './data.js';
import { runLoad, type LoadRequest } from './load.js';
import { baselineScenarios, siloScenarios } from './scenarios.js';
import type { SiloKind } from './kinds.js';
import { startBaseline, startBenchCluster, startSilo, type SiloTarget } from './targets.js';
import type { OwnCluster } from '../../test/support/redis-cluster.js';
import { isInvokedDirectly } from '../common.js';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  windowMs: number;
  samples: number;
  /** Share of the window's samples, by bucket. */
  buckets: Array<{ bucket: string; share: number }>;
  self: Array<{ fn: string; share: number }>;
  inclusive: Array<{ fn: string; share: number }>;
}

function bucketOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return '(program: native, outside JS)';
    return `(native) ${functionName}`;
  }
  if (url.startsWith('node:')) return 'node internals';
  const rel = url.replace(/^file:\/\//, '').replace(ROOT, '');
  const pkg = /^packages\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(rel);
  if (pkg) return `${pkg[1]}/${pkg[2]}`;
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(rel);
  if (mod) return mod[1]!;
  return rel;
}

function frameName(node: CpuProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${bucketOf(url, functionName)}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

/** Summarises the samples of `file` taken between `fromUs` and `toUs` (monotonic µs, as process.hrtime). */
export function summarizeProfile(file: string, fromUs: number, toUs: number, top = 30): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const buckets = new Map<string, number>();
  let t = profile.startTime;
  let counted = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    counted++;
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + 1);
    const bucket = bucketOf(node.callFrame.url, node.callFrame.functionName);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const key = frameName(n);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
    }
  }
  const sorted = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => ({ k, share: counted ? v / counted : 0 }));
  return {
    file,
    windowMs: (toUs - fromUs) / 1000,
    samples: counted,
    buckets: sorted(buckets, 40).map(({ k, share }) => ({ bucket: k, share })),
    self: sorted(self, top).map(({ k, share }) => ({ fn: k, share })),
    inclusive: sorted(
      new Map([...inclusive].filter(([k]) => /koa-silo\/|silo-query\/|silo-server\/|keyv|better-sqlite3|@redis|\/pg(-[a-z]+)?\/|koa\b/.test(k))),
      top,
    ).map(({ k, share }) => ({ fn: k, share })),
  };
}

/**
 * The main thread's profile of process `pid`: `CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile` (tsx's
 * module hooks run on another thread, which writes its own file with thread id 1).
 */
function mainThreadProfile(dir: string, pid: number): string {
  const files = readdirSync(dir)
    .filter((f) => new RegExp(`\\.${pid}\\.0\\.\\d+\\.cpuprofile$`).test(f))
    .map((f) => path.join(dir, f));
  if (files.length === 0) throw new Error(`no main-thread .cpuprofile of process ${pid} in ${dir}`);
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
}

export async function profileScenario(
  id: string,
  options: { sec?: number; connections?: number; dir?: string; top?: number; siloModule?: string; log?: (line: string) => void } = {},
): Promise<ProfileSummary> {
  const log = options.log ?? ((line: string) => console.log(line));
  // Absolute: the json-server 1.0 baseline changes its working directory (baselines.ts).
  const dir = path.resolve(options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'silo-cpuprof-')));
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const data = standardData();
  let silo: SiloTarget | undefined;
  let baseline: Child<{ ready: true; pid: number; port: number }> | undefined;
  let request: LoadRequest;
  let connections = options.connections ?? 50;
  let cluster: OwnCluster | undefined;
  /** A cluster of the profile's own when the scenario runs on one. */
  const clusterFor = async (store: string | undefined): Promise<{ cluster?: OwnCluster }> => {
    if (store !== 'cluster') return {};
    const started = await startBenchCluster();
    if ('reason' in started) throw new Error(started.reason);
    cluster = started;
    return { cluster };
  };
  try {
    const mem = /^mem-(memory|sqlite|redis|postgres|cluster|serve-sqlite|serve-redis)-(public|query)$/.exec(id);
    const siloId = /^s(?:1|2|3|4|5|5b|5br|6)-(memory|sqlite|redis|postgres|cluster|serve-sqlite|serve-redis)$/.exec(id);
    if (mem) {
      silo = await startSilo(mem[1] as SiloKind, { seed: 'big', nodeArgs, siloModule: options.siloModule, ...(await clusterFor(mem[1])) });
      const r = silo.child.ready;
      const base = `http://127.0.0.1:${r.port}`;
      request = mem[2] === 'public'
        ? { url: `${base}/public/${r.silos.big}` }
        : { url: `${base}/${r.silos.big}?idx=0&path=name`, headers: { 'X-SILO-KEY': r.keys.access } };
      connections = options.connections ?? 20;
    } else if (siloId) {
      silo = await startSilo(siloId[1] as SiloKind, { nodeArgs, siloModule: options.siloModule, ...(await clusterFor(siloId[1])) });
      const scenario = siloScenarios(silo.child.ready, data).find((s) => s.id === id);
      if (!scenario) throw new Error(`no scenario ${id}`);
      log(`validate: ${await scenario.validate()}`);
      request = scenario.request;
    } else if (id.startsWith('base-')) {
      const kind: BaselineKind =
        id === 'base-koa' ? 'koa' : id === 'base-node' ? 'node' : id.startsWith('base-json-server1-') ? 'json-server-1' : 'json-server';
      baseline = await startBaseline(kind, { nodeArgs });
      const scenario = baselineScenarios({ [kind]: { port: baseline.ready.port, pid: baseline.pid } }, data).find((s) => s.id === id);
      if (!scenario) throw new Error(`no scenario ${id}`);
      log(`validate: ${await scenario.validate()}`);
      request = scenario.request;
    } else {
      throw new Error(`unknown scenario ${id}`);
    }
    await runLoad(request, { connections, durationSec: 2 });
    const from = Number(process.hrtime.bigint() / 1000n);
    const r = await runLoad(request, { connections, durationSec: options.sec ?? 10 });
    const to = Number(process.hrtime.bigint() / 1000n);
    log(`${id}: ${Math.round(r.reqPerSec)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    const pid = (silo?.child ?? baseline)!.pid;
    if (silo) await silo.dispose();
    if (baseline) await baseline.stop();
    silo = undefined;
    baseline = undefined;
    const summary = summarizeProfile(mainThreadProfile(dir, pid), from, to, options.top ?? 30);
    const p = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`;
    log(`profile: ${summary.file} (${summary.samples} samples in the ${Math.round(summary.windowMs)} ms load window)`);
    log('by module (self time):');
    for (const b of summary.buckets.slice(0, 20)) log(`  ${p(b.share)}  ${b.bucket}`);
    log('top functions (self time):');
    for (const f of summary.self) log(`  ${p(f.share)}  ${f.fn}`);
    log('inclusive time (Silo, stores, Koa):');
    for (const f of summary.inclusive) log(`  ${p(f.share)}  ${f.fn}`);
    return summary;
  } finally {
    if (silo) await silo.dispose();
    if (baseline) await baseline.stop();
    await cluster?.dispose();
  }
}

const invokedDirectly = isInvokedDirectly(import.meta.url);

if (invokedDirectly) {
  const args = process.argv.slice(2);
  const id = args.find((a) => !a.startsWith('--'));
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  if (!id) {
    console.error('usage: node --import tsx benchmarks/http/profile.ts <scenario id> [--sec=10] [--connections=50] [--dir=DIR] [--top=30]');
    process.exitCode = 2;
  } else {
    try {
      await profileScenario(id, {
        ...(opt('sec') ? { sec: Number(opt('sec')) } : {}),
        ...(opt('connections') ? { connections: Number(opt('connections')) } : {}),
        ...(opt('dir') ? { dir: opt('dir')! } : {}),
        ...(opt('top') ? { top: Number(opt('top')) } : {}),
        ...(opt('silo-module') ? { siloModule: opt('silo-module')! } : {}),
      });
    } catch (err) {
      console.error(`profile aborted — ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    }
  }
}
