/**
 * silo-query benchmarks (issue 2): validation, then ops/s per case and candidate, then
 * `benchmarks/results/query.md` and `query.json`.
 *
 *   node --import tsx benchmarks/query/run.ts [--quick] [--impl=auto|dist|src]
 *        [--rounds=N] [--round-ms=N] [--warmup-ms=N] [--only=substr,...] [--no-write]
 *        [--without-silo] [--module=path/to/other/build.js] [--like-limit-ms=N]
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';
import { buildCases, CANDIDATES, candidateFns, type BenchCase, type CandidateFns, type CandidateKey } from './cases.js';
import { measureInterleaved, type Fn, type HarnessOptions } from './harness.js';
import {
  fmtMs,
  fmtMsPlain,
  fmtOps,
  fmtRatio,
  isMeasured,
  renderMarkdown,
  type CandidateResult,
  type CaseResult,
  type QueryBenchResults,
  type TargetResult,
} from './report.js';
import { loadSiloQuery, loadSiloQueryFrom, type LoadedSilo, type SiloChoice } from './silo.js';
import { isInvokedDirectly, machineInfo } from '../common.js';

export interface QueryBenchOptions {
  /** Which silo-query to measure: built dist (preferred by `auto` when up to date) or src. */
  impl?: SiloChoice;
  /** Measure this module instead (a file exporting query and compile); overrides `impl`. */
  module?: string;
  /** Short rounds for a smoke test; the results say so. */
  quick?: boolean;
  rounds?: number;
  roundMs?: number;
  warmupMs?: number;
  /** Only the cases whose id contains one of these strings. */
  only?: string[];
  /** Write benchmarks/results/query.{md,json} (default true; never without silo-query). */
  write?: boolean;
  /** Run the other candidates even when silo-query is not available yet (harness development). */
  withoutSilo?: boolean;
  /** Time limit of the LIKE probe, in ms. */
  likeProbeLimitMs?: number;
  log?: (line: string) => void;
}

export class ValidationError extends Error {
  override name = 'ValidationError';
}

const RESULTS_DIR = new URL('../results/', import.meta.url);
const ROOT = new URL('../../', import.meta.url);

function readVersion(pkgJson: URL): string {
  try {
    return (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string | null {
  try {
    const cwd = fileURLToPath(ROOT);
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages/silo-query/src'], {
      cwd,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} (silo-query/src has uncommitted changes)` : head;
  } catch {
    return null;
  }
}

function siloQueryCommit(): string | null {
  try {
    const out = execFileSync('git', ['log', '-1', '--format=%h', '--', 'packages/silo-query/src'], {
      cwd: fileURLToPath(ROOT),
      encoding: 'utf8',
    }).trim();
    return out || null;
  } catch {
    return null;
  }
}

function preview(value: unknown): string {
  return inspect(value, { depth: 3, maxArrayLength: 3, maxStringLength: 60, breakLength: Infinity });
}

function describeDifference(expected: unknown, actual: unknown): string {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    let i = 0;
    while (i < expected.length && i < actual.length && isDeepStrictEqual(expected[i], actual[i])) i++;
    return `expected an array of ${expected.length}, got an array of ${actual.length}; first ` +
      `difference at index ${i}: expected ${preview(expected[i])}, got ${preview(actual[i])}`;
  }
  return `expected ${preview(expected)}, got ${preview(actual)}`;
}

/** Runs every candidate once per case; all must deep-equal the hand-written baseline. */
function validate(
  cases: readonly BenchCase[],
  fns: ReadonlyMap<string, CandidateFns>,
  log: (line: string) => void,
): { comparisons: number; summaries: Map<string, string> } {
  let comparisons = 0;
  const summaries = new Map<string, string>();
  for (const c of cases) {
    const set = fns.get(c.id)!;
    const expected = (set.baseline as Fn)(c.data);
    const problem = c.check(expected);
    if (problem) throw new ValidationError(`case ${c.id}: the hand-written baseline is off: ${problem}`);
    for (const { key, label } of CANDIDATES) {
      if (key === 'baseline') continue;
      const fn = set[key];
      if (typeof fn !== 'function') continue;
      let actual: unknown;
      try {
        actual = fn(c.data);
      } catch (err) {
        throw new ValidationError(
          `case ${c.id} (${c.params}): ${label} threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
        );
      }
      comparisons++;
      if (!isDeepStrictEqual(actual, expected)) {
        throw new ValidationError(
          `case ${c.id} (${c.params}): ${label} disagrees with the hand-written baseline: ` +
            describeDifference(expected, actual),
        );
      }
    }
    const summary = Array.isArray(expected)
      ? `${expected.length.toLocaleString('en-US').replace(/,/g, ' ')} matches`
      : JSON.stringify(expected);
    summaries.set(c.id, summary);
    log(`  ok  ${c.id.padEnd(16)} ${summary}`);
  }
  return { comparisons, summaries };
}

