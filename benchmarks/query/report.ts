/** Renders the results of a run as `benchmarks/results/query.md` (the JSON is the raw object). */
import type { MachineInfo as BaseMachineInfo } from '../common.js';
import { CANDIDATES, FILTER_8 as FILTER_8_TEXT, type CandidateKey } from './cases.js';
import type { Measurement } from './harness.js';

/** The machine, and its load when the run started. */
export interface MachineInfo extends BaseMachineInfo {
  loadAverageAtStart: number[];
}

export type CandidateResult = Measurement | { na: string };

export interface CaseResult {
  id: string;
  title: string;
  group: 'path' | 'search' | 'like' | 'list';
  params: string;
  jsonpath: { path: string; eval: false | 'safe' } | { na: string };
  baselineCode: string;
  result: string;
  candidates: Record<CandidateKey, CandidateResult>;
  /** The case a target compares this one with (its compile ops/s), if any. */
  versus?: string;
  ratios: {
    compileVsJsonpath: number | null;
    compileVsBaseline: number | null;
    queryVsCompile: number | null;
  };
}

export interface TargetResult {
  target: string;
  caseId: string;
  caseTitle: string;
  measured: string;
  required: string;
  value: number | null;
  met: boolean | null;
}

export interface QueryBenchResults {
  schema: 1;
  generatedAt: string;
  command: string;
  mode: 'full' | 'quick' | 'custom';
  machine: MachineInfo;
  node: string;
  v8: string;
  jsonpathPlus: string;
  siloQuery: { version: string; build: string; file: string; note: string } | null;
  /** HEAD when the run started, and the last commit that touched packages/silo-query/src. */
  commit: string | null;
  siloQueryCommit: string | null;
  harness: { rounds: number; roundMs: number; warmupMs: number; interleaved: true };
  validation: { comparisons: number; passed: boolean };
  /** One uncontrolled call per LIKE case in a child process, before anything else. */
  likeProbes: Array<{ caseId: string; ms: number | null; timedOut: boolean; limitMs: number }>;
  cases: CaseResult[];
  targets: TargetResult[];
  durationSeconds: number;
}

export function isMeasured(r: CandidateResult | undefined): r is Measurement {
  return r !== undefined && !('na' in r);
}

function sig3(x: number): string {
  if (x >= 100) return Math.round(x).toString();
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

export function fmtOps(ops: number): string {
  if (ops >= 1e6) return `${sig3(ops / 1e6)} M`;
  if (ops >= 1e3) return `${sig3(ops / 1e3)} k`;
  return sig3(ops);
}

export function fmtMs(ms: number): string {
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.001) return `${(ms * 1000).toPrecision(3)} µs`;
  return `${(ms * 1e6).toPrecision(3)} ns`;
}

/** Milliseconds written as milliseconds (the unit the LIKE target is stated in). */
export function fmtMsPlain(ms: number): string {
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.001) return `${ms.toFixed(4)} ms`;
  return `${ms.toPrecision(2)} ms`;
}

export function fmtRatio(r: number | null): string {
  if (r === null) return 'n/a';
  if (r >= 100) return `${Math.round(r)}×`;
  if (r >= 10) return `${r.toFixed(1)}×`;
  return r >= 0.01 ? `${r.toFixed(2)}×` : `${r.toPrecision(2)}×`;
}

function cell(r: CandidateResult, c: CaseResult, key: CandidateKey): string {
  if (!isMeasured(r)) return 'n/a';
  const spread = `±${Math.max(1, Math.round(r.relativeMad * 100))}%`;
  const ms = c.group === 'path' ? '' : c.group === 'like' ? ` (${fmtMsPlain(r.msPerOp)})` : ` (${fmtMs(r.msPerOp)})`;
  const mark = key === 'jsonpath' && 'eval' in c.jsonpath && c.jsonpath.eval === 'safe' ? ' †' : '';
  return `${fmtOps(r.opsPerSec)} ${spread}${ms}${mark}`;
}

