/**
 * Isolation (issue 22, items 1-3, 5 and 6): the attacks of a hostile review, each against a real
 * `silo serve` on SQLite with its default memory budget (512 MiB), while a separate process reads
 * a tiny silo every 50 ms. Before the worker pool, one PATCH killed the process (a 262 MB 422, then
 * out of memory), 1000 moves froze it for seconds, a 1.4 KB patch of copies for 42 s, history
 * reads took 3 GB, and one account's searches made another's reads 100 times slower.
 *
 * Now each refused attack answers its 4xx within 2 s, work proportional to a silo's size runs on
 * the worker thread, and the tiny reads' p99 stays under 100 ms; the process survives and its RSS
 * stays under the budget + 256 MiB.
 *
 * The 10 MB silos are written straight into the data directory through the service, so that the
 * setup takes seconds; the server is started on it afterwards.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeys, type Account } from '../../packages/koa-silo/test/support/accounts.js';
import { loadConfig, openSilo, silentLogger } from '../../packages/silo-server/src/index.js';
import { call, type Answer } from '../support/http-call.js';
import { startReadProbe, type ProbeResult } from '../support/read-probe.js';
import { sampleRss } from '../support/rss.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const MiB = 1024 * 1024;
const RSS_LIMIT = 512 * MiB + 256 * MiB;
const TINY_P99_MS = 100;
const REFUSED_WITHIN_MS = 2000;
const PROBE_EVERY_MS = 50;

/** `[{},{},...]` of 3.3 million elements (9.9 MB): the densest data, 213 MB of heap parsed. */
const DENSE = `[${'{},'.repeat(3_300_000 - 1)}{}]`;
/** About 9.9 MB of records a catalogue would hold. */
const RECORDS = JSON.stringify(
  Array.from({ length: 104_000 }, (_, i) => ({ id: i, name: `product ${i}`, price: i % 1000, tags: ['a', 'b'], note: 'x'.repeat(20) })),
);
/** `[1,1,...]` of 5 million ones (10 MB): five million problems for the validator. */
const ONES = `[${'1,'.repeat(4_999_999)}1]`;

let dir: string;
let server: SiloServer | undefined;
let alice: Account;
let bob: Account;
let dense: string;
let records: string;
let tiny: string;
let bobs: string;

const p = (sorted: number[], q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);

/** Runs `attack` while the tiny read is probed from another process and the RSS sampled. */
async function underAttack(name: string, attack: () => Promise<void>, probeHeaders?: Record<string, string>) {
  const port = server!.port;
  const probe = probeHeaders
    ? await startReadProbe(port, `/${bobs}`, PROBE_EVERY_MS, 'api.localhost', probeHeaders)
    : await startReadProbe(port, `/public/${tiny}`, PROBE_EVERY_MS);
  const rss = sampleRss(server!.child.pid!);
  const started = performance.now();
  try {
    await attack();
  } finally {
    const result: ProbeResult = await probe.stop();
    const { peak } = rss.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `[reliability] isolation, ${name} (${seconds} s): tiny reads ${result.latencies.length}, p50 ${p(result.latencies, 0.5)} ms, ` +
        `p99 ${p(result.latencies, 0.99)} ms, max ${Math.round(result.latencies.at(-1) ?? NaN)} ms, failures ${result.failures.length}; peak RSS ${Math.round(peak / MiB)} MiB`,
    );
    expect(server!.alive(), server!.outputAfterStart().slice(-2000)).toBe(true);
    expect(result.failures).toEqual([]);
    expect(result.latencies.length).toBeGreaterThan(10);
    expect(p(result.latencies, 0.99)).toBeLessThan(TINY_P99_MS);
    expect(peak).toBeLessThan(RSS_LIMIT);
  }
}

const patch = (uuid: string, body: string, type = 'application/json-patch+json') =>
  call(server!.port, `/api/v1/manage/${uuid}`, {
    method: 'PATCH',
    headers: { 'X-MAN-API': alice.manage, 'content-type': type },
    body,
    timeoutMs: 30_000,
  });

/** An answer that is the contract's `status` with a `detail`, within the time a refusal may take. */
function refused(answer: Answer, status: number, type?: string): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(answer.ms).toBeLessThan(REFUSED_WITHIN_MS);
  expect(answer.text.length).toBeLessThan(64 * 1024);
  if (type) expect(answer.json.detail.map((d: { type: string }) => d.type)).toContain(type);
}

/** Runs `one` with `concurrency` workers until `ms` have passed; returns the statuses seen. */
async function hammer(concurrency: number, ms: number, one: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      while (performance.now() < until) {
        const status = await one(i).catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

/** GET `path` with `headers`, reading (at most `bytesPerSecond`) and discarding the answer: its status. */
function drain(agent: http.Agent, path: string, headers: Record<string, string>, bytesPerSecond = Infinity): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server!.port, path, agent, setHost: false, headers: { host: 'api.localhost', ...headers } }, (res) => {
      const started = performance.now();
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        const ahead = (received / bytesPerSecond) * 1000 - (performance.now() - started);
        if (ahead > 0) {
          res.pause();
          setTimeout(() => res.resume(), ahead);
        }
      });
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
  });
}

