/** The shape of benchmarks/results/http.json. */
import type { RoundResult } from './load.js';
import type { Group, Target } from './scenarios.js';
import type { SiloKind } from './kinds.js';
import type { MachineInfo } from '../common.js';

export interface ScenarioResult {
  id: string;
  group: Group;
  target: Target;
  title: string;
  shown: string;
  /** What the validation request got (status and body checked before any load). */
  validation: string;
  warmup: RoundResult | null;
  rounds: RoundResult[];
  /**
   * req/s: median over the measured rounds; `relativeMad`: median absolute deviation ÷ median of
   * req/s; p50/p99: over every 2xx response of the measured rounds (pooled); server CPU: median.
   */
  median: { reqPerSec: number; p50: number; p99: number; relativeMad: number; serverCpuUsPerReq: number | null };
  totals: { responses: number; errors: number; timeouts: number; non2xx: number; statusCodes: Record<string, number> };
  /** False when any round had a non-2xx answer, an error or a timeout: the numbers do not count. */
  valid: boolean;
  invalidReason?: string;
  /**
   * Median req/s ÷ the baselines' (null where a baseline was not measured). `jsonServer` is
   * json-server 0.17's, `jsonServer1` its 1.0 beta line's (absent from results older than it).
   */
  ratios: { koa: number | null; node: number | null; jsonServer: number | null; jsonServer1?: number | null };
  note?: string;
}

export interface TargetResult {
  /** The wording. */
  target: string;
  scenarioId: string;
  versus: string;
  /** Median over the rounds of (this scenario's req/s ÷ the baseline's req/s in the same round): decides `met`. */
  ratio: number | null;
  /** This scenario's median req/s ÷ the baseline's median req/s. */
  ratioOfMedians?: number | null;
  required: number;
  met: boolean | null;
  /**
   * Cross-check that other processes on the machine hardly disturb: the baseline's server CPU time
   * per request ÷ this scenario's (what the ratio would be if the server alone were the limit).
   */
  cpuRatio?: number | null;
  note?: string;
}

export interface MemoryResult {
  store: SiloKind;
  phase: string;
  request: string;
  connections: number;
  durationSec: number;
  siloBytes: number;
  /** RSS of the server when the load started (after seeding), bytes. */
  rssBefore: number | null;
  /** Peak RSS of the server during the load (VmHWM, reset just before), bytes. */
  peakRss: number | null;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  limitBytes: number;
  met: boolean | null;
}

export interface HttpBenchResults {
  schema: 1;
  generatedAt: string;
  command: string;
  mode: 'full' | 'quick' | 'custom';
  machine: MachineInfo & {
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
    /** 1-minute load average after each measured round. */
    loadAverageByRound: number[];
  };
  node: string;
  versions: Record<string, string>;
  commit: string | null;
  settings: { connections: number; pipelining: 1; rounds: number; roundSec: number; warmupSec: number; interleaved: true; memoryConnections: number; memorySec: number };
  scenarios: ScenarioResult[];
  targets: TargetResult[];
  memory: MemoryResult[];
  notRun: Array<{ what: string; reason: string }>;
  durationSeconds: number;
}
