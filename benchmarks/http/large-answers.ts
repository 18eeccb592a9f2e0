/**
 * Large answers of `silo serve` on SQLite (as shipped: `packages/silo-server/bin/silo.js serve`,
 * a temp data dir, started by serve.ts through targets.ts):
 *
 * 1. Public reads (`GET /public/<uuid>`) of a 1 MB and a 5.8 MB array silo with
 *    `Accept-Encoding: identity`, `gzip` and `br`: the body's size on the wire and its ratio to
 *    the stored text; the first request of a fresh silo (cold: nothing of it cached, the
 *    compression included; on a connection of its own), then req/s under load (warm: the encoded
 *    body and its compressed form are cached per version, koa-silo http/compression.ts).
 * 2. Appending one element to a 5 MB array silo by JSON Patch (`PATCH /api/v1/manage/<uuid>`,
 *    `application/json-patch+json`, `[{"op":"add","path":"/file_data/-","value":{…}}]`, no
 *    If-Match: `silo serve` does not require it, and concurrent appends apply one after another),
 *    with the whole answer (the silo's 5 MB `file_data` in it), the same with `Accept-Encoding:
 *    gzip, deflate, br` as a browser sends it (compressed anew for every answer), and with
 *    `Prefer: return=minimal` (RFC 7240: metadata and version only, `Preference-Applied`).
 * 3. Scenario 4's search over the 10 000 items (`?q=category&value=c7&op=eq`, 511 matches),
 *    against json-server 1.0 beta's filter over the same items (`/items?category=c7`, started as
 *    baselines.ts starts it). `silo serve` keeps a query's answer per silo version and query
 *    string: "cached" repeats one query string; "uncached" adds a cache-buster `_=<id>`, fresh on
 *    every request (silo-query ignores parameters it does not know, so the answer is the same,
 *    but the cache key is not), so every request runs the search.
 *
 * Every load scenario is checked by one request first (status, headers, body). Then the measured
 * rounds are interleaved over all of them (the order rotates round by round), 8 connections,
 * autocannon. Per scenario: median req/s with its min–max over the rounds, p50 and p99 (medians of
 * the rounds'), and the server's CPU per request from /proc (all its threads: zlib's pool and the
 * query workers included), taken after the server has gone idle and divided by the requests sent
 * (a write still in flight when a round stops is finished by the server all the same). autocannon
 * counts the bodies without keeping them (load.ts `discardBodies`): its string of each body cost
 * it ~3 ms of CPU per 170 KB compressed answer, and made it the limit of the compressed reads.
 *
 *   node --import tsx benchmarks/http/large-answers.ts [--quick] [--no-write]
 *   npm run bench -- http [--quick] [--no-write]     # after the rest of the http suite
 *
 * ~2.8 minutes (--quick: ~55 s). Writes benchmarks/results/large-answers.md and large-answers.json.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import zlib from 'node:zlib';
import { isInvokedDirectly, machineInfo, median, type MachineInfo } from '../common.js';
import type { BaselineReady } from './baselines.js';
import { readCpuMs, ROOT, type Child } from './children.js';
import { makeArrayOfSize, makeItems, SEARCH_CATEGORY, standardData, type Item } from './data.js';
import { runLoad, type LoadRequest, type RoundResult } from './load.js';
import { createSilo } from './seed-http.js';
import { startBaseline, startSilo, type SiloTarget } from './targets.js';

export interface LargeAnswersOptions {
  /** 3 rounds of 1 s, no warm-up, one cold sample per silo and coding: a smoke test (~55 s). */
  quick?: boolean;
  /** Write benchmarks/results/large-answers.{md,json} (default true). */
  write?: boolean;
  log?: (line: string) => void;
}

const RESULTS_DIR = new URL('../results/', import.meta.url);
const CONNECTIONS = 8;
const CODINGS = ['identity', 'gzip', 'br'] as const;
type Coding = (typeof CODINGS)[number];
const SEARCH = `q=category&value=${SEARCH_CATEGORY}&op=eq`;
/** What a browser's fetch sends: the server picks br. */
const BROWSER_CODINGS = 'gzip, deflate, br';
type AppendVariant = 'full' | 'fullBr' | 'minimal';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** One measured round of one scenario. */
export interface Round {
  reqPerSec: number;
  responses: number;
  sent: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system, all threads) per request sent, µs; null without /proc. */
  cpuUsPerReq: number | null;
  /** Response bytes (status line, headers, body) per response, as autocannon counted them. */
  bytesPerResponse: number;
  /** CPU of this process per response, µs: autocannon, and the draining of silo serve's request log into its file. */
  clientCpuUsPerReq: number;
  problems: number;
}

