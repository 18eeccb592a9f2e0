/**
 * The writes benchmark (issue 9), over real HTTP to `silo serve` processes:
 *
 * 1. Appending one element to a 1 MB array silo by JSON Patch (`add /file_data/-`) against sending
 *    the whole new array by PATCH, on SQLite and Redis (target: the append at least 10× the
 *    requests per second).
 * 2. PATCH and create throughput of this build against an older one (`--before=<dir>`, a built
 *    checkout; default /tmp/oldmain, the commit before versioned storage), on SQLite and Redis
 *    (target: no more than 10% slower). Both servers run side by side and take turns, round by
 *    round, so that both see the same machine; the ratio is reported per round, with its spread.
 *
 *   npm run bench -- writes [--quick] [--no-write] [--before=/tmp/oldmain]
 *
 * Redis databases 2 and 3 of 127.0.0.1:6379 are emptied before and after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@keyv/redis';
import { machineInfo, type MachineInfo } from '../common.js';
import { makeArrayOfSize, makeDocument } from '../http/data.js';
import { runLoad, type RoundResult } from '../http/load.js';
import { startServer, type WriteServer } from './server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = path.join(ROOT, 'benchmarks/results');
const REDIS_DBS = { after: 2, before: 3 } as const;

export interface WritesBenchOptions {
  quick?: boolean;
  write?: boolean;
  /** A built checkout to compare with (its packages/*\/dist must exist). */
  before?: string;
}

type StoreName = 'SQLite' | 'Redis';
const STORES: StoreName[] = ['SQLite', 'Redis'];

interface Spread {
  median: number;
  min: number;
  max: number;
}

interface Comparison {
  store: StoreName;
  scenario: string;
  /** Requests per second of each round, side by side. */
  rounds: { a: number; b: number; ratio: number }[];
  a: Spread;
  b: Spread;
  ratio: Spread;
}

