/**
 * The attacks of the isolation review (issue 22) against a `silo serve`, shared by the test
 * (test/reliability/isolation.test.ts, which asserts on each answer) and the benchmark
 * (benchmarks/isolation/, which measures the bystanders): the data they need, written straight
 * into a data directory through the service, and the requests themselves.
 */
import http from 'node:http';
import { accountWithKeys, type Account } from '../../packages/koa-silo/test/support/accounts.js';
import { loadConfig, openSilo, silentLogger } from '../../packages/silo-server/src/index.js';
import { call, type Answer } from './http-call.js';

export const MiB = 1024 * 1024;

/** `[{},{},...]` of 3.3 million elements (9.9 MB): the densest data, 213 MB of heap parsed. */
export const DENSE = `[${'{},'.repeat(3_300_000 - 1)}{}]`;
/** About 9.9 MB of records a catalogue would hold. */
export const RECORDS = JSON.stringify(
  Array.from({ length: 104_000 }, (_, i) => ({ id: i, name: `product ${i}`, price: i % 1000, tags: ['a', 'b'], note: 'x'.repeat(20) })),
);
/**
 * An update body with RECORDS as file_data (item 10), encoded once: the attacker's client runs
 * on the server's two cores here, and encoding 10 MB per request was its CPU, not the server's.
 */
const REWRITE_BODY = Buffer.from(`{"file_data":${RECORDS}}`);
/**
 * `{"a":[-0,-0,...]}` (7 MB): 2.3 million numbers kept as written (`-0` is not `0`), 140 MB of
 * heap parsed. Item 13: charged 18 MB, and parsed through placeholders at a peak of 450 MB, it
 * took the process down with its worker.
 */
export const MINUS_ZEROS = `{"a":[${'-0,'.repeat(2_333_000 - 1)}-0]}`;
/** `[1,1,...]` of 5 million ones (10 MB): five million problems for the validator. */
export const ONES = `[${'1,'.repeat(4_999_999)}1]`;

export interface IsolationData {
  alice: Account;
  bob: Account;
  /** alice's dense silo. */
  dense: string;
  /** alice's records, two versions. */
  records: string;
  /** alice's silo of MINUS_ZEROS. */
  minusZeros: string;
  /** bob's tiny public silo: the bystanders' read. */
  tiny: string;
  /** bob's tiny private silo. */
  bobs: string;
}

/** Writes the silos of the attacks into the SQLite data directory `dir` (no server running). */
export async function seedIsolationData(dir: string): Promise<IsolationData> {
  const config = loadConfig({ SILO_DATA_DIR: dir }, {}, dir);
  const { silo, stores } = await openSilo(config, silentLogger);
  try {
    const alice = await accountWithKeys(silo.accounts, 'alice');
    const bob = await accountWithKeys(silo.accounts, 'bob');
    const fields = (name: string, is_public = false) => ({ file_name: name, is_public, region_name: 'api' as const });
    const dense = (await silo.silos.createText(alice.name, fields('dense'), DENSE)).file_uuid;
    const records = (await silo.silos.createText(alice.name, fields('records'), RECORDS)).file_uuid;
    await silo.silos.updateText(alice.name, records, { file_name: 'records v2' }, RECORDS.replace('"product 0"', '"first"'));
    const minusZeros = (await silo.silos.createText(alice.name, fields('minus zeros'), MINUS_ZEROS)).file_uuid;
    const tiny = (await silo.silos.createText(bob.name, fields('tiny', true), '{"hello":"world"}')).file_uuid;
    const bobs = (await silo.silos.createText(bob.name, fields('bob private'), '[{"mine":true}]')).file_uuid;
    return { alice, bob, dense, records, minusZeros, tiny, bobs };
  } finally {
    await silo.close();
    await stores.close();
  }
}

