/**
 * The catalogue questions of issue 24 over HTTP: `silo serve` (SQLite, its query language) against
 * json-server 1.0 beta (its own filters, `_sort` and `_start`/`_limit`; beta.3, the last on Node
 * 20) on the same 10 000 items (benchmarks/http/data.ts), each server in its own process, loaded
 * by autocannon in interleaved rounds. Reported as req/s and the ratio Silo ÷ json-server per
 * round, with the server CPU per request from /proc beside it (which other processes on the two
 * cores hardly move). Part of `npm run bench -- query` (results/query-http.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call } from '../../test/support/http-call.js';
import { startSiloServer } from '../../test/support/silo-server.js';
import { machineInfo, median } from '../common.js';
import { readCpuMs, startChild } from '../http/children.js';
import { standardData } from '../http/data.js';
import { runLoad } from '../http/load.js';

const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));

interface Question {
  name: string;
  silo: string;
  jsonServer: string;
}

/** The questions, in each server's own words (category c7 holds about a tenth of the items). */
const QUESTIONS: Question[] = [
  {
    name: 'price over 100 in category c7',
    silo: `filter=${encodeURIComponent('price gt 100 and category eq "c7"')}`,
    jsonServer: 'price_gt=100&category=c7',
  },
  {
    name: '…sorted by price, the first 20',
    silo: `filter=${encodeURIComponent('price gt 100 and category eq "c7"')}&sort=price&limit=20`,
    jsonServer: 'price_gt=100&category=c7&_sort=price&_start=0&_limit=20',
  },
  {
    name: 'the 20 dearest of all 10 000',
    silo: 'sort=-price&limit=20',
    jsonServer: '_sort=-price&_start=0&_limit=20',
  },
];

interface Row {
  question: string;
  silo: number[];
  jsonServer: number[];
  ratio: number[];
  siloCpuUs: number[];
  jsonServerCpuUs: number[];
}

export async function runCatalogueOverHttp(options: { quick?: boolean; write?: boolean } = {}): Promise<Row[]> {
  const rounds = options.quick ? 1 : 3;
  const durationSec = options.quick ? 2 : 5;
  const items = standardData().items10k;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-catalogue-'));
  const silo = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0' });
  const jsonServer = await startChild<{ ready: true; pid: number; port: number }>('json-server-1', './baselines.ts', ['--kind=json-server-1']);
  try {
    const made = await call(silo.port, '/api/v1/manage/', {
      method: 'POST',
      headers: { 'X-MAN-API': silo.banner!.manage },
      body: { file_name: 'catalogue', file_data: items },
    });
    if (made.status !== 201) throw new Error(`create: ${made.status} ${made.text.slice(0, 200)}`);
    const uuid = made.json.file_uuid as string;
    const headers = { 'X-SILO-KEY': silo.banner!.access, host: 'api.localhost' };
    const rows: Row[] = [];
    for (const q of QUESTIONS) {
      const siloUrl = `http://127.0.0.1:${silo.port}/${uuid}?${q.silo}`;
      const jsonUrl = `http://127.0.0.1:${jsonServer.ready.port}/items?${q.jsonServer}`;
      // Both answer the same items (json-server writes ids as strings, and pretty-prints).
      const a = (await call(silo.port, `/${uuid}?${q.silo}`, { headers })).json as { name: string }[];
      const b = (await (await fetch(jsonUrl)).json()) as { name: string }[];
      if (a.length !== b.length || a[0]?.name !== b[0]?.name) throw new Error(`${q.name}: the servers disagree (${a.length} vs ${b.length})`);
      const row: Row = { question: q.name, silo: [], jsonServer: [], ratio: [], siloCpuUs: [], jsonServerCpuUs: [] };
      for (let round = 0; round < rounds; round++) {
        const measure = async (url: string, pid: number, h?: Record<string, string>) => {
          const before = readCpuMs(pid) ?? Number.NaN;
          const result = await runLoad({ url, ...(h ? { headers: h } : {}) }, { connections: 10, durationSec });
          const cpu = ((readCpuMs(pid) ?? Number.NaN) - before) * 1000;
          if (result.non2xx > 0 || result.errors > 0) throw new Error(`${q.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          return { reqPerSec: result.reqPerSec, cpuUs: cpu / result.responses };
        };
        const s = await measure(siloUrl, silo.child.pid!, headers);
        const j = await measure(jsonUrl, jsonServer.pid);
        row.silo.push(s.reqPerSec);
        row.jsonServer.push(j.reqPerSec);
        row.ratio.push(s.reqPerSec / j.reqPerSec);
        row.siloCpuUs.push(s.cpuUs);
        row.jsonServerCpuUs.push(j.cpuUs);
      }
      console.log(
        `${q.name}: silo ${median(row.silo).toFixed(0)} req/s (${median(row.siloCpuUs).toFixed(0)} µs CPU), ` +
          `json-server 1.0 ${median(row.jsonServer).toFixed(0)} req/s (${median(row.jsonServerCpuUs).toFixed(0)} µs CPU): ${median(row.ratio).toFixed(1)}×`,
      );
      rows.push(row);
    }
    if (options.write !== false) write(rows, rounds, durationSec, options.quick ?? false);
    return rows;
  } finally {
    await jsonServer.stop();
    await silo.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function write(rows: Row[], rounds: number, durationSec: number, quick: boolean): void {
  const machine = machineInfo();
  const range = (v: number[], digits = 0) => (v.length > 1 ? ` (${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)})` : '');
  const lines = [
    '# The catalogue questions over HTTP: silo serve against json-server 1.0 beta',
    '',
    `${new Date().toISOString()}, ${machine.cpuModel}, ${machine.cores} cores, Node ${process.version}${quick ? ', quick' : ''}. ` +
      `10 000 items, 10 connections, ${rounds} interleaved round(s) of ${durationSec} s per server; medians, with the range. ` +
      'Server CPU per request from /proc. Goal: Silo ≥ 5× json-server 1.0.',
    '',
    '| question | silo serve req/s | json-server 1.0 req/s | ratio | silo CPU µs/req | json-server CPU µs/req |',
    '|---|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r) =>
        `| ${r.question} | ${median(r.silo).toFixed(0)}${range(r.silo)} | ${median(r.jsonServer).toFixed(0)}${range(r.jsonServer)} | ` +
        `${median(r.ratio).toFixed(1)}×${range(r.ratio, 1)} | ${median(r.siloCpuUs).toFixed(0)} | ${median(r.jsonServerCpuUs).toFixed(0)} |`,
    ),
    '',
  ];
  fs.writeFileSync(path.join(RESULTS, 'query-http.md'), `${lines.join('\n')}\n`);
}
