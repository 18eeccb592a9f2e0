/**
 * What metrics and the audit log cost (issue 28: under 5 % CPU per request on the 1 KB read and
 * the 1 KB PATCH): one server `with` both (metrics on and scraped every 5 s; every write commits
 * its audit entry) and one `without` (metrics off; the audit log's records stripped from the
 * store's batches), the same build, the same SQLite store kind, loaded in turn, round by round
 * (the order alternates), with autocannon. Reported per scenario: the server's CPU per response
 * (from /proc: it hardly moves when the load generator competes for the cores) and req/s, medians
 * over rounds, and the paired ratio with ÷ without (median, with its range).
 *
 *   npx tsc -b && node --import tsx benchmarks/ops/cost.ts [--rounds=9] [--round-sec=3] [--connections=16] [--with=metrics-only|audit-only] [--only=read|patch] [--audit-layout=rows|records]
 *
 * `--only` runs one of the two scenarios (the audit log costs the PATCH alone: reads write no
 * entry); `--audit-layout=records` has both servers write entries as stores without an audit log
 * of their own do (a record and three sorted-index entries), the layout SQLite had before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from '../common.js';
import { readCpuMs, startChild, type Child } from '../http/children.js';
import { makeDocument } from '../http/data.js';
import { runLoad, type LoadRequest } from '../http/load.js';

interface Ready {
  ready: true;
  pid: number;
  port: number;
  keys: { manage: string; access: string };
  read: string;
  patch: string[];
  bytes: number;
}

const arg = (name: string, fallback: number) => Number(process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const ROUNDS = arg('rounds', 9);
const ROUND_SEC = arg('round-sec', 3);
const CONNECTIONS = arg('connections', 16);
/** `--with=metrics-only|audit-only`: one of the two alone instead of both (which of them costs what). */
const WITH = (process.argv.slice(2).find((a) => a.startsWith('--with='))?.slice(7) ?? 'with') as 'with' | 'metrics-only' | 'audit-only';
/** `--only=read|patch`: that scenario alone. */
const ONLY = process.argv.slice(2).find((a) => a.startsWith('--only='))?.slice(7);
if (ONLY !== undefined && ONLY !== 'read' && ONLY !== 'patch') throw new Error('--only=read|patch');
const LAYOUT = process.argv.slice(2).find((a) => a.startsWith('--audit-layout='))?.slice(15) ?? 'rows';
if (LAYOUT !== 'rows' && LAYOUT !== 'records') throw new Error('--audit-layout=rows|records');

const scenarios: Record<string, (r: Ready) => LoadRequest> = {
  '1 KB read (GET /<uuid>, access key)': (r) => ({ url: `http://127.0.0.1:${r.port}/${r.read}`, headers: { 'x-silo-key': r.keys.access } }),
  '1 KB PATCH (application/json, new file_data)': (r) => ({
    url: Array.from({ length: CONNECTIONS }, (_, i) => `http://127.0.0.1:${r.port}/api/v1/manage/${r.patch[i % r.patch.length]}`),
    method: 'PATCH',
    headers: { 'x-man-api': r.keys.manage, 'content-type': 'application/json' },
    body: JSON.stringify({ file_data: makeDocument(1024, 99) }),
  }),
};

async function round(child: Child<Ready>, request: LoadRequest): Promise<{ cpuUs: number; rate: number; non2xx: number }> {
  const before = readCpuMs(child.pid)!;
  const result = await runLoad(request, { connections: CONNECTIONS, durationSec: ROUND_SEC });
  const after = readCpuMs(child.pid)!;
  return { cpuUs: ((after - before) * 1000) / Math.max(1, result.responses), rate: result.reqPerSec, non2xx: result.non2xx + result.errors };
}

const dirs: string[] = [];
const sides: Record<'with' | 'without', Child<Ready>> = {} as never;
try {
  for (const variant of ['with', 'without'] as const) {
    const dir = mkdtempSync(path.join(os.tmpdir(), `silo-ops-${variant}-`));
    dirs.push(dir);
    sides[variant] = await startChild<Ready>(variant, '../ops/server.ts', [`--variant=${variant === 'with' ? WITH : variant}`, `--data-dir=${dir}`, `--patch-silos=${CONNECTIONS}`, `--audit-layout=${LAYOUT}`]);
  }
  console.log(`${WITH === 'with' ? 'metrics and audit' : WITH} cost (audit entries as ${LAYOUT}): ${ROUNDS} rounds of ${ROUND_SEC} s per side, ${CONNECTIONS} connections, SQLite, ${os.cpus().length} cores, Node ${process.version}`);
  for (const [name, make] of Object.entries(scenarios)) {
    if (ONLY !== undefined && !name.toLowerCase().includes(ONLY)) continue;
    const requests = { with: make(sides.with.ready), without: make(sides.without.ready) };
    // Warm-up of both sides.
    for (const v of ['with', 'without'] as const) await runLoad(requests[v], { connections: CONNECTIONS, durationSec: 2 });
    const got: Record<'with' | 'without', { cpuUs: number; rate: number }[]> = { with: [], without: [] };
    const ratios: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      const pair: Partial<Record<'with' | 'without', number>> = {};
      for (const v of order) {
        const r = await round(sides[v], requests[v]);
        if (r.non2xx > 0) throw new Error(`${name} (${v}): ${r.non2xx} failed responses`);
        got[v].push(r);
        pair[v] = r.cpuUs;
      }
      ratios.push(pair.with! / pair.without!);
    }
    const cpu = (v: 'with' | 'without') => median(got[v].map((r) => r.cpuUs));
    const rate = (v: 'with' | 'without') => median(got[v].map((r) => r.rate));
    const sorted = [...ratios].sort((a, b) => a - b);
    const pct = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)} %`;
    console.log(
      `${name}: CPU per response ${cpu('with').toFixed(1)} µs with, ${cpu('without').toFixed(1)} µs without: ${pct(median(ratios))} [${pct(sorted[0]!)} to ${pct(sorted.at(-1)!)}]; ` +
        `req/s ${rate('with').toFixed(0)} with, ${rate('without').toFixed(0)} without (${pct(rate('with') / rate('without'))})`,
    );
  }
} finally {
  await Promise.all(Object.values(sides).map((s) => s.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
