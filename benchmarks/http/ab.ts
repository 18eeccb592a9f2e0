/**
 * A/B: the working tree's build ("head") against an earlier commit's ("base"), scenario by
 * scenario, in one interleaved run beside bare Koa, so that a change is measured against its
 * predecessor under the same machine load (issue 14: "each measured in the same run").
 *
 *   node --import tsx benchmarks/http/ab.ts --base=HEAD s1-serve-sqlite s5-sqlite
 *        [--rounds=9] [--round-sec=2] [--warmup-sec=2] [--connections=50]
 *
 * The base commit is checked out with `git worktree add --detach` in a temp dir, given a
 * node_modules of links (the repository's dependencies, and its own workspace packages) and the
 * working tree's harness (`benchmarks/`, `test/support/`: both sides are started, seeded and
 * loaded by the same code), and built with `tsc -b` (the console's app is copied from the working
 * tree: no scenario serves it). Each side runs exactly its commit's packages. The worktree is
 * removed at the end.
 *
 * Stores: memory, sqlite, redis, postgres, serve-sqlite, serve-redis. The base's Redis servers use
 * databases 6 (in-process) and 8 (`silo serve`), flushed before and after, beside head's 11 and 4.
 * On PostgreSQL both sides work in the harness's schema (`silo_bench_<pid>`), head in the database
 * `test`, base in a database of its own, `silo_ab`, made for the run and dropped at its end. The
 * cluster is left out (both sides would share the harness's).
 *
 * Per scenario: base, head and Koa run one round each in turn (the order rotates every round);
 * printed are median req/s (± median absolute deviation), server CPU µs per response, p99, and
 * the paired ratio head ÷ base (median over rounds, with its range).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { isInvokedDirectly, median } from '../common.js';
import { readCpuMs, ROOT, type Child } from './children.js';
import { standardData } from './data.js';
import { runLoad, type LoadRequest } from './load.js';
import type { SiloKind } from './kinds.js';
import { baselineScenarios, siloScenarios } from './scenarios.js';
import * as headTargets from './targets.js';

type Targets = typeof headTargets;

const WORKSPACES = ['silo-query', 'koa-silo', 'silo-server', 'silo-console'];
const AB_STORES = new Set<SiloKind>(['memory', 'sqlite', 'redis', 'postgres', 'serve-sqlite', 'serve-redis']);
const BASE_REDIS_URL = 'redis://127.0.0.1:6379/6';
const BASE_SERVE_REDIS_URL = 'redis://127.0.0.1:6379/8';
const BASE_POSTGRES_DATABASE = 'silo_ab';

/** Runs `sql` on the database `test` (to make and drop the base's own database). */
async function onPostgres(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: headTargets.DEFAULT_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface AbOptions {
  base: string;
  scenarios: string[];
  rounds?: number;
  roundSec?: number;
  warmupSec?: number;
  connections?: number;
  log?: (line: string) => void;
}

interface Side {
  name: 'base' | 'head' | 'koa';
  request: LoadRequest;
  pid: number;
  rates: number[];
  cpu: number[];
  p99: number[];
}

/** A checkout of `rev` that runs on its own: linked dependencies, its workspaces, built. */
function prepareBase(rev: string, log: (line: string) => void): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'silo-ab-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  git('worktree', 'add', '--detach', dir, rev);
  const remove = () => {
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git('worktree', 'prune');
    }
  };
  try {
    const modules = path.join(dir, 'node_modules');
    mkdirSync(modules);
    for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
      if (entry.startsWith('.')) continue;
      const target = WORKSPACES.includes(entry) ? path.join(dir, 'packages', entry) : path.join(ROOT, 'node_modules', entry);
      symlinkSync(target, path.join(modules, entry));
    }
    // A workspace's own versions of a dependency (npm nests them when the root holds another version).
    for (const workspace of WORKSPACES) {
      const nested = path.join(ROOT, 'packages', workspace, 'node_modules');
      const link = path.join(dir, 'packages', workspace, 'node_modules');
      if (existsSync(nested) && existsSync(path.dirname(link)) && !existsSync(link)) symlinkSync(nested, link);
    }
    for (const harness of ['benchmarks', 'test/support']) {
      rmSync(path.join(dir, harness), { recursive: true, force: true });
      cpSync(path.join(ROOT, harness), path.join(dir, harness), { recursive: true });
    }
    const consoleDist = path.join(ROOT, 'packages/silo-console/dist');
    if (existsSync(consoleDist)) cpSync(consoleDist, path.join(dir, 'packages/silo-console/dist'), { recursive: true });
    log(`base ${git('rev-parse', '--short', rev)}: building in ${dir}`);
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: dir, stdio: 'inherit' });
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

const mad = (xs: number[]) => {
  const m = median(xs);
  return median(xs.map((x) => Math.abs(x - m)));
};

