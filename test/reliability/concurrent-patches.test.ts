/**
 * Concurrent JSON Patches (contract §10) on real `silo serve` processes sharing one store:
 *
 * - 200 concurrent `add /file_data/-` patches without If-Match, split over the processes: every
 *   one answers 200, the silo ends with exactly 200 new elements, each once, at version 201; the
 *   answers carry versions 2 to 201, each once, and taken in version order each answer's data is
 *   the previous one's plus its own element (the patches applied one after another);
 * - then 100 concurrent patches that all carry the current ETag in If-Match: exactly one 200
 *   (version 202, its element added), the 99 others 412, nothing else written.
 *
 * Stores: two processes on one Redis (database 15 of the test Redis, emptied before and after);
 * one process on SQLite; two processes on one SQLite data directory.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isContractError, type Answer, type Call, keptAliveAgent } from '../support/http-call.js';
import { postgresAvailable, testSchema, type TestSchema } from '../support/postgres.js';
import { clusterAvailable, clusterForSuite } from '../support/redis-cluster.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { redisAvailable } from '../support/redis.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const haveRedis = await redisAvailable();
const haveCluster = clusterAvailable();
const havePostgres = await postgresAvailable();
const DB = 15;
const APPENDS = 200;
const RIVALS = 100;
/** SILO_HISTORY_VERSIONS left at its default. */
const DEFAULT_HISTORY = 20;
const JSON_PATCH = 'application/json-patch+json';