interface ProbeOutcome {
  ms: number | null;
  timedOut: boolean;
  error?: string;
}

/**
 * Runs silo-query once on the LIKE worst case in a child process (same Node, same tsx loader)
 * that is killed after `limitMs`.
 */
function probeLike(silo: LoadedSilo, c: BenchCase, limitMs: number): Promise<ProbeOutcome> {
  const length = ((c.data as Array<{ s: string }>)[0]?.s ?? '').length;
  const script = fileURLToPath(new URL('./like-probe.ts', import.meta.url));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, silo.file, c.params, String(length)],
      { cwd: fileURLToPath(ROOT), timeout: limitMs, killSignal: 'SIGKILL', encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          if (err.killed) resolve({ ms: null, timedOut: true });
          else resolve({ ms: null, timedOut: false, error: (stderr || err.message).trim().split('\n').slice(-3).join(' ') });
          return;
        }
        try {
          resolve({ ms: (JSON.parse(stdout) as { ms: number }).ms, timedOut: false });
        } catch {
          resolve({ ms: null, timedOut: false, error: `unexpected probe output: ${stdout.slice(0, 200)}` });
        }
      },
    );
  });
}

function ratio(a: CandidateResult, b: CandidateResult): number | null {
  return isMeasured(a) && isMeasured(b) ? a.opsPerSec / b.opsPerSec : null;
}

function evaluateTargets(results: readonly CaseResult[]): TargetResult[] {
  const targets: TargetResult[] = [];
  for (const c of results) {
    if (c.group === 'path') {
      const r1 = c.ratios.compileVsJsonpath;
      targets.push({
        target: 'compiled path lookup ≥ 20× jsonpath-plus ops/s',
        caseId: c.id,
        caseTitle: c.title,
        measured: fmtRatio(r1),
        required: '≥ 20×',
        value: r1,
        met: r1 === null ? null : r1 >= 20,
      });
      const r2 = c.ratios.compileVsBaseline;
      targets.push({
        target: 'compiled path lookup no slower than 2× hand-written',
        caseId: c.id,
        caseTitle: c.title,
        measured: fmtRatio(r2),
        required: '≥ 0.50×',
        value: r2,
        met: r2 === null ? null : r2 >= 0.5,
      });
    } else if (c.group === 'search' && c.id.endsWith('-100k')) {
      const r = c.ratios.compileVsBaseline;
      targets.push({
        target: 'compiled search over 100 000 objects within 2× the hand-written filter loop',
        caseId: c.id,
        caseTitle: c.title,
        measured: fmtRatio(r),
        required: '≥ 0.50×',
        value: r,
        met: r === null ? null : r >= 0.5,
      });
    } else if (c.group === 'list' && c.versus !== undefined) {
      // Issue 16: the filter case against a single §5 search over the same data (compile ÷ compile).
      const other = results.find((r) => r.id === c.versus);
      const r = other === undefined ? null : ratio(c.candidates.compile, other.candidates.compile);
      targets.push({
        target: `filter of 8 conditions + sort + limit within 2× a single seed search (\`${other?.title ?? c.versus}\`, compile)`,
        caseId: c.id,
        caseTitle: c.title,
        measured: fmtRatio(r),
        required: '≥ 0.50×',
        value: r,
        met: r === null ? null : r >= 0.5,
      });
    } else if (c.group === 'list' && c.id.startsWith('sort-') && !c.id.includes('top')) {
      const r = c.ratios.compileVsBaseline;
      targets.push({
        target: 'extra (not in the issue): sort within 2× Array.prototype.sort with a hand-written comparator',
        caseId: c.id,
        caseTitle: c.title,
        measured: fmtRatio(r),
        required: '≥ 0.50×',
        value: r,
        met: r === null ? null : r >= 0.5,
      });
    } else if (c.group === 'like') {
      for (const key of ['query', 'compile'] as const) {
        const m = c.candidates[key];
        targets.push({
          target: c.id === 'like-worst-case'
            ? `LIKE worst case under 50 ms per call (silo-query \`${key}\`)`
            : `extra (not in the issue): same 50 ms bound (silo-query \`${key}\`)`,
          caseId: c.id,
          caseTitle: c.title,
          measured: isMeasured(m) ? fmtMsPlain(m.msPerOp) : m.na,
          required: '< 50 ms',
          value: isMeasured(m) ? m.msPerOp : null,
          met: isMeasured(m) ? m.msPerOp < 50 : m.na.startsWith('timed out') ? false : null,
        });
      }
    }
  }
  return targets;
}