function esc(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function renderMarkdown(res: QueryBenchResults): string {
  const L: string[] = [];
  const m = res.machine;
  L.push('# silo-query benchmarks');
  L.push('');
  L.push(
    `Generated ${res.generatedAt} by \`${res.command}\`` +
      (res.mode === 'full' ? '.' : ` (**${res.mode} mode: not a reference run**).`),
  );
  L.push('');
  L.push(`- Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB RAM, ` +
    `${m.platform} ${m.osRelease} ${m.arch} (load average at start: ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(', ')})`);
  L.push(`- Node ${res.node} (V8 ${res.v8}); jsonpath-plus ${res.jsonpathPlus}`);
  L.push(res.siloQuery
    ? `- silo-query ${res.siloQuery.version}, measured: ${res.siloQuery.note}` +
      (res.commit ? `; repository at commit ${res.commit}` : '') +
      (res.siloQueryCommit ? ` (silo-query/src last changed in ${res.siloQueryCommit})` : '')
    : '- silo-query: not available in this run');
  L.push(`- Harness: per candidate, calibration and ${res.harness.warmupMs} ms warm-up, then the median ` +
    `of ${res.harness.rounds} rounds of ~${res.harness.roundMs} ms each; the rounds of the candidates of ` +
    'a case are interleaved, so machine noise hits them alike. ± is the median absolute deviation ' +
    `of the rounds. Whole run: ${Math.round(res.durationSeconds)} s.`);
  L.push(`- Validation: before timing, every candidate returned a deep-equal result on every case ` +
    `(${res.validation.comparisons} comparisons).`);
  if (res.likeProbes.length > 0) {
    L.push('- LIKE probe (one cold call per LIKE case in a fresh process, before anything else): ' +
      res.likeProbes.map((p) => `${p.caseId} ${p.ms === null ? (p.timedOut ? `timed out (> ${p.limitMs} ms)` : 'failed') : fmtMsPlain(p.ms)}`).join(', ') + '.');
  }
  L.push('');
  L.push('## ops/s (higher is better)');
  L.push('');
  L.push(`| Case | ${CANDIDATES.map((c) => c.label).join(' | ')} | compile ÷ jsonpath-plus | compile ÷ hand-written |`);
  L.push(`|---|${CANDIDATES.map(() => '--:').join('|')}|--:|--:|`);
  for (const c of res.cases) {
    const cells = CANDIDATES.map((k) => cell(c.candidates[k.key], c, k.key));
    L.push(`| ${c.title} | ${cells.join(' | ')} | ${fmtRatio(c.ratios.compileVsJsonpath)} | ` +
      `${fmtRatio(c.ratios.compileVsBaseline)} |`);
  }
  L.push('');
  L.push('Search and LIKE cells also give the median time per call in parentheses (in ms for LIKE). ' +
    'jsonpath-plus runs with `eval: false` on the path cases; † marks filter expressions, which ' +
    '`eval: false` rejects ("Eval [?(expr)] prevented"), so they run with `eval: \'safe\'` ' +
    '(jsonpath-plus\'s own expression interpreter: no `eval`, `Function` or `vm`; never `\'native\'`). ' +
    'n/a: the candidate cannot express the case (see the case list below).');
  L.push('');
  L.push('## Targets (issue 2)');
  L.push('');
  L.push('| Target | Case | Measured | Required | Met |');
  L.push('|---|---|--:|--:|:-:|');
  for (const t of res.targets) {
    const met = t.met === null ? 'not measured' : t.met ? 'yes' : '**no**';
    L.push(`| ${t.target} | ${t.caseTitle} | ${t.measured} | ${t.required} | ${met} |`);
  }
  L.push('');
  L.push('## Cases');
  L.push('');
  L.push('| Case | silo-query params | JSONPath (jsonpath-plus) | hand-written JS | result |');
  L.push('|---|---|---|---|---|');
  for (const c of res.cases) {
    const jp = 'na' in c.jsonpath
      ? `n/a: ${c.jsonpath.na}`
      : `\`${c.jsonpath.path}\` (eval: ${c.jsonpath.eval === false ? 'false' : "'safe'"})`;
    L.push(`| ${c.title} | \`${esc(c.params)}\` | ${esc(jp)} | \`${esc(c.baselineCode)}\` | ${esc(c.result)} |`);
  }
  L.push('');
  L.push('Data: path cases use one ~1 KB user document; idx+path, search, filter and sort use records ' +
    '`{id, name, age, city, active, score, address: {street, zip}}` from a seeded PRNG ' +
    '(mulberry32), the 10 000-object cases being the first 10 000 of the 100 000. ' +
    '`query` parses the query string on every call; `compile` parses it once. ' +
    'The filter case\'s parameter is `filter=' + esc(FILTER_8_TEXT) + '` (URL-encoded); `and` runs its ' +
    'equality conditions first, whatever the order written.');
  L.push('');
  L.push('## How to reproduce');
  L.push('');
  L.push('`npx tsc -b && node --import tsx benchmarks/query/run.ts` (about two minutes; ' +
    'writes this file and `query.json` with every round). See `benchmarks/README.md`.');
  L.push('');
  return L.join('\n');
}