export interface LoadSummary {
  id: string;
  title: string;
  /** The request as the table shows it. */
  shown: string;
  /** What the check before the load found. */
  checked: string;
  rounds: Round[];
  reqPerSec: Spread;
  cpuUsPerReq: Spread | null;
  /** Medians of the rounds' p50 and p99, ms. */
  p50: number;
  p99: number;
  bytesPerResponse: number;
  /** Median of the rounds' load-generator CPU per response, µs. */
  clientCpuUsPerReq: number;
  /** Non-2xx answers, connection errors and timeouts over all rounds (0 for a valid result). */
  problems: number;
}

export interface ReadResult {
  silo: string;
  coding: Coding;
  /** Content-Encoding of the answer ('' for none). */
  contentEncoding: string;
  storedBytes: number;
  bodyBytes: number;
  /** bodyBytes ÷ storedBytes. */
  ratio: number;
  /** First request of a fresh silo, ms, and the one right after it (warm, alone). */
  coldMs: Spread;
  warmMs: Spread;
  load: LoadSummary;
  /** Paired per round: this coding's req/s ÷ identity's for the same silo. */
  vsIdentity: Spread | null;
}

export interface LargeAnswersResults {
  schema: 1;
  generatedAt: string;
  command: string;
  mode: 'quick' | 'full';
  machine: MachineInfo & { loadAverageAtStart: number[]; loadAverageAtEnd: number[]; loadAverageByRound: number[] };
  node: string;
  commit: string | null;
  settings: { connections: number; rounds: number; roundSec: number; warmupSec: number; coldSamples: number };
  reads: ReadResult[];
  append: {
    siloBytes: number;
    elements: number;
    /** The answer's bytes as sent (fullBr: brotli-compressed). */
    answerBytes: Record<AppendVariant, number>;
    /** The whole answer; the same with `Accept-Encoding: gzip, deflate, br` (a browser's); `Prefer: return=minimal`. */
    full: LoadSummary;
    fullBr: LoadSummary;
    minimal: LoadSummary;
    /** Paired per round: minimal req/s ÷ the whole answer's, and the whole answer's CPU/req ÷ minimal's. */
    rateRatio: Spread;
    cpuRatio: Spread | null;
    rateRatioBr: Spread;
    cpuRatioBr: Spread | null;
  };
  search: {
    matches: number;
    cached: LoadSummary;
    uncached: LoadSummary;
    jsonServer1: LoadSummary;
    /** Paired per round: silo serve's req/s ÷ json-server 1.0's. */
    cachedVsJsonServer1: Spread;
    uncachedVsJsonServer1: Spread;
  };
  /** Anything the checks found that looks wrong (empty when all is as the contract says). */
  findings: string[];
  durationSeconds: number;
}

/** One raw HTTP exchange on a connection of its own: status, headers, the body's bytes as sent, time to its last byte. */
interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