export async function runQueryBenchmarks(options: QueryBenchOptions = {}): Promise<QueryBenchResults> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = performance.now();
  const loadAverageAtStart = os.loadavg();
  const commit = gitCommit();
  const sqCommit = siloQueryCommit();
  const quick = options.quick ?? false;
  const harness: HarnessOptions = {
    rounds: Math.max(5, options.rounds ?? (quick ? 5 : 7)),
    roundMs: options.roundMs ?? (quick ? 40 : 200),
    warmupMs: options.warmupMs ?? (quick ? 40 : 200),
  };
  const custom = options.module !== undefined || options.rounds !== undefined || options.roundMs !== undefined ||
    options.warmupMs !== undefined || (options.only?.length ?? 0) > 0;
  const mode: QueryBenchResults['mode'] = quick ? 'quick' : custom ? 'custom' : 'full';

  let silo: LoadedSilo | undefined;
  try {
    silo = options.module
      ? await loadSiloQueryFrom(options.module)
      : await loadSiloQuery(options.impl ?? 'auto');
    log(`silo-query: ${silo.note}`);
  } catch (err) {
    if (!options.withoutSilo) throw err;
    log(`silo-query: not available (${err instanceof Error ? err.message : String(err)}); ` +
      'measuring the other candidates only');
  }

  let cases = buildCases();
  if (options.only?.length) {
    const only = options.only;
    cases = cases.filter((c) => only.some((o) => c.id.includes(o)));
  }

  // 1. LIKE probe, in a child process with a time limit, before anything else runs silo-query on it.
  const likeLimitMs = options.likeProbeLimitMs ?? 10_000;
  const likeProbes: QueryBenchResults['likeProbes'] = [];
  const likeTimedOut = new Set<string>();
  if (silo) {
    for (const c of cases.filter((x) => x.group === 'like')) {
      log(`LIKE probe (${c.id}, limit ${likeLimitMs / 1000} s)…`);
      const p = await probeLike(silo, c, likeLimitMs);
      if (p.error) throw new ValidationError(`case ${c.id}: the LIKE probe failed: ${p.error}`);
      likeProbes.push({ caseId: c.id, ms: p.ms, timedOut: p.timedOut, limitMs: likeLimitMs });
      if (p.timedOut) {
        likeTimedOut.add(c.id);
        log(`  silo-query did not return within ${likeLimitMs / 1000} s: LIKE is not linear-time; ` +
          'its silo-query cells are skipped');
      } else {
        log(`  one call: ${fmtMs(p.ms ?? 0)}`);
      }
    }
  }

  // 2. Validation: every candidate returns the same result on every case.
  const fns = new Map<string, CandidateFns>();
  for (const c of cases) {
    let set: CandidateFns;
    try {
      set = candidateFns(c, silo?.api);
    } catch (err) {
      throw new ValidationError(
        `case ${c.id}: silo-query compile(${JSON.stringify(c.params)}) threw ` +
          `${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
      );
    }
    if (likeTimedOut.has(c.id)) {
      const na = { na: `timed out (no result within ${likeLimitMs / 1000} s)` };
      set = { ...set, query: na, compile: na };
    }
    fns.set(c.id, set);
  }
  log('Validation (every candidate must deep-equal the hand-written baseline):');
  const { comparisons, summaries } = validate(cases, fns, log);

  // 3. Timing.
  log(`Timing: median of ${harness.rounds} rounds × ~${harness.roundMs} ms, ${harness.warmupMs} ms warm-up`);
  const results: CaseResult[] = [];
  for (const c of cases) {
    const set = fns.get(c.id)!;
    const runnable: Array<{ key: string; fn: Fn; data: unknown }> = [];
    for (const { key } of CANDIDATES) {
      const fn = set[key];
      if (typeof fn === 'function') runnable.push({ key, fn, data: c.data });
    }
    const measured = measureInterleaved(runnable, harness);
    const candidates = {} as Record<CandidateKey, CandidateResult>;
    for (const { key } of CANDIDATES) {
      const fn = set[key];
      candidates[key] = typeof fn === 'function' ? measured.get(key)! : { na: fn.na };
    }
    const r: CaseResult = {
      id: c.id,
      title: c.title,
      group: c.group,
      params: c.params,
      jsonpath: c.jsonpath,
      baselineCode: c.baselineCode,
      result: summaries.get(c.id) ?? '',
      ...(c.versus === undefined ? {} : { versus: c.versus }),
      candidates,
      ratios: {
        compileVsJsonpath: ratio(candidates.compile, candidates.jsonpath),
        compileVsBaseline: ratio(candidates.compile, candidates.baseline),
        queryVsCompile: ratio(candidates.query, candidates.compile),
      },
    };
    results.push(r);
    log(`  ${c.id.padEnd(16)} ` + CANDIDATES.map(({ key }) => {
      const m = candidates[key];
      return `${key} ${isMeasured(m) ? fmtOps(m.opsPerSec) : 'n/a'}`;
    }).join(' · ') + ` · compile/jsonpath ${fmtRatio(r.ratios.compileVsJsonpath)}` +
      ` · compile/hand ${fmtRatio(r.ratios.compileVsBaseline)}`);
  }

  const out: QueryBenchResults = {
    schema: 1,
    generatedAt: new Date().toISOString(),
    command: 'node --import tsx benchmarks/query/run.ts' + (quick ? ' --quick' : ''),
    mode,
    machine: {
      ...machineInfo(),
      loadAverageAtStart,
    },
    node: process.version,
    v8: process.versions.v8,
    jsonpathPlus: readVersion(new URL('node_modules/jsonpath-plus/package.json', ROOT)),
    siloQuery: silo
      ? {
        version: readVersion(new URL('packages/silo-query/package.json', ROOT)),
        build: silo.build,
        file: silo.file.replace(fileURLToPath(ROOT), ''),
        note: silo.note,
      }
      : null,
    commit,
    siloQueryCommit: silo?.build === 'module' ? null : sqCommit,
    harness: { ...harness, interleaved: true },
    validation: { comparisons, passed: true },
    likeProbes,
    cases: results,
    targets: evaluateTargets(results),
    durationSeconds: (performance.now() - started) / 1000,
  };

  log('Targets:');
  for (const t of out.targets) {
    const met = t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED';
    log(`  ${met.padEnd(12)} ${t.target} — ${t.caseId}: ${t.measured} (required ${t.required})`);
  }

  const write = (options.write ?? true) && silo !== undefined;
  if (write) {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(new URL('query.json', RESULTS_DIR), `${JSON.stringify(out, null, 2)}\n`);
    writeFileSync(new URL('query.md', RESULTS_DIR), renderMarkdown(out));
    log(`Wrote benchmarks/results/query.md and query.json (${Math.round(out.durationSeconds)} s).`);
  } else {
    log(`Results not written (${silo ? '--no-write' : 'silo-query not available'}).`);
  }
  return out;
}

function parseArgs(argv: readonly string[]): QueryBenchOptions {
  const o: QueryBenchOptions = {};
  for (const arg of argv) {
    const [flag, value] = arg.split('=', 2) as [string, string | undefined];
    const num = (): number => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
      return n;
    };
    switch (flag) {
      case '--quick': o.quick = true; break;
      case '--no-write': o.write = false; break;
      case '--without-silo': o.withoutSilo = true; break;
      case '--impl':
        if (value !== 'auto' && value !== 'dist' && value !== 'src') throw new Error('--impl=auto|dist|src');
        o.impl = value;
        break;
      case '--module': o.module = value; break;
      case '--like-limit-ms': o.likeProbeLimitMs = num(); break;
      case '--rounds': o.rounds = num(); break;
      case '--round-ms': o.roundMs = num(); break;
      case '--warmup-ms': o.warmupMs = num(); break;
      case '--only': o.only = (value ?? '').split(',').filter(Boolean); break;
      default: throw new Error(`unknown argument ${arg}`);
    }
  }
  return o;
}

const invokedDirectly = isInvokedDirectly(import.meta.url);

if (invokedDirectly) {
  try {
    await runQueryBenchmarks(parseArgs(process.argv.slice(2)));
  } catch (err) {
    const msg = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    console.error(`\nquery benchmarks aborted — ${msg}`);
    process.exitCode = 1;
  }
}