function tally(replies: Answer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

/** The checks of this file against `count` servers that `start` starts on one store. */
function patchRaces(label: string, start: () => Promise<SiloServer[]>, before?: () => Promise<void>, after?: () => Promise<void>) {
  describe(label, () => {
    let servers: SiloServer[] = [];
    let agents: http.Agent[] = [];
    let keys: { manage: string; access: string };
    let uuid: string;
    let appended: unknown[] = [];
    const figures: string[] = [];

    /** A request to server `n % servers`. */
    const on = (n: number, path: string, options: Call = {}) =>
      call(servers[n % servers.length]!.port, path, { agent: agents[n % servers.length]!, timeoutMs: 60_000, ...options });
    const manage = (extra: Record<string, string> = {}) => ({ 'X-MAN-API': keys.manage, ...extra });

    beforeAll(async () => {
      await before?.();
      servers = await start();
      agents = servers.map(() => keptAliveAgent(128));
      const banners = servers.flatMap((s) => (s.banner ? [s.banner] : []));
      expect(banners, 'one first-start banner').toHaveLength(1);
      keys = banners[0]!;
    }, 60_000);

    afterAll(async () => {
      for (const agent of agents) agent.destroy();
      await Promise.all(servers.map((s) => s.stop()));
      for (const s of servers) expect(s.output(), 'a server logged an error').not.toMatch(/"level":"error"/);
      await after?.();
      if (figures.length > 0) console.log(`[reliability] concurrent patches, ${label}: ${figures.join('; ')}`);
    });

    it(`${APPENDS} concurrent appends without If-Match all apply, one after another`, async () => {
      const created = await on(0, '/api/v1/manage/', { method: 'POST', headers: manage(), body: { file_name: 'appends', file_data: [] } });
      expect(created.status, created.text).toBe(201);
      expect(created.json.version).toBe(1);
      uuid = created.json.file_uuid;
      const path = `/api/v1/manage/${uuid}`;

      const began = performance.now();
      const replies = await Promise.all(
        Array.from({ length: APPENDS }, (_, n) =>
          on(n, path, {
            method: 'PATCH',
            headers: manage({ 'content-type': JSON_PATCH }),
            body: [{ op: 'add', path: '/file_data/-', value: { i: n } }],
          }),
        ),
      );
      const ms = performance.now() - began;
      const odd = replies.filter((r) => r.status !== 200).slice(0, 3);
      expect(tally(replies), `answers other than 200, e.g. ${odd.map((r) => `${r.status} ${r.text}`).join(' | ')}`).toEqual({ 200: APPENDS });

      // Each answer is one version, 2 to 201, each once; in version order, each version's data is
      // the previous one's with the patch's own element added at the end.
      const byVersion = replies.map((r, n) => ({ n, version: r.json.version as number, data: r.json.file_data as unknown[], etag: r.headers.etag })).sort((a, b) => a.version - b.version);
      expect(byVersion.map((r) => r.version)).toEqual(Array.from({ length: APPENDS }, (_, i) => i + 2));
      expect(new Set(byVersion.map((r) => r.etag)).size, 'ETags of distinct versions').toBe(APPENDS);
      let previous: unknown[] = [];
      for (const r of byVersion) {
        expect(r.data, `version ${r.version} (patch ${r.n})`).toEqual([...previous, { i: r.n }]);
        previous = r.data;
      }

      // Every process sees the same silo: 200 new elements, each n once, version 201.
      for (let n = 0; n < servers.length; n++) {
        const got = await on(n, path, { headers: manage() });
        expect(got.status).toBe(200);
        const data = got.json.data as { i: number }[];
        expect(data).toHaveLength(APPENDS);
        expect(data.map((e) => e.i).sort((a, b) => a - b)).toEqual(Array.from({ length: APPENDS }, (_, i) => i));
        expect(data).toEqual(previous);
        const meta = await on(n, `/api/v1/manage/meta/${uuid}`, { headers: manage() });
        expect(meta.json.version).toBe(APPENDS + 1);
        expect(meta.headers.etag).toBe(got.headers.etag);
        expect(got.headers.etag).toBe(byVersion.at(-1)!.etag);
      }
      const history = await on(1, `${path}/versions`, { headers: manage() });
      expect(history.status).toBe(200);
      expect(history.json.metadata.total_items).toBe(DEFAULT_HISTORY);
      expect(history.json.versions[0].version).toBe(APPENDS + 1);
      appended = previous;
      figures.push(`${APPENDS} appends over ${servers.length} process(es) in ${Math.round(ms)} ms, all applied in one order (versions 2 to ${APPENDS + 1})`);
    }, 120_000);

    it(`${RIVALS} concurrent patches with the same If-Match: exactly one 200, the others 412`, async () => {
      expect(uuid, 'the append test created the silo').toBeDefined();
      const path = `/api/v1/manage/${uuid}`;
      const current = await on(1, path, { headers: manage() });
      expect(current.status).toBe(200);
      const etag = current.headers.etag as string;
      expect(etag).toMatch(/^"[^"]+"$/);

      const began = performance.now();
      const replies = await Promise.all(
        Array.from({ length: RIVALS }, (_, n) =>
          on(n, path, {
            method: 'PATCH',
            headers: manage({ 'content-type': JSON_PATCH, 'If-Match': etag }),
            body: [{ op: 'add', path: '/file_data/-', value: { rival: n } }],
          }),
        ),
      );
      const ms = performance.now() - began;
      const odd = replies.filter((r) => r.status !== 200 && r.status !== 412).slice(0, 3);
      expect(tally(replies), `answers, e.g. ${odd.map((r) => `${r.status} ${r.text}`).join(' | ')}`).toEqual({ 200: 1, 412: RIVALS - 1 });
      for (const r of replies) if (r.status === 412) expect(isContractError(r.json), r.text).toBe(true);
      const n = replies.findIndex((r) => r.status === 200);
      const winner = replies[n]!;
      expect(winner.json.version).toBe(APPENDS + 2);
      expect(winner.json.file_data).toEqual([...appended, { rival: n }]);

      for (let s = 0; s < servers.length; s++) {
        const got = await on(s, path, { headers: manage() });
        expect(got.json.data, 'the silo after the If-Match race').toEqual([...appended, { rival: n }]);
        expect(got.headers.etag).toBe(winner.headers.etag);
        const meta = await on(s, `/api/v1/manage/meta/${uuid}`, { headers: manage() });
        expect(meta.json.version).toBe(APPENDS + 2);
      }
      figures.push(`${RIVALS} patches with one If-Match in ${Math.round(ms)} ms: 1 applied (on process ${n % servers.length}), ${RIVALS - 1} answered 412`);
    }, 120_000);
  });
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-concurrent-patches-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!haveRedis)('concurrent patches on Redis', () => {
  const env = () => ({ SILO_STORE_URL: redisDbUrl(DB), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0' });
  patchRaces(
    'two processes on one Redis',
    async () => {
      const first = await startSiloServer(env());
      return [first, await startSiloServer(env())];
    },
    () => flushDb(DB),
    async () => {
      if (haveRedis) await flushDb(DB);
    },
  );
});

describe('concurrent patches on SQLite', () => {
  patchRaces('one process on SQLite', async () => [await startSiloServer({ SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0' })]);

  patchRaces('two processes on one SQLite data directory', async () => {
    const env = { SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0' };
    const first = await startSiloServer(env);
    return [first, await startSiloServer(env)];
  });
});

describe.skipIf(!havePostgres)('concurrent patches on PostgreSQL', () => {
  let schema: TestSchema | undefined;
  patchRaces(
    'two processes on one PostgreSQL database',
    async () => {
      schema = await testSchema('patches');
      const env = { SILO_STORE_URL: schema.storeUrl(), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0' };
      const first = await startSiloServer(env);
      return [first, await startSiloServer(env)];
    },
    undefined,
    async () => {
      await schema?.drop();
    },
  );
});

describe.skipIf(!haveCluster)('concurrent patches on Redis Cluster', () => {
  const cluster = clusterForSuite();
  patchRaces(
    'two processes on one Redis Cluster',
    async () => {
      const env = { SILO_STORE_URL: await cluster.open(), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0' };
      const first = await startSiloServer(env);
      return [first, await startSiloServer(env)];
    },
    undefined,
    cluster.close,
  );
});
