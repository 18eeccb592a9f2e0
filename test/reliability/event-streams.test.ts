/**
 * The review's change-feed attack as a test, against a real `silo serve` on SQLite: a public
 * 9.9 MB silo with 20 versions, the first holding a token its owner then overwrote, and anyone,
 * without a key, opening `GET /public/<uuid>/events?since=1&data=1` (the replay of 19 versions
 * with data): 20 streams from one address, then 100 from 5 (X-Forwarded-For, the server trusting
 * its proxy), a fifth of them with `since=0`. Before, 20 such streams took RSS to 790 MB and tiny
 * reads to a p99 of 14.6 s, 100 timed every tiny read out, and the streams got nothing (the 10 MB
 * event was dropped for its size).
 *
 * Now: every stream gets the whole current version's data (and the metadata of the versions
 * before it), no byte of any public stream holds the overwritten token, the server's RSS stays
 * under its 512 MiB budget plus 256 MiB, and a tiny public read of another silo, fired every
 * 50 ms from another process (test/support/read-probe.ts), answers within 250 ms at the 99th
 * percentile (the goal is 100 ms; the figures are printed).
 *
 * The silos are written straight into the data directory through the service, then the server is
 * started on it.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeys } from '../../packages/koa-silo/test/support/accounts.js';
import { loadConfig, openSilo, silentLogger } from '../../packages/silo-server/src/index.js';
import { startReadProbe } from '../support/read-probe.js';
import { sampleRss } from '../support/rss.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const SECRET = 'LEAKED-SECRET-123';
const VERSIONS = 20;
const TEXT_BYTES = 9_900_000;
const PROBE_EVERY_MS = 50;
const P99_LIMIT_MS = 100;
const RSS_LIMIT = (512 + 256) * 1024 * 1024;
/** Clients open their streams again and again for this long. */
const LOAD_MS = 8000;
/** Every stream has its data within this long of its start. */
const STREAM_MS = 20_000;

/** Version `n`'s data: the leaked token in version 1, a rotated one after; ~TEXT_BYTES of JSON. */
const textOf = (n: number) => {
  const head = JSON.stringify({ api_token: n === 1 ? SECRET : 'rotated', n, pad: '' }).slice(0, -2);
  return `${head}${'x'.repeat(TEXT_BYTES - head.length - 2)}"}`;
};

interface Outcome {
  status: number;
  bytes: number;
  /** The event of the last version arrived whole. */
  complete: boolean;
  /** The overwritten token appeared in the stream's bytes. */
  leaked: boolean;
  /** The whole body, when asked to keep it. */
  body?: Buffer;
}

interface Watched {
  done: Promise<Outcome>;
  close(): void;
}

/**
 * A stream read as it comes without keeping it (100 streams of 10 MB): its bytes counted, searched
 * for the token (across chunk boundaries too), complete once the event with id `VERSIONS` has ended.
 */
function watch(port: number, streamPath: string, forwardedFor: string, keep: boolean): Watched {
  const token = Buffer.from(SECRET);
  const marker = Buffer.from(`id: ${VERSIONS}\n`);
  let req: http.ClientRequest | undefined;
  const done = new Promise<Outcome>((resolve) => {
    const outcome: Outcome = { status: 0, bytes: 0, complete: false, leaked: false };
    const kept: Buffer[] = [];
    let carry = Buffer.alloc(0);
    let marked = false;
    const finish = () => resolve(keep ? { ...outcome, body: Buffer.concat(kept) } : outcome);
    const timer = setTimeout(() => req?.destroy(), STREAM_MS);
    req = http.get(
      { host: '127.0.0.1', port, path: streamPath, agent: false, setHost: false, headers: { host: 'api.localhost', 'x-forwarded-for': forwardedFor, accept: 'text/event-stream' } },
      (res) => {
        outcome.status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => {
          outcome.bytes += chunk.length;
          if (keep) kept.push(chunk);
          const seam = Buffer.concat([carry, chunk.subarray(0, 64)]);
          if (chunk.includes(token) || seam.includes(token)) outcome.leaked = true;
          if (!marked) marked = chunk.includes(marker) || seam.includes(marker);
          carry = Buffer.concat([carry, chunk.subarray(-64)]).subarray(-64);
          // The last event's data is one line: the first blank line after its id ends it, and nothing follows.
          if (marked && carry.subarray(-3).toString() === '}\n\n') {
            outcome.complete = true;
            clearTimeout(timer);
            finish();
          }
        });
        res.on('close', () => {
          clearTimeout(timer);
          finish();
        });
      },
    );
    req.on('error', () => finish());
  });
  return { done, close: () => req?.destroy() };
}