async function round(side: Side, connections: number, durationSec: number, record: boolean): Promise<number> {
  const cpuBefore = readCpuMs(side.pid);
  const r = await runLoad(side.request, { connections, durationSec });
  const cpuAfter = readCpuMs(side.pid);
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${side.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  if (record) {
    side.rates.push(r.reqPerSec);
    side.p99.push(r.latency.p99);
    if (cpuBefore !== undefined && cpuAfter !== undefined) side.cpu.push(((cpuAfter - cpuBefore) * 1000) / r.responses);
  }
  return r.reqPerSec;
}

export async function runAb(options: AbOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const rounds = options.rounds ?? 9;
  const roundSec = options.roundSec ?? 2;
  const connections = options.connections ?? 50;
  for (const id of options.scenarios) {
    const kind = /^s(?:1|2|3|4|5|5b|5br|6)-(.+)$/.exec(id)?.[1];
    if (!kind || !AB_STORES.has(kind as SiloKind)) throw new Error(`${id}: A/B runs scenarios s1..s6 on ${[...AB_STORES].join(', ')}`);
  }
  const base = prepareBase(options.base, log);
  const baseTargets = (await import(pathToFileURL(path.join(base.dir, 'benchmarks/http/targets.ts')).href)) as Targets;
  const onPg = options.scenarios.some((id) => id.endsWith('-postgres'));
  if (onPg) {
    await onPostgres(`DROP DATABASE IF EXISTS ${BASE_POSTGRES_DATABASE}`);
    await onPostgres(`CREATE DATABASE ${BASE_POSTGRES_DATABASE}`);
  }
  const data = standardData();
  const koa = await headTargets.startBaseline('koa');
  try {
    const koaRequest = baselineScenarios({ koa: { port: koa.ready.port, pid: koa.pid } }, data).find((s) => s.id === 'base-koa')!.request;
    for (const id of options.scenarios) {
      const kind = /^s(?:1|2|3|4|5|5b|5br|6)-(.+)$/.exec(id)![1] as SiloKind;
      const servers: { dispose(): Promise<void>; child: Child<import('./server.js').ReadyLine> }[] = [];
      try {
        type Urls = { redisUrl: string; serveRedisUrl: string; postgresUrl: string };
        const sideOf = async (name: 'base' | 'head', targets: Targets, urls: Urls): Promise<Side> => {
          const target = await targets.startSilo(kind, urls);
          servers.push(target);
          const scenario = siloScenarios(target.child.ready, data).find((s) => s.id === id)!;
          await scenario.validate();
          return { name, request: scenario.request, pid: target.child.pid, rates: [], cpu: [], p99: [] };
        };
        const sides = [
          await sideOf('base', baseTargets, {
            redisUrl: BASE_REDIS_URL,
            serveRedisUrl: BASE_SERVE_REDIS_URL,
            postgresUrl: headTargets.DEFAULT_POSTGRES_URL.replace(/\/test$/, `/${BASE_POSTGRES_DATABASE}`),
          }),
          await sideOf('head', headTargets, {
            redisUrl: headTargets.DEFAULT_REDIS_URL,
            serveRedisUrl: headTargets.DEFAULT_SERVE_REDIS_URL,
            postgresUrl: headTargets.DEFAULT_POSTGRES_URL,
          }),
          { name: 'koa' as const, request: koaRequest, pid: koa.pid, rates: [], cpu: [], p99: [] },
        ];
        for (const side of sides) await round(side, connections, options.warmupSec ?? 2, false);
        const paired: number[] = [];
        for (let r = 0; r < rounds; r++) {
          const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
          const rate = new Map<string, number>();
          for (const side of order) rate.set(side.name, await round(side, connections, roundSec, true));
          paired.push(rate.get('head')! / rate.get('base')!);
        }
        log(`\n${id} (${rounds} rounds of ${roundSec} s, ${connections} connections)`);
        for (const side of sides) {
          const m = median(side.rates);
          log(
            `  ${side.name.padEnd(5)} ${Math.round(m).toString().padStart(7)} req/s ±${((mad(side.rates) / m) * 100).toFixed(1)}%` +
              `  CPU ${median(side.cpu).toFixed(0).padStart(4)} µs/req  p99 ${median(side.p99).toFixed(1)} ms` +
              (side.name === 'koa' ? '' : `  ${((m / median(sides[2]!.rates)) * 100).toFixed(0)}% of Koa`),
          );
        }
        const sorted = [...paired].sort((a, b) => a - b);
        log(`  head ÷ base, paired: ${median(paired).toFixed(2)}× (rounds ${sorted[0]!.toFixed(2)} to ${sorted.at(-1)!.toFixed(2)})`);
      } finally {
        for (const server of servers) await server.dispose();
      }
    }
  } finally {
    await koa.stop();
    base.remove();
    if (onPg) await onPostgres(`DROP DATABASE IF EXISTS ${BASE_POSTGRES_DATABASE}`);
  }
}

if (isInvokedDirectly(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const scenarios = args.filter((a) => !a.startsWith('--'));
  const baseRev = opt('base');
  if (!baseRev || scenarios.length === 0) {
    console.error('usage: node --import tsx benchmarks/http/ab.ts --base=REV <scenario id>... [--rounds=9] [--round-sec=2] [--warmup-sec=2] [--connections=50]');
    process.exitCode = 2;
  } else {
    const num = (name: string) => (opt(name) !== undefined ? Number(opt(name)) : undefined);
    try {
      await runAb({ base: baseRev, scenarios, rounds: num('rounds'), roundSec: num('round-sec'), warmupSec: num('warmup-sec'), connections: num('connections') });
    } catch (err) {
      console.error(`A/B aborted — ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    }
  }
}