/** The attacks' requests, on the server at `port`. */
export function attacks(port: number, data: IsolationData) {
  const { alice } = data;
  const patch = (uuid: string, body: string) =>
    call(port, `/api/v1/manage/${uuid}`, {
      method: 'PATCH',
      headers: { 'X-MAN-API': alice.manage, 'content-type': 'application/json-patch+json' },
      body,
      timeoutMs: 30_000,
    });
  const move = { op: 'move', from: '/file_data/0', path: '/file_data/1' };
  return {
    patch,
    /** Item 1: file_data replaced by five million non-objects. */
    replaceWithOnes: () => patch(data.records, `[{"op":"replace","path":"/file_data","value":${ONES}}]`),
    /**
     * A refused body just large enough for the worker pool (80 KB of `[1,1,...]`, a 422): its
     * first worker starts and loads its code here, so that no attack's time limit counts that.
     */
    warmUp: () => patch(data.records, `[{"op":"replace","path":"/file_data","value":[${'1,'.repeat(40_000)}1]}]`),
    /** Item 1: a create of five million non-objects. */
    createOnes: (): Promise<Answer> =>
      call(port, '/api/v1/manage/', {
        method: 'POST',
        headers: { 'X-MAN-API': alice.manage },
        body: `{"file_name":"ones","file_data":${ONES}}`,
        timeoutMs: 30_000,
      }),
    /** Item 1: a thousand malformed operations, two problems each. */
    malformedOperations: () => patch(data.records, JSON.stringify(Array.from({ length: 1000 }, () => ({ op: 'nope', path: 'x' })))),
    /** Item 2: moves that shift 3.3 million elements each, `count` of them. */
    moves: (count: number) => patch(data.dense, JSON.stringify(Array(count).fill(move))),
    /** Item 3: a value copied into itself 22 times (4 million nodes if cloned). */
    copies: () =>
      patch(
        data.records,
        JSON.stringify([
          { op: 'add', path: '/file_data/0/e', value: [] },
          ...Array.from({ length: 22 }, () => ({ op: 'copy', from: '/file_data/0/e', path: '/file_data/0/e/-' })),
          { op: 'add', path: '/file_data/0/e/-', value: 'x'.repeat(200) },
        ]),
      ),
    /**
     * Item 11: the dense silo's whole array copied into one of its elements, after an insert that
     * makes the patch own the array. Walking the result once remembered each of its 3.3 million
     * objects in a Map, whose growth failed the worker's heap so that V8 ended the whole process.
     */
    copyWhole: () =>
      patch(
        data.dense,
        JSON.stringify([
          { op: 'add', path: '/file_data/0', value: { a: 1 } },
          { op: 'copy', from: '/file_data', path: '/file_data/1/x' },
        ]),
      ),
    /** Item 12: `fields` over the dense silo: a new object per element, 3.3 million of them, had they been built at once. */
    fieldsOfDense: () =>
      call(port, `/${data.dense}?fields=a,b`, { headers: { 'X-SILO-KEY': alice.access }, timeoutMs: 30_000, parse: false }),
    /** Item 13: a query of the silo of minus zeros: its parse on a worker. */
    queryMinusZeros: () =>
      call(port, `/${data.minusZeros}?path=a.2332999`, { headers: { 'X-SILO-KEY': alice.access }, timeoutMs: 30_000 }),
    /** Item 5: a past version of the 9.9 MB silo, read at `bytesPerSecond`. */
    history: (agent: http.Agent, version: number, bytesPerSecond: number) =>
      drain(port, agent, `/api/v1/manage/${data.records}/versions/${version}`, { 'X-MAN-API': alice.manage }, bytesPerSecond),
    /** Item 10: the whole 9.9 MB of records written again (a full update of silo `uuid`), answered minimally. */
    rewrite: (uuid: string) =>
      call(port, `/api/v1/manage/${uuid}`, {
        method: 'PATCH',
        headers: { 'X-MAN-API': alice.manage, 'content-type': 'application/json', prefer: 'return=minimal' },
        body: REWRITE_BODY,
        timeoutMs: 30_000,
      }).then((answer) => answer.status),
    /** Item 6: a search matching nearly everything in the 9.9 MB silo. */
    search: (agent: http.Agent) => drain(port, agent, `/${data.records}?q=price&op=ne&value=5`, { 'X-SILO-KEY': alice.access }),
  };
}

/** GET `path`, reading (at most `bytesPerSecond`, as a client on a real network would) and discarding the answer: its status. */
export function drain(port: number, agent: http.Agent, path: string, headers: Record<string, string>, bytesPerSecond = Infinity): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, setHost: false, headers: { host: 'api.localhost', ...headers } }, (res) => {
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

/** Runs `one` on `concurrency` lanes until `ms` have passed; the statuses seen (0: an error). */
export async function hammer(concurrency: number, ms: number, one: (lane: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < until) {
        const status = await one(lane).catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

/** The value at quantile `q` of ascending `sorted`. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