describe('isolation: no request, key or account takes the server down or starves the others', () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-isolation-'));
    const config = loadConfig({ SILO_DATA_DIR: dir }, {}, dir);
    const { silo, stores } = await openSilo(config, silentLogger);
    try {
      alice = await accountWithKeys(silo.accounts, 'alice');
      bob = await accountWithKeys(silo.accounts, 'bob');
      const fields = (name: string, is_public = false) => ({ file_name: name, is_public, region_name: 'api' as const });
      dense = (await silo.silos.createText(alice.name, fields('dense'), DENSE)).file_uuid;
      records = (await silo.silos.createText(alice.name, fields('records'), RECORDS)).file_uuid;
      await silo.silos.updateText(alice.name, records, { file_name: 'records v2' }, RECORDS.replace('"product 0"', '"first"'));
      tiny = (await silo.silos.createText(bob.name, fields('tiny', true), '{"hello":"world"}')).file_uuid;
      bobs = (await silo.silos.createText(bob.name, fields('bob private'), '[{"mine":true}]')).file_uuid;
    } finally {
      await silo.close();
      await stores.close();
    }
    server = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('item 1: a patch or a create with five million bad items is a 422 of 101 items, not a crash', async () => {
    await underAttack('10 MB bodies of [1,1,...]', async () => {
      for (let round = 0; round < 2; round++) {
        const replace = await patch(records, `[{"op":"replace","path":"/file_data","value":${ONES}}]`);
        refused(replace, 422, 'too_many_errors');
        expect(replace.json.detail).toHaveLength(101);
        const create = await call(server!.port, '/api/v1/manage/', {
          method: 'POST',
          headers: { 'X-MAN-API': alice.manage },
          body: `{"file_name":"ones","file_data":${ONES}}`,
          timeoutMs: 30_000,
        });
        refused(create, 422, 'too_many_errors');
        const bad = await patch(records, JSON.stringify(Array.from({ length: 1000 }, () => ({ op: 'nope', path: 'x' }))));
        refused(bad, 422, 'too_many_errors');
      }
    });
  }, 120_000);

  it('item 2: thousands of moves on a 3.3 million element silo are refused before the work', async () => {
    await underAttack('moves on a dense 10 MB silo', async () => {
      const move = { op: 'move', from: '/file_data/0', path: '/file_data/1' };
      // The first one parses the 9.9 MB silo on the worker; its verdict comes after.
      const costly = await patch(dense, JSON.stringify(Array(1000).fill(move)));
      expect(costly.status, costly.text.slice(0, 300)).toBe(422);
      expect(costly.json.detail[0].type).toBe('patch_too_costly');
      refused(await patch(dense, JSON.stringify(Array(10_000).fill(move))), 422, 'too_long');
    });
  }, 120_000);

  it('item 3: 22 copies of a value into itself answer 413 at once', async () => {
    await underAttack('a 1.4 KB patch of copies', async () => {
      const copies = [
        { op: 'add', path: '/file_data/0/e', value: [] },
        ...Array.from({ length: 22 }, () => ({ op: 'copy', from: '/file_data/0/e', path: '/file_data/0/e/-' })),
        { op: 'add', path: '/file_data/0/e/-', value: 'x'.repeat(200) },
      ];
      for (let round = 0; round < 10; round++) refused(await patch(records, JSON.stringify(copies)), 413);
    });
  }, 120_000);

  it('item 5: 40 connections reading past versions of a 9.9 MB silo stay within the budget', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    try {
      await underAttack('history reads', async () => {
        // Clients elsewhere read at their network's pace (here 4 MB/s each, 160 MB/s in all):
        // the server holds every answer meanwhile. Draining at loopback speed instead would
        // measure this machine's two cores copying 400 MB a second between two processes.
        const statuses = await hammer(40, 6000, (i) =>
          drain(agent, `/api/v1/manage/${records}/versions/${1 + (i % 2)}`, { 'X-MAN-API': alice.manage }, 4 * MiB),
        );
        expect([...statuses.keys()]).toEqual([200]);
      });
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it("item 6: one account's searches over a 10 MB silo leave another account's reads alone", async () => {
    const second = await call(server!.port, '/api/v1/manage/', {
      method: 'POST',
      headers: { 'X-MAN-API': alice.manage },
      body: { file_name: 'k', file_data: {} },
    });
    expect(second.status).toBe(201);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      await underAttack(
        'searches with op=ne',
        async () => {
          const statuses = await hammer(4, 6000, () =>
            drain(agent, `/${records}?q=price&op=ne&value=5`, { 'X-SILO-KEY': alice.access }),
          );
          // Served, or told to come back: never an error.
          expect([...statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
          expect(statuses.get(200)).toBeGreaterThan(0);
        },
        { 'X-SILO-KEY': bob.access },
      );
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it('item 9: a 3.6 MB JSON Patch of a 9.9 MB silo on an idle server is applied, not a 503', async () => {
    const value = Array.from({ length: 60 }, (_, i) => ({ id: i, name: i === 0 ? 'first' : `blob ${i}`, blob: 'b'.repeat(60_000) }));
    const reply = await patch(records, JSON.stringify([{ op: 'replace', path: '/file_data', value }]));
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
    expect(reply.json.version).toBe(3);
  }, 60_000);

  it('logged no error and is still whole', async () => {
    await sleep(100);
    expect(server!.alive()).toBe(true);
    const read = await call(server!.port, `/${records}?idx=0`, { headers: { 'X-SILO-KEY': alice.access } });
    expect(read.json).toMatchObject({ id: 0, name: 'first', blob: 'b'.repeat(60_000) });
    expect(server!.outputAfterStart()).not.toMatch(/"level":"error"|"level":50/);
  });
});
