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
import { call, type Answer, keptAliveAgent } from '../support/http-call.js';
import { attacks, DENSE, hammer, MiB, quantile, seedIsolationData, type IsolationData } from '../support/isolation.js';
import { startReadProbe, type ProbeResult } from '../support/read-probe.js';
import { sampleRss } from '../support/rss.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const RSS_LIMIT = 512 * MiB + 256 * MiB;
const TINY_P99_MS = 100;
const REFUSED_WITHIN_MS = 2000;
const PROBE_EVERY_MS = 50;

let dir: string;
let server: SiloServer | undefined;
let data: IsolationData;
let attack: ReturnType<typeof attacks>;

const p = (sorted: number[], q: number) => Math.round(quantile(sorted, q));

/** Runs `run` while the tiny read is probed from another process and the RSS sampled. */
async function underAttack(name: string, run: () => Promise<void>, probeHeaders?: Record<string, string>) {
  const port = server!.port;
  const probe = probeHeaders
    ? await startReadProbe(port, `/${data.bobs}`, PROBE_EVERY_MS, 'api.localhost', probeHeaders)
    : await startReadProbe(port, `/public/${data.tiny}`, PROBE_EVERY_MS);
  const rss = sampleRss(server!.child.pid!);
  const started = performance.now();
  try {
    await run();
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

/** underAttack, and no worker thread died or ran out of memory meanwhile (which may take the process with it). */
async function underAttackKeepingWorkers(name: string, run: () => Promise<void>) {
  await underAttack(name, run);
  expect(server!.outputAfterStart()).not.toMatch(/worker thread died|out of memory/i);
}

/** An answer that is the contract's `status` with a `detail`, within the time a refusal may take. */
function refused(answer: Answer, status: number, type?: string): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(answer.ms).toBeLessThan(REFUSED_WITHIN_MS);
  expect(answer.text.length).toBeLessThan(64 * 1024);
  if (type) expect(answer.json.detail.map((d: { type: string }) => d.type)).toContain(type);
}

describe('isolation: no request, key or account takes the server down or starves the others', () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-isolation-'));
    data = await seedIsolationData(dir);
    server = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0' });
    attack = attacks(server.port, data);
    // A new server's first worker starts with the first large body (a one-time cost, about a
    // second on a slow machine): started here, it is not counted against item 1's 2 s.
    expect((await attack.warmUp()).status).toBe(422);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('item 1: a patch or a create with five million bad items is a 422 of 101 items, not a crash', async () => {
    await underAttack('10 MB bodies of [1,1,...]', async () => {
      for (let round = 0; round < 2; round++) {
        const replace = await attack.replaceWithOnes();
        refused(replace, 422, 'too_many_errors');
        expect(replace.json.detail).toHaveLength(101);
        refused(await attack.createOnes(), 422, 'too_many_errors');
        refused(await attack.malformedOperations(), 422, 'too_many_errors');
      }
    });
  }, 120_000);

  it('item 2: thousands of moves on a 3.3 million element silo are refused before the work', async () => {
    await underAttack('moves on a dense 10 MB silo', async () => {
      // The first one parses the 9.9 MB silo on the worker; its verdict comes after.
      const costly = await attack.moves(1000);
      expect(costly.status, costly.text.slice(0, 300)).toBe(422);
      expect(costly.json.detail[0].type).toBe('patch_too_costly');
      refused(await attack.moves(10_000), 422, 'too_long');
    });
  }, 120_000);

  it('item 3: 22 copies of a value into itself answer 413 at once', async () => {
    await underAttack('a 1.4 KB patch of copies', async () => {
      for (let round = 0; round < 10; round++) refused(await attack.copies(), 413);
    });
  }, 120_000);

  it('item 11: a copy of a 3.3 million element array into itself is a 413, and no worker is lost', async () => {
    // Once is enough: before the fix the process died of the first one, 3 times out of 3.
    await underAttackKeepingWorkers('a copy of a dense array into itself', async () => {
      const answer = await attack.copyWhole();
      expect(answer.status, answer.text.slice(0, 300)).toBe(413);
      expect(answer.json.detail).toContain('10 MB');
    });
  }, 120_000);

  it('item 12: fields over a 3.3 million element silo answers, and no worker is lost', async () => {
    await underAttackKeepingWorkers('fields over a dense array', async () => {
      const answer = await attack.fieldsOfDense();
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      expect(answer.text.length).toBe(DENSE.length);
    });
  }, 120_000);

  it('item 13: a query of 2.3 million numbers kept as written (-0) answers, and no worker is lost', async () => {
    await underAttackKeepingWorkers('a query of a silo of -0', async () => {
      const answer = await attack.queryMinusZeros();
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      expect(answer.text).toBe('-0');
    });
  }, 120_000);

  it('item 5: 40 connections reading past versions of a 9.9 MB silo stay within the budget', async () => {
    const agent = keptAliveAgent(40);
    try {
      await underAttack('history reads', async () => {
        // Clients elsewhere read at their network's pace (here 4 MB/s each, 160 MB/s in all):
        // the server holds every answer meanwhile. Draining at loopback speed instead would
        // measure this machine's two cores copying 400 MB a second between two processes.
        const statuses = await hammer(40, 6000, (lane) => attack.history(agent, 1 + (lane % 2), 4 * MiB));
        expect([...statuses.keys()]).toEqual([200]);
      });
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it("item 6: one account's searches over a 10 MB silo leave another account's reads alone", async () => {
    const second = await call(server!.port, '/api/v1/manage/', {
      method: 'POST',
      headers: { 'X-MAN-API': data.alice.manage },
      body: { file_name: 'k', file_data: {} },
    });
    expect(second.status).toBe(201);
    const agent = keptAliveAgent(4);
    try {
      await underAttack(
        'searches with op=ne',
        async () => {
          const statuses = await hammer(4, 6000, () => attack.search(agent));
          // Served, or told to come back: never an error.
          expect([...statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
          expect(statuses.get(200)).toBeGreaterThan(0);
        },
        { 'X-SILO-KEY': data.bob.access },
      );
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it("item 10: one account's 9.9 MB full updates, two at a time, leave another account's reads alone", async () => {
    // Two silos of alice's to write (one per connection: writes to one silo take turns).
    const silos = await Promise.all(
      Array.from({ length: 2 }, async (_, i) => {
        const made = await call(server!.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': data.alice.manage }, body: { file_name: `rewrite ${i}`, file_data: [] } });
        expect(made.status).toBe(201);
        return made.json.file_uuid as string;
      }),
    );
    // Each stores 9.9 MB: SQLite's insert of it (20-50 ms) held the event loop before it moved to a thread of its own.
    // 12 s of it, 240 tiny reads: over 6 s (130 reads) the p99 was the second-worst read, and one
    // late wake-up of any process on the two shared cores decided the item.
    await underAttack('9.9 MB full updates', async () => {
      const statuses = await hammer(2, 12_000, (lane) => attack.rewrite(silos[lane]!));
      expect([...statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
      expect(statuses.get(200)).toBeGreaterThan(0);
    });
  }, 120_000);

  it('item 9: a 3.6 MB JSON Patch of a 9.9 MB silo on an idle server is applied, not a 503', async () => {
    const value = Array.from({ length: 60 }, (_, i) => ({ id: i, name: i === 0 ? 'first' : `blob ${i}`, blob: 'b'.repeat(60_000) }));
    const reply = await attack.patch(data.records, JSON.stringify([{ op: 'replace', path: '/file_data', value }]));
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
    expect(reply.json.version).toBe(3);
  }, 60_000);

  it('logged no error and is still whole', async () => {
    await sleep(100);
    expect(server!.alive()).toBe(true);
    const read = await call(server!.port, `/${data.records}?idx=0`, { headers: { 'X-SILO-KEY': data.alice.access } });
    expect(read.json).toMatchObject({ id: 0, name: 'first', blob: 'b'.repeat(60_000) });
    expect(server!.outputAfterStart()).not.toMatch(/"level":"error"|"level":50/);
  });
});