function exchange(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

function decoded(got: Exchange): Buffer {
  const coding = got.headers['content-encoding'];
  if (coding === 'br') return zlib.brotliDecompressSync(got.body);
  if (coding === 'gzip') return zlib.gunzipSync(got.body);
  return got.body;
}

function expectStatus(what: string, got: Exchange, status: number): void {
  if (got.status !== status) throw new Error(`${what}: expected status ${status}, got ${got.status}: ${got.body.toString('utf8', 0, 300)}`);
}

/** Waits until the process's CPU time stops moving (at most `maxMs`): its work of the round is done. */
async function settle(pid: number, maxMs = 3000): Promise<void> {
  const until = performance.now() + maxMs;
  let last = readCpuMs(pid);
  while (performance.now() < until) {
    await sleep(100);
    const now = readCpuMs(pid);
    if (now === undefined || now === last) return;
    last = now;
  }
}

interface LoadScenario {
  id: string;
  title: string;
  shown: string;
  pid: number;
  request: LoadRequest;
  /** One request like the load's, checked; resolves with what it found. */
  check(): Promise<string>;
}

async function measure(s: LoadScenario, durationSec: number): Promise<Round> {
  await settle(s.pid);
  const cpu0 = readCpuMs(s.pid);
  const client0 = process.cpuUsage();
  // The bodies are counted, not kept: autocannon's string of each body would be the limit (load.ts).
  const r: RoundResult = await runLoad(s.request, { connections: CONNECTIONS, durationSec, discardBodies: true });
  const client = process.cpuUsage(client0);
  await settle(s.pid);
  const cpu1 = readCpuMs(s.pid);
  return {
    reqPerSec: r.reqPerSec,
    responses: r.responses,
    sent: r.sent,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUsPerReq: cpu0 === undefined || cpu1 === undefined || r.sent === 0 ? null : ((cpu1 - cpu0) * 1000) / r.sent,
    bytesPerResponse: r.responses > 0 ? (r.bytesPerSec * r.durationSec) / r.responses : Number.NaN,
    clientCpuUsPerReq: r.responses > 0 ? (client.user + client.system) / r.responses : Number.NaN,
    problems: r.non2xx + r.errors + r.timeouts,
  };
}

function summarize(s: LoadScenario, checked: string, rounds: Round[]): LoadSummary {
  const cpu = rounds.map((r) => r.cpuUsPerReq);
  return {
    id: s.id,
    title: s.title,
    shown: s.shown,
    checked,
    rounds,
    reqPerSec: spread(rounds.map((r) => r.reqPerSec)),
    cpuUsPerReq: cpu.every((c): c is number => c !== null) ? spread(cpu) : null,
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    bytesPerResponse: median(rounds.map((r) => r.bytesPerResponse)),
    clientCpuUsPerReq: median(rounds.map((r) => r.clientCpuUsPerReq)),
    problems: rounds.reduce((n, r) => n + r.problems, 0),
  };
}

/** Paired per round: a's req/s ÷ b's. */
function pairedRate(a: LoadSummary, b: LoadSummary): Spread {
  return spread(a.rounds.map((r, i) => r.reqPerSec / b.rounds[i]!.reqPerSec));
}

/** Paired per round: a's CPU per request ÷ b's (null without /proc). */
function pairedCpu(a: LoadSummary, b: LoadSummary): Spread | null {
  const pairs = a.rounds.map((r, i) => (r.cpuUsPerReq !== null && b.rounds[i]!.cpuUsPerReq !== null ? r.cpuUsPerReq / b.rounds[i]!.cpuUsPerReq! : null));
  return pairs.every((c): c is number => c !== null) ? spread(pairs) : null;
}

/** The commit measured (read-only git), and whether the packages' sources differ from it. */
function gitCommit(): string | null {
  try {
    const head = execFileSync('git', ['log', '-1', '--format=%h'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['diff', '--name-only', 'HEAD', '--', 'packages/koa-silo/src', 'packages/silo-query/src', 'packages/silo-server/src'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return changed ? `${head} (with uncommitted changes in packages/*/src)` : head;
  } catch {
    return null;
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 2)} MB`;
const kb = (bytes: number) => (bytes >= 1e6 ? mb(bytes) : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${Math.round(bytes)} B`);
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const range = (s: Spread, f: (n: number) => string) => `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
const times = (s: Spread) => `${s.median.toFixed(2)}× [${s.min.toFixed(2)}–${s.max.toFixed(2)}]`;
const cpuText = (s: Spread | null) => (s ? range(s, int) : 'n/a');

export async function runLargeAnswers(options: LargeAnswersOptions = {}): Promise<LargeAnswersResults> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = performance.now();
  const loadAverageAtStart = os.loadavg();
  const quick = options.quick ?? false;
  const settings = {
    connections: CONNECTIONS,
    rounds: quick ? 3 : 5,
    // autocannon's durations are whole seconds.
    roundSec: quick ? 1 : 2,
    // Quick: no warm-up beyond the checks (which fill the caches); the JIT warms in round 1.
    warmupSec: quick ? 0 : 1,
    coldSamples: quick ? 1 : 3,
  };
  const findings: string[] = [];
  const loadAverages: number[] = [];

  const data = standardData();
  const sizes = [
    { id: '1mb', label: '1 MB', items: data.array1m },
    { id: '5.8mb', label: '5.8 MB', items: makeArrayOfSize(5_800_000, 0x58) },
  ];
  const texts = new Map(sizes.map((s) => [s.id, Buffer.from(JSON.stringify(s.items))]));
  const appendBase = makeArrayOfSize(5_000_000, 0xadd);
  const appended: Item = makeItems(1, 0xadd1)[0]!;
  const appendBody = JSON.stringify([{ op: 'add', path: '/file_data/-', value: appended }]);
  const matches = data.items10k.filter((i) => i.category === SEARCH_CATEGORY);
  const matchesStringIds = matches.map((i) => ({ ...i, id: String(i.id) }));

  let silo: SiloTarget | undefined;
  let jsonServer1: Child<BaselineReady> | undefined;
  try {
    log(`Large answers: silo serve on SQLite, ${CONNECTIONS} connections, ${settings.rounds} interleaved rounds of ${settings.roundSec} s` + (quick ? ' (quick)' : ''));
    silo = await startSilo('serve-sqlite', { patchSilos: 0 });
    const ready = silo.child.ready;
    const pid = silo.child.pid;
    const base = `http://127.0.0.1:${ready.port}`;
    const manage = ready.keys.manage;
    log(`  silo serve pid ${pid}, port ${ready.port}, standard seed in ${Math.round(ready.seedMs)} ms`);
    const t0 = performance.now();
    const readSilos = new Map<string, string>([['1mb', ready.silos.large!]]);
    readSilos.set('5.8mb', await createSilo(base, manage, 'large-5.8mb', sizes[1]!.items, true));
    const appendUuid = await createSilo(base, manage, 'append-5mb', appendBase, false);
    log(`  5.8 MB public and 5 MB private silos made in ${Math.round(performance.now() - t0)} ms`);
    jsonServer1 = await startBaseline('json-server-1');
    log(`  json-server 1.0 beta pid ${jsonServer1.pid}, port ${jsonServer1.ready.port}`);

    // --- 1. Cold reads: a fresh silo per size, coding and sample, read twice, then deleted. ---
    const at = () => `${Math.round((performance.now() - started) / 1000)} s`;
    log(`Cold reads: ${settings.coldSamples} fresh silo(s) per size and coding`);
    const cold = new Map<string, { first: number[]; second: number[]; bytes: number; encoding: string }>();
    for (let sample = 0; sample < settings.coldSamples; sample++) {
      for (const size of sizes) {
        for (const coding of CODINGS) {
          const uuid = await createSilo(base, manage, `cold-${size.id}-${coding}-${sample}`, size.items, true);
          await settle(pid);
          const url = `${base}/public/${uuid}`;
          const headers = { 'Accept-Encoding': coding };
          const first = await exchange(url, { headers });
          const second = await exchange(url, { headers });
          for (const [which, got] of [['first', first], ['second', second]] as const) {
            const what = `cold read of ${size.label} (${coding}, ${which} request)`;
            expectStatus(what, got, 200);
            if (!decoded(got).equals(texts.get(size.id)!)) throw new Error(`${what}: the body is not the stored text`);
          }
          const key = `${size.id} ${coding}`;
          const entry = cold.get(key) ?? { first: [], second: [], bytes: first.body.length, encoding: String(first.headers['content-encoding'] ?? '') };
          entry.first.push(first.ms);
          entry.second.push(second.ms);
          cold.set(key, entry);
          const gone = await fetch(`${base}/api/v1/manage/${uuid}`, { method: 'DELETE', headers: { 'X-MAN-API': manage } });
          await gone.arrayBuffer();
          if (gone.status !== 200) throw new Error(`deleting cold silo ${uuid}: ${gone.status}`);
        }
      }
    }
    for (const [key, c] of cold) log(`  ${key.padEnd(15)} ${kb(c.bytes).padStart(9)}  first ${ms(median(c.first))} ms, second ${ms(median(c.second))} ms`);

    // --- The load scenarios. ---
    const readScenario = (size: (typeof sizes)[number], coding: Coding): LoadScenario => {
      const url = `${base}/public/${readSilos.get(size.id)!}`;
      const headers = { 'Accept-Encoding': coding };
      return {
        id: `read-${size.id}-${coding}`,
        title: `${size.label} array, Accept-Encoding: ${coding}`,
        shown: `GET /public/<uuid>, Accept-Encoding: ${coding}`,
        pid,
        request: { url, headers },
        async check() {
          const got = await exchange(url, { headers });
          const what = this.id;
          expectStatus(what, got, 200);
          if (!decoded(got).equals(texts.get(size.id)!)) throw new Error(`${what}: the body is not the stored text`);
          const encoding = String(got.headers['content-encoding'] ?? '');
          const expected = coding === 'identity' ? '' : coding;
          if (encoding !== expected) findings.push(`${what}: Content-Encoding "${encoding}", expected "${expected}"`);
          if (!/accept-encoding/i.test(String(got.headers.vary ?? ''))) findings.push(`${what}: no Vary: Accept-Encoding`);
          const etag = String(got.headers.etag ?? '');
          if (expected && !etag.endsWith(`-${expected}"`)) findings.push(`${what}: ETag ${etag} does not name the coding`);
          return `200, ${kb(got.body.length)}${encoding ? ` ${encoding}` : ''}, decodes to the stored text`;
        },
      };
    };
    const reads = sizes.flatMap((size) => CODINGS.map((coding) => ({ size, coding, scenario: readScenario(size, coding) })));

    const appendUrl = `${base}/api/v1/manage/${appendUuid}`;
    const appendHeaders = { 'X-MAN-API': manage, 'Content-Type': 'application/json-patch+json' };
    const answerBytes: Record<AppendVariant, number> = { full: 0, fullBr: 0, minimal: 0 };
    const appendScenario = (variant: AppendVariant): LoadScenario => {
      const minimal = variant === 'minimal';
      const headers = minimal
        ? { ...appendHeaders, Prefer: 'return=minimal' }
        : variant === 'fullBr'
          ? { ...appendHeaders, 'Accept-Encoding': BROWSER_CODINGS }
          : appendHeaders;
      const extra = minimal ? ', Prefer: return=minimal' : variant === 'fullBr' ? `, Accept-Encoding: ${BROWSER_CODINGS}` : '';
      return {
        id: minimal ? 'append-minimal' : variant === 'fullBr' ? 'append-full-br' : 'append-full',
        title: `append one element to the 5 MB array${extra || ', whole answer'}`,
        shown: `PATCH /api/v1/manage/<uuid> (json-patch+json, add /file_data/-)${extra}`,
        pid,
        request: { url: appendUrl, method: 'PATCH', headers, body: appendBody },
        async check() {
          const got = await exchange(appendUrl, { method: 'PATCH', headers, body: appendBody });
          const what = this.id;
          expectStatus(what, got, 200);
          const body = JSON.parse(decoded(got).toString('utf8')) as { file_data?: unknown; version?: unknown; file_uuid?: unknown };
          const applied = got.headers['preference-applied'];
          answerBytes[variant] = got.body.length;
          const encoding = String(got.headers['content-encoding'] ?? '');
          if (encoding !== (variant === 'fullBr' ? 'br' : '')) findings.push(`${what}: Content-Encoding "${encoding}"`);
          if (body.file_uuid !== appendUuid || typeof body.version !== 'number') throw new Error(`${what}: unexpected answer ${got.body.toString('utf8', 0, 300)}`);
          if (!got.headers.etag) findings.push(`${what}: no ETag on the answer`);
          if (minimal) {
            if (applied !== 'return=minimal') findings.push(`${what}: Preference-Applied is ${JSON.stringify(applied)}, expected "return=minimal"`);
            if ('file_data' in body) findings.push(`${what}: the minimal answer carries file_data`);
            return `200, ${kb(got.body.length)} without file_data, Preference-Applied: ${String(applied)}, version ${body.version}`;
          }
          if (applied !== undefined) findings.push(`${what}: Preference-Applied ${String(applied)} on an answer that did not ask for it`);
          const list = body.file_data;
          if (!Array.isArray(list) || !isDeepStrictEqual(list.at(-1), appended) || !isDeepStrictEqual(list[0], appendBase[0])) {
            throw new Error(`${what}: file_data does not end with the appended element`);
          }
          return `200, ${kb(got.body.length)}${encoding ? ` ${encoding}` : ''} with file_data (${list.length.toLocaleString('en-US')} elements), version ${body.version}`;
        },
      };
    };
    const appendFull = appendScenario('full');
    const appendFullBr = appendScenario('fullBr');
    const appendMinimal = appendScenario('minimal');

    const items = `${base}/${ready.silos.items!}`;
    const access = { 'X-SILO-KEY': ready.keys.access };
    const searchCheck = async (what: string, url: string, headers: Record<string, string>, expected: unknown): Promise<string> => {
      const got = await exchange(url, { headers });
      expectStatus(what, got, 200);
      if (!isDeepStrictEqual(JSON.parse(got.body.toString('utf8')), expected)) throw new Error(`${what}: wrong answer ${got.body.toString('utf8', 0, 200)}`);
      return `200, ${matches.length} matches, ${kb(got.body.length)}`;
    };
    const jsPort = jsonServer1.ready.port;
    const jsPid = jsonServer1.pid;
    const searchCached: LoadScenario = {
      id: 'search-cached',
      title: 'silo serve, one query string (answer cached per version and query string)',
      shown: `GET /<uuid>?${SEARCH}`,
      pid,
      request: { url: `${items}?${SEARCH}`, headers: access },
      check() {
        return searchCheck(this.id, `${items}?${SEARCH}`, access, matches);
      },
    };
    const searchUncached: LoadScenario = {
      id: 'search-uncached',
      title: 'silo serve, a distinct query string per request (cache-buster: the search runs every time)',
      shown: `GET /<uuid>?${SEARCH}&_=<fresh id>`,
      pid,
      request: { url: `${items}?${SEARCH}&_=[<id>]`, headers: access, idReplacement: true },
      check() {
        return searchCheck(this.id, `${items}?${SEARCH}&_=check-${Date.now()}`, access, matches);
      },
    };
    const searchJsonServer1: LoadScenario = {
      id: 'search-json-server-1',
      title: 'json-server 1.0.0-beta.3, the same items filtered (no cache; pretty-printed, ids as strings)',
      shown: `GET /items?category=${SEARCH_CATEGORY}`,
      pid: jsPid,
      request: { url: `http://127.0.0.1:${jsPort}/items?category=${SEARCH_CATEGORY}` },
      check() {
        return searchCheck(this.id, `http://127.0.0.1:${jsPort}/items?category=${SEARCH_CATEGORY}`, {}, matchesStringIds);
      },
    };

    const scenarios: LoadScenario[] = [...reads.map((r) => r.scenario), appendFull, appendFullBr, appendMinimal, searchCached, searchUncached, searchJsonServer1];
    log(`Checks (one request per scenario), at ${at()}:`);
    const checked = new Map<string, string>();
    for (const s of scenarios) {
      const what = await s.check();
      checked.set(s.id, what);
      log(`  ok  ${s.id.padEnd(22)} ${what}`);
    }

    if (settings.warmupSec > 0) {
      log(`Warm-up: ${settings.warmupSec} s per scenario, at ${at()}`);
      for (const s of scenarios) await measure(s, settings.warmupSec);
    }

    log(`Measuring: ${settings.rounds} rounds × ${scenarios.length} scenarios × ${settings.roundSec} s, interleaved`);
    const rounds = new Map<string, Round[]>(scenarios.map((s) => [s.id, []]));
    for (let round = 0; round < settings.rounds; round++) {
      const shift = (round * 3) % scenarios.length;
      for (const s of [...scenarios.slice(shift), ...scenarios.slice(0, shift)]) rounds.get(s.id)!.push(await measure(s, settings.roundSec));
      loadAverages.push(os.loadavg()[0]!);
      log(`  round ${round + 1}/${settings.rounds} done at ${at()} (load average ${os.loadavg()[0]!.toFixed(2)})`);
    }
    const summary = new Map(scenarios.map((s) => [s.id, summarize(s, checked.get(s.id) ?? '', rounds.get(s.id)!)]));
    for (const r of summary.values()) {
      if (r.problems > 0) findings.push(`${r.id}: ${r.problems} non-2xx answers, errors or timeouts during the rounds`);
    }

    const readResults: ReadResult[] = reads.map(({ size, coding, scenario }) => {
      const c = cold.get(`${size.id} ${coding}`)!;
      const stored = texts.get(size.id)!.length;
      const identity = summary.get(`read-${size.id}-identity`)!;
      const load = summary.get(scenario.id)!;
      return {
        silo: size.label,
        coding,
        contentEncoding: c.encoding,
        storedBytes: stored,
        bodyBytes: c.bytes,
        ratio: c.bytes / stored,
        coldMs: spread(c.first),
        warmMs: spread(c.second),
        load,
        vsIdentity: coding === 'identity' ? null : pairedRate(load, identity),
      };
    });
    const full = summary.get(appendFull.id)!;
    const fullBr = summary.get(appendFullBr.id)!;
    const minimal = summary.get(appendMinimal.id)!;
    const cached = summary.get(searchCached.id)!;
    const uncached = summary.get(searchUncached.id)!;
    const js1 = summary.get(searchJsonServer1.id)!;

    const out: LargeAnswersResults = {
      schema: 1,
      generatedAt: new Date().toISOString(),
      command: 'node --import tsx benchmarks/http/large-answers.ts' + (quick ? ' --quick' : ''),
      mode: quick ? 'quick' : 'full',
      machine: { ...machineInfo(), loadAverageAtStart, loadAverageAtEnd: os.loadavg(), loadAverageByRound: loadAverages },
      node: process.version,
      commit: gitCommit(),
      settings,
      reads: readResults,
      append: {
        siloBytes: Buffer.byteLength(JSON.stringify(appendBase)),
        elements: appendBase.length,
        answerBytes,
        full,
        fullBr,
        minimal,
        rateRatio: pairedRate(minimal, full),
        cpuRatio: pairedCpu(full, minimal),
        rateRatioBr: pairedRate(minimal, fullBr),
        cpuRatioBr: pairedCpu(fullBr, minimal),
      },
      search: {
        matches: matches.length,
        cached,
        uncached,
        jsonServer1: js1,
        cachedVsJsonServer1: pairedRate(cached, js1),
        uncachedVsJsonServer1: pairedRate(uncached, js1),
      },
      findings,
      durationSeconds: 0,
    };
    out.durationSeconds = (performance.now() - started) / 1000;

    for (const line of renderMarkdown(out).split('\n').filter((l) => l.startsWith('|'))) log(line);
    if (findings.length > 0) {
      log('Findings:');
      for (const f of findings) log(`  ${f}`);
    }
    if (options.write ?? true) {
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(new URL('large-answers.json', RESULTS_DIR), `${JSON.stringify(out, null, 2)}\n`);
      writeFileSync(new URL('large-answers.md', RESULTS_DIR), renderMarkdown(out));
      log(`Wrote benchmarks/results/large-answers.md and large-answers.json (${Math.round(out.durationSeconds)} s).`);
    } else {
      log(`Results not written (--no-write); ${Math.round(out.durationSeconds)} s.`);
    }
    return out;
  } finally {
    await jsonServer1?.stop().catch((err: unknown) => log(`stopping json-server 1.0: ${String(err)}`));
    await silo?.dispose().catch((err: unknown) => log(`stopping silo serve: ${String(err)}`));
  }
}

function renderMarkdown(r: LargeAnswersResults): string {
  const m = r.machine;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
  const lines: string[] = [
    '# Large answers',
    '',
    `Generated by \`${r.command}\` on ${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC` +
      `${r.mode === 'quick' ? ' (**quick mode**: a smoke test, not reference figures)' : ''}; commit ${r.commit ?? 'unknown'}.`,
    `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB, ${m.platform} ${m.osRelease}, Node ${r.node}. ` +
      `Load average (1, 5, 15 min) ${load(m.loadAverageAtStart)} at the start, ${load(m.loadAverageAtEnd)} at the end; 1-minute by round: ${load(m.loadAverageByRound)}. ` +
      `The ${m.cores} cores are shared with other sessions' tests and builds, and autocannon runs on them too: read the spreads, not only the medians.`,
    '',
    `\`silo serve\` as shipped on SQLite (a temp data dir), ${r.settings.connections} connections, ${r.settings.rounds} measured rounds of ${r.settings.roundSec} s ` +
      `per scenario ${r.settings.warmupSec > 0 ? `after a ${r.settings.warmupSec} s warm-up` : 'without a warm-up (the checks filled the caches)'}, all scenarios interleaved (the order rotates by round). req/s: median [min–max] over the rounds; ` +
      'p50/p99: medians of the rounds\' latencies; CPU: the server process\'s user + system time (all its threads: zlib\'s pool and the query workers included, from /proc) ' +
      'per request sent, median [min–max]; autocannon µs/resp: the harness process\'s CPU per response (autocannon, and the draining of silo serve\'s request log ' +
      'into a file; it shares the cores: where it is near the server\'s, req/s measures both); bytes/answer: what autocannon received per response, headers included (it counts the bodies without keeping them, load.ts `discardBodies`). Every scenario was checked by one request before the load ' +
      '(status, headers, and the body decoded and compared with what was stored).',
    '',
    '## 1. Public reads of large arrays, by Accept-Encoding',
    '',
    `\`GET /public/<uuid>\`. Cold: the first request of a silo just created (nothing of it cached: the SQLite read, the encoding and the compression), on a connection of its own, ` +
      `median [min–max] of ${r.settings.coldSamples} fresh silo(s) per row; "then": the request right after it. Warm: under load, the encoded body and its compressed form cached per version.`,
    '',
    '| Silo | Accept-Encoding | Content-Encoding | Body | Ratio | Cold first request (ms) | Then (ms) | Warm req/s | vs identity | p50 / p99 (ms) | CPU µs/req | autocannon µs/resp | MB/s on the wire |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.reads.map((x) =>
      `| ${x.silo} | ${x.coding} | ${x.contentEncoding || '—'} | ${kb(x.bodyBytes)} | ${(x.ratio * 100).toFixed(1)} % | ${range(x.coldMs, ms)} | ${range(x.warmMs, ms)} | ` +
        `${range(x.load.reqPerSec, int)} | ${x.vsIdentity ? times(x.vsIdentity) : '—'} | ${ms(x.load.p50)} / ${ms(x.load.p99)} | ${cpuText(x.load.cpuUsPerReq)} | ${int(x.load.clientCpuUsPerReq)} | ` +
        `${((x.load.reqPerSec.median * x.load.bytesPerResponse) / 1e6).toFixed(0)} |`,
    ),
    '',
    '## 2. Appending one element to a 5 MB array',
    '',
    `\`PATCH /api/v1/manage/<uuid>\` with \`Content-Type: application/json-patch+json\` and \`[{"op":"add","path":"/file_data/-","value":{…}}]\` on one private silo of ` +
      `${mb(r.append.siloBytes)} (${r.append.elements.toLocaleString('en-US')} elements, growing by one per request), no If-Match (not required by \`silo serve\`; ` +
      `concurrent appends apply one after another). The whole answer without Accept-Encoding, and with \`${BROWSER_CODINGS}\` as a browser's fetch sends it ` +
      '(the server compresses every answer over 1 KB; a write\'s answer is new every time, so each one is compressed, none cached), against `Prefer: return=minimal`.',
    '',
    '| Answer | Bytes/answer | req/s | p50 / p99 (ms) | CPU µs/req | autocannon µs/resp |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...([
      ['whole (file_data included)', r.append.full, r.append.answerBytes.full],
      [`whole, \`Accept-Encoding: ${BROWSER_CODINGS}\` (br)`, r.append.fullBr, r.append.answerBytes.fullBr],
      ['`Prefer: return=minimal`', r.append.minimal, r.append.answerBytes.minimal],
    ] as const).map(
      ([name, s, bytes]) => `| ${name} | ${kb(bytes)} | ${range(s.reqPerSec, int)} | ${ms(s.p50)} / ${ms(s.p99)} | ${cpuText(s.cpuUsPerReq)} | ${int(s.clientCpuUsPerReq)} |`,
    ),
    '',
    `Minimal ÷ whole, paired by round: req/s **${times(r.append.rateRatio)}**; CPU per request whole ÷ minimal: ` +
      `${r.append.cpuRatio ? `**${times(r.append.cpuRatio)}**` : 'n/a'}. Against the whole answer in br: req/s **${times(r.append.rateRatioBr)}**; ` +
      `CPU ${r.append.cpuRatioBr ? `**${times(r.append.cpuRatioBr)}**` : 'n/a'}.`,
    '',
    '## 3. Search over 10 000 items: silo serve against json-server 1.0 beta',
    '',
    `Scenario 4's question (benchmarks/http/scenarios.ts): the items with \`category\` = \`${SEARCH_CATEGORY}\`, ${r.search.matches} of 10 000. ` +
      '`silo serve` keeps a query\'s encoded answer per silo version and query string: **cached** sends one query string again and again; ' +
      '**uncached** adds `&_=<id>`, a fresh id on every request (autocannon\'s idReplacement): silo-query ignores the parameter, so the answer is the same, ' +
      'but every request misses the cache and runs the search (on a query worker: the silo is over 64 KB). json-server keeps no answers, so it runs one variant only.',
    '',
    '| Server | Request | Bytes/answer | req/s | vs json-server 1.0 (paired) | p50 / p99 (ms) | CPU µs/req | autocannon µs/resp |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...([
      ['silo serve, **cached**', r.search.cached, r.search.cachedVsJsonServer1],
      ['silo serve, **uncached**', r.search.uncached, r.search.uncachedVsJsonServer1],
      ['json-server 1.0.0-beta.3', r.search.jsonServer1, null],
    ] as const).map(
      ([name, s, vs]) =>
        `| ${name} | \`${s.shown}\` | ${kb(s.bytesPerResponse)} | ${range(s.reqPerSec, int)} | ${vs ? times(vs) : '—'} | ${ms(s.p50)} / ${ms(s.p99)} | ${cpuText(s.cpuUsPerReq)} | ${int(s.clientCpuUsPerReq)} |`,
    ),
    '',
    '## Findings of the checks',
    '',
    ...(r.findings.length > 0 ? r.findings.map((f) => `- ${f}`) : ['None: every answer had the status, Content-Encoding, Vary, ETag and Preference-Applied the contract says.']),
    '',
    `Run time ${Math.round(r.durationSeconds)} s.`,
    '',
  ];
  return lines.join('\n');
}

export function parseLargeAnswersArgs(argv: readonly string[]): LargeAnswersOptions {
  const o: LargeAnswersOptions = {};
  for (const arg of argv) {
    if (arg === '--quick') o.quick = true;
    else if (arg === '--no-write') o.write = false;
    else throw new Error(`unknown argument ${arg} (takes --quick and --no-write)`);
  }
  return o;
}

if (isInvokedDirectly(import.meta.url)) {
  try {
    await runLargeAnswers(parseLargeAnswersArgs(process.argv.slice(2)));
  } catch (err) {
    console.error(`\nlarge-answers benchmark aborted — ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    process.exitCode = 1;
  }
}