interface WritesResults {
  date: string;
  machine: MachineInfo;
  node: string;
  settings: { rounds: number; durationSec: number; connections: number; before: string };
  append: Comparison[];
  beforeAfter: Comparison[];
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

async function emptyRedisDb(db: number): Promise<void> {
  const client = createClient({ url: `redis://127.0.0.1:6379/${db}`, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHDB']);
  } finally {
    await client.close();
  }
}

async function storeEnv(store: StoreName, which: keyof typeof REDIS_DBS): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (store === 'Redis') {
    const db = REDIS_DBS[which];
    await emptyRedisDb(db);
    return { env: { SILO_STORE_URL: `redis://127.0.0.1:6379/${db}` }, cleanup: () => emptyRedisDb(db) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `silo-bench-writes-${which}-`));
  return { env: { SILO_DATA_DIR: dir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function request(server: WriteServer, method: string, route: string, body: unknown, contentType = 'application/json'): Promise<{ file_uuid: string }> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { 'X-MAN-API': server.manageKey, 'Content-Type': contentType, Host: 'api.localhost' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { file_uuid: string };
}

/** One load round; any answer but 2xx fails the benchmark (a refusal is no throughput). */
async function round(
  server: WriteServer,
  load: { method: string; urls: string[]; body: string; contentType: string },
  settings: { connections: number; durationSec: number },
): Promise<number> {
  const result: RoundResult = await runLoad(
    { url: load.urls.map((u) => `${server.url}${u}`), method: load.method, body: load.body, headers: { 'x-man-api': server.manageKey, 'content-type': load.contentType, host: 'api.localhost' } },
    settings,
  );
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${load.method} ${load.urls[0]}: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`);
  return result.reqPerSec;
}

function compare(store: StoreName, scenario: string, rounds: { a: number; b: number }[]): Comparison {
  const withRatio = rounds.map((r) => ({ ...r, ratio: r.a / r.b }));
  return {
    store,
    scenario,
    rounds: withRatio,
    a: spread(rounds.map((r) => r.a)),
    b: spread(rounds.map((r) => r.b)),
    ratio: spread(withRatio.map((r) => r.ratio)),
  };
}

/** Scenario 1 on one store: append by JSON Patch (a) against replacing the whole array (b). */
async function appendVsReplace(store: StoreName, rounds: number, settings: { connections: number; durationSec: number }): Promise<Comparison> {
  const storage = await storeEnv(store, 'after');
  const server = await startServer(ROOT, storage.env);
  try {
    const base = makeArrayOfSize(1024 * 1024);
    const { file_uuid } = await request(server, 'POST', '/api/v1/manage/', { file_name: 'array-1mb', file_data: base });
    const route = `/api/v1/manage/${file_uuid}`;
    const replaceBody = JSON.stringify({ file_data: base });
    const appendBody = JSON.stringify([{ op: 'add', path: '/file_data/-', value: base[0] }]);
    const results: { a: number; b: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      // Each append round starts from the same 1 MB (the array grows by one item per request).
      await request(server, 'PATCH', route, { file_data: base });
      const a = await round(server, { method: 'PATCH', urls: [route], body: appendBody, contentType: 'application/json-patch+json' }, settings);
      const b = await round(server, { method: 'PATCH', urls: [route], body: replaceBody, contentType: 'application/json' }, settings);
      results.push({ a, b });
      console.log(`  ${store} round ${i + 1}: append ${a.toFixed(0)} req/s, whole array ${b.toFixed(0)} req/s (${(a / b).toFixed(1)}×)`);
    }
    return compare(store, 'append one element to 1 MB', results);
  } finally {
    await server.stop();
    await storage.cleanup();
  }
}

/** Scenario 2 on one store: PATCH (1 KB, one silo per connection) and create, this build (a) against `before` (b). */
async function beforeAfter(store: StoreName, before: string, rounds: number, settings: { connections: number; durationSec: number }): Promise<Comparison[]> {
  const storages = { after: await storeEnv(store, 'after'), before: await storeEnv(store, 'before') };
  const servers = { after: await startServer(ROOT, storages.after.env), before: await startServer(before, storages.before.env) };
  try {
    const doc = makeDocument(1024, 0);
    const patched = JSON.stringify({ file_data: makeDocument(1024, 1) });
    const create = JSON.stringify({ file_name: 'bench', file_data: doc });
    const patchUrls: Record<keyof typeof servers, string[]> = { after: [], before: [] };
    for (const which of ['after', 'before'] as const) {
      for (let c = 0; c < settings.connections; c++) {
        const { file_uuid } = await request(servers[which], 'POST', '/api/v1/manage/', { file_name: `patched-${c}`, file_data: doc });
        patchUrls[which].push(`/api/v1/manage/${file_uuid}`);
      }
    }
    const patchRounds: { a: number; b: number }[] = [];
    const createRounds: { a: number; b: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate who goes first, so that neither always runs on a warmer or cooler machine.
      const order = i % 2 === 0 ? (['after', 'before'] as const) : (['before', 'after'] as const);
      const patch: Record<string, number> = {};
      const made: Record<string, number> = {};
      for (const which of order) {
        patch[which] = await round(servers[which], { method: 'PATCH', urls: patchUrls[which], body: patched, contentType: 'application/json' }, settings);
        made[which] = await round(servers[which], { method: 'POST', urls: ['/api/v1/manage/'], body: create, contentType: 'application/json' }, settings);
      }
      patchRounds.push({ a: patch.after!, b: patch.before! });
      createRounds.push({ a: made.after!, b: made.before! });
      console.log(
        `  ${store} round ${i + 1}: PATCH ${patch.after!.toFixed(0)} vs ${patch.before!.toFixed(0)} req/s, create ${made.after!.toFixed(0)} vs ${made.before!.toFixed(0)} req/s (this build vs before)`,
      );
    }
    return [compare(store, 'PATCH 1 KB', patchRounds), compare(store, 'create 1 KB', createRounds)];
  } finally {
    await servers.after.stop();
    await servers.before.stop();
    await storages.after.cleanup();
    await storages.before.cleanup();
  }
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(0)}%`;

function renderMarkdown(r: WritesResults): string {
  const m = r.machine;
  const lines = [
    '# Writes benchmark',
    '',
    `${r.date}, ${m.cpuModel} (${m.cores} cores), ${m.memoryGiB.toFixed(1)} GiB, Node ${r.node}. ` +
      `${r.settings.rounds} rounds of ${r.settings.durationSec} s per measurement, ${r.settings.connections} connections, over HTTP to \`silo serve\`. ` +
      'Medians, with the lowest and highest round in brackets. Produced by `npm run bench -- writes`.',
    '',
    '## Appending one element to a 1 MB array silo',
    '',
    'JSON Patch `[{"op":"add","path":"/file_data/-","value":…}]` against a PATCH sending the whole new array (target: 10× the requests per second).',
    '',
    '| Store | JSON Patch append (req/s) | Whole array (req/s) | Ratio |',
    '| --- | --- | --- | --- |',
    ...r.append.map((c) => `| ${c.store} | ${c.a.median.toFixed(0)} [${c.a.min.toFixed(0)}–${c.a.max.toFixed(0)}] | ${c.b.median.toFixed(0)} [${c.b.min.toFixed(0)}–${c.b.max.toFixed(0)}] | **${c.ratio.median.toFixed(1)}×** [${c.ratio.min.toFixed(1)}–${c.ratio.max.toFixed(1)}] |`),
    '',
    '## PATCH and create, versioned storage against the build before it',
    '',
    `This build against \`${r.settings.before}\`, side by side in one run, taking turns round by round (target: no more than 10% slower). ` +
      'PATCH replaces a 1 KB document, one silo per connection; create posts a 1 KB document.',
    '',
    '| Store | Scenario | This build (req/s) | Before (req/s) | Change |',
    '| --- | --- | --- | --- | --- |',
    ...r.beforeAfter.map(
      (c) =>
        `| ${c.store} | ${c.scenario} | ${c.a.median.toFixed(0)} [${c.a.min.toFixed(0)}–${c.a.max.toFixed(0)}] | ${c.b.median.toFixed(0)} [${c.b.min.toFixed(0)}–${c.b.max.toFixed(0)}] | **${pct(c.ratio.median)}** [${pct(c.ratio.min)} to ${pct(c.ratio.max)}] |`,
    ),
    '',
  ];
  return lines.join('\n');
}

export async function runWritesBenchmarks(options: WritesBenchOptions = {}): Promise<WritesResults> {
  const before = path.resolve(options.before ?? '/tmp/oldmain');
  const haveBefore = fs.existsSync(path.join(before, 'packages/silo-server/dist/cli.js'));
  if (!haveBefore) {
    console.log(
      `\n!!! ${before} is not a built checkout: the before/after comparison is skipped and no result file is written.\n` +
        `!!! To build it: git worktree add ${before} 012eef4 && (cd ${before} && npm ci)\n`,
    );
  }
  const rounds = options.quick ? 2 : 5;
  const settings = { connections: 8, durationSec: options.quick ? 1 : 3 };
  const append: Comparison[] = [];
  const beforeAfterResults: Comparison[] = [];
  for (const store of STORES) {
    console.log(`append vs whole array, ${store}`);
    append.push(await appendVsReplace(store, rounds, settings));
  }
  for (const store of haveBefore ? STORES : []) {
    console.log(`this build vs ${before}, ${store}`);
    beforeAfterResults.push(...(await beforeAfter(store, before, rounds, settings)));
  }
  const results: WritesResults = {
    date: new Date().toISOString().slice(0, 10),
    machine: machineInfo(),
    node: process.version,
    settings: { rounds, ...settings, before },
    append,
    beforeAfter: beforeAfterResults,
  };
  const markdown = renderMarkdown(results);
  console.log(`\n${markdown}`);
  if (options.write !== false && haveBefore) {
    fs.writeFileSync(path.join(RESULTS, 'writes.json'), `${JSON.stringify(results, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS, 'writes.md'), markdown);
    console.log(`written: benchmarks/results/writes.md and writes.json`);
  }
  return results;
}

export function parseWritesArgs(flags: readonly string[]): WritesBenchOptions {
  const o: WritesBenchOptions = {};
  for (const flag of flags) {
    if (flag === '--quick') o.quick = true;
    else if (flag === '--no-write') o.write = false;
    else if (flag.startsWith('--before=')) o.before = flag.slice('--before='.length);
    else throw new Error(`the writes suite takes --quick, --no-write and --before=<dir> (got ${flag})`);
  }
  return o;
}