/** The events of a kept body: [event, id, data parsed]. */
function eventsOf(body: Buffer): [string, string, Record<string, unknown>][] {
  return body
    .toString('utf8')
    .split('\n\n')
    .filter((block) => block.startsWith('event:'))
    .map((block) => {
      const field = (name: string) => /^(\w+): ?(.*)$/m.exec(block.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[2] ?? '';
      return [field('event'), field('id'), JSON.parse(field('data')) as Record<string, unknown>];
    });
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

describe('the public change feed of a large silo under many streams', () => {
  let dir: string;
  let server: SiloServer | undefined;
  let big: string;
  let tiny: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-event-streams-'));
    const config = loadConfig({ SILO_DATA_DIR: dir }, {}, dir);
    const { silo, stores } = await openSilo(config, silentLogger);
    try {
      const owner = await accountWithKeys(silo.accounts, 'owner');
      big = (await silo.silos.createText(owner.name, { file_name: 'big', is_public: true, region_name: 'api' }, textOf(1))).file_uuid;
      for (let n = 2; n <= VERSIONS; n++) await silo.silos.updateText(owner.name, big, {}, textOf(n));
      tiny = (await silo.silos.createText(owner.name, { file_name: 'tiny', is_public: true, region_name: 'api' }, '{"hello":"world"}')).file_uuid;
    } finally {
      await silo.close();
      await stores.close();
    }
    server = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_TRUST_PROXY: 'true' });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * `count` clients from `addresses` addresses (20 each, the per-client limit; the last address's
   * with since=0), each opening its stream again as soon as it has its data, for LOAD_MS.
   */
  async function phase(count: number, addresses: number) {
    const port = server!.port;
    const rss = sampleRss(server!.child.pid!);
    const probe = await startReadProbe(port, `/public/${tiny}`, PROBE_EVERY_MS);
    await sleep(200);
    const started = performance.now();
    const open = new Set<Watched>();
    let refused = 0;
    const client = async (i: number): Promise<Outcome[]> => {
      const address = i % addresses;
      const since = addresses > 1 && address === addresses - 1 ? 0 : 1;
      const outcomes: Outcome[] = [];
      do {
        const stream = watch(port, `/public/${big}/events?since=${since}&data=1`, `198.51.100.${address + 1}`, i === 0 && outcomes.length === 0);
        open.add(stream);
        const outcome = await stream.done;
        stream.close();
        open.delete(stream);
        // Its slot among the address's 20 is free again once the server has seen the close.
        if (outcome.status === 429) {
          refused++;
          await sleep(50);
          continue;
        }
        outcomes.push(outcome);
      } while (performance.now() - started < LOAD_MS && (outcomes.at(-1)?.complete ?? true));
      return outcomes;
    };
    const outcomes = (await Promise.all(Array.from({ length: count }, (_, i) => client(i)))).flat();
    const seconds = (performance.now() - started) / 1000;
    await sleep(200);
    const { latencies, failures } = await probe.stop();
    for (const stream of open) stream.close();
    const { peak } = rss.stop();
    await sleep(300);

    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const megabytes = outcomes.reduce((n, o) => n + o.bytes, 0) / 1e6;
    console.log(
      `[reliability] event streams: ${count} clients of /public/<uuid>/events?since=1&data=1 (a ${TEXT_BYTES / 1e6} MB silo, ${VERSIONS} versions) from ${addresses} address(es), reopening for ${LOAD_MS / 1000} s: ` +
        `${outcomes.filter((o) => o.complete).length}/${outcomes.length} streams complete in ${seconds.toFixed(1)} s (${Math.round(megabytes)} MB sent, ${refused} reopenings refused with 429 meanwhile); ` +
        `peak RSS ${Math.round(peak / 2 ** 20)} MiB; ${latencies.length} tiny reads every ${PROBE_EVERY_MS} ms: ` +
        `p50 ${Math.round(p50)} ms, p99 ${Math.round(p99)} ms, max ${Math.round(latencies.at(-1) ?? NaN)} ms`,
    );

    expect(server!.alive(), server!.outputAfterStart().slice(-2000)).toBe(true);
    // (Summaries: a failing comparison must not print 10 MB bodies.)
    const summaries = outcomes.map(({ status, bytes, complete, leaked }, i) => ({ i, status, bytes, complete, leaked }));
    expect(summaries.filter((o) => o.status !== 200 || !o.complete)).toEqual([]);
    expect(summaries.filter((o) => o.leaked)).toEqual([]);
    expect(failures).toEqual([]);
    expect(p99).toBeLessThan(P99_LIMIT_MS);
    expect(peak).toBeLessThan(RSS_LIMIT);

    // One stream read whole: the metadata of versions 2..19, then version 20 with its data.
    const events = eventsOf(outcomes[0]!.body!);
    expect(events.map(([event, id]) => [event, id])).toEqual(Array.from({ length: VERSIONS - 1 }, (_, i) => ['update', String(i + 2)]));
    expect(events.slice(0, -1).filter(([, , data]) => 'file_data' in data)).toEqual([]);
    const last = events.at(-1)![2] as { version: number; file_data: { api_token: string; n: number; pad: string } };
    expect(last.version).toBe(VERSIONS);
    expect(last.file_data.api_token).toBe('rotated');
    expect(last.file_data.n).toBe(VERSIONS);
    expect(JSON.stringify(last.file_data)).toBe(textOf(VERSIONS));
  }

  it('serves 20 streams from one address whole, without the old token, while tiny reads stay fast', async () => {
    await phase(20, 1);
  }, 60_000);

  it('serves 100 streams from 5 addresses the same way', async () => {
    await phase(100, 5);
    expect(server!.outputAfterStart()).not.toMatch(/"level":"error"/);
  }, 60_000);
});
