/**
 * Concurrent writers on two `silo serve` processes sharing one Redis (database 12 of the test
 * Redis, emptied before and after), then one PostgreSQL database (a schema of this run): If-Match lets exactly one of many writers with the same ETag
 * through; without it, the stored silo is always exactly one writer's body (name, flags, region
 * and data together), never a mix; concurrent creates on both processes all reach the listing.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isContractError, type Answer, keptAliveAgent } from '../support/http-call.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { postgresAvailable, testSchema, type TestSchema } from '../support/postgres.js';
import { clusterAvailable, clusterForSuite } from '../support/redis-cluster.js';
import { redisAvailable } from '../support/redis.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const haveRedis = await redisAvailable();
const haveCluster = clusterAvailable();
const havePostgres = await postgresAvailable();
const DB = 12;
const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
const HOST: Record<(typeof REGIONS)[number], string> = {
  api: 'api.localhost',
  'sg-01-api': 'sg-01-api.localhost',
  'usc-01-api': 'usc-01-api.localhost',
};

/** The races on two processes sharing one store: `open` empties it and names it, `close` cleans up. */
function conditionalWrites(store: string, skip: boolean, open: () => Promise<string>, close: () => Promise<void>) {
  describe.skipIf(skip)(`conditional and concurrent writes, two processes on one ${store}`, () => {
    const servers: SiloServer[] = [];
    const agents = [keptAliveAgent(64), keptAliveAgent(64)];
    let owner: { manage: string; access: string };
    const figures = { patchRaces: 0, mixedRaces: 0, blindWriters: 0, blindRounds: 0, creates: 0 };

    /** A request to process `n % 2`. */
    const on = (n: number, path: string, options: Parameters<typeof call>[2] = {}) =>
      call(servers[n % 2]!.port, path, { agent: agents[n % 2]!, timeoutMs: 20_000, ...options });

    const createSilo = async (keys: { manage: string }, body: object, n = 0): Promise<{ uuid: string; etag: string }> => {
      const reply = await on(n, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': keys.manage }, body });
      expect(reply.status, reply.text).toBe(201);
      return { uuid: reply.json.file_uuid, etag: String(reply.headers.etag) };
    };

    beforeAll(async () => {
      const env = { SILO_STORE_URL: await open(), SILO_RATE_LIMIT_PER_MINUTE: '0' };
      // Both start on the empty database at once: one of them creates the account `default` and
      // prints its keys (the first-start banner), the other finds it there.
      servers.push(...(await Promise.all([startSiloServer(env), startSiloServer(env)])));
      const banners = servers.flatMap((s) => (s.banner ? [s.banner] : []));
      expect(banners).toHaveLength(1);
      owner = banners[0]!;
    }, 30_000);

    afterAll(async () => {
      for (const agent of agents) agent.destroy();
      await Promise.all(servers.map((s) => s.stop()));
      for (const s of servers) expect(s.output(), 'a server logged an error').not.toMatch(/"level":"error"/);
      if (!skip) await close();
      console.log(
        `[reliability] conditional writes, 2 processes on 1 ${store}: ${figures.patchRaces} races of 100 PATCHes with one ETag and ` +
          `${figures.mixedRaces} of 60 PATCH/DELETEs (exactly 1 winner each), ${figures.blindWriters} PATCHes without If-Match ` +
          `in ${figures.blindRounds} rounds (never a mix), ${figures.creates} concurrent creates (all ${figures.creates} listed)`,
      );
    }, 20_000);

    it('lets exactly one of 100 concurrent PATCHes with the same If-Match through; the other 99 get 412', async () => {
      const { uuid } = await createSilo(owner, { file_name: 'contended', file_data: { v: 'start' } });
      for (let round = 0; round < 3; round++) {
        const etag = String((await on(round, `/api/v1/manage/meta/${uuid}`, { headers: { 'X-MAN-API': owner.manage } })).headers.etag);
        const replies = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            on(i, `/api/v1/manage/${uuid}`, {
              method: 'PATCH',
              headers: { 'X-MAN-API': owner.manage, 'If-Match': etag },
              body: { file_name: `round ${round} writer ${i}`, file_data: { v: i, round } },
            }),
          ),
        );
        const statuses = replies.map((r) => r.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
        expect(statuses.filter((s) => s === 412)).toHaveLength(99);
        for (const r of replies.filter((x) => x.status === 412)) expect(isContractError(r.json)).toBe(true);
        const winner = statuses.indexOf(200);
        const stored = await on(winner + 1, `/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
        expect(stored.json.data).toEqual({ v: winner, round });
        expect(stored.headers.etag).toBe(replies[winner]!.headers.etag);
        figures.patchRaces++;
      }
    }, 40_000);

    it('lets exactly one of 60 concurrent PATCHes and DELETEs with the same If-Match through', async () => {
      for (let round = 0; round < 2; round++) {
        const { uuid, etag } = await createSilo(owner, { file_name: 'patch or delete', file_data: { v: 'start' } }, round);
        const replies = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            on(i, `/api/v1/manage/${uuid}`, {
              method: i % 3 === 0 ? 'DELETE' : 'PATCH',
              headers: { 'X-MAN-API': owner.manage, 'If-Match': etag },
              ...(i % 3 === 0 ? {} : { body: { file_data: { v: i } } }),
            }),
          ),
        );
        const won = replies.filter((r) => r.status === 200);
        expect(won).toHaveLength(1);
        // The losers: 412 while the silo exists, 404 once a DELETE has won.
        for (const r of replies.filter((x) => x.status !== 200)) {
          expect([404, 412]).toContain(r.status);
          expect(isContractError(r.json)).toBe(true);
        }
        const after = await on(round + 1, `/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
        if (won[0]!.json.deleted === true) expect(after.status).toBe(404);
        else expect(after.json.data).toEqual(won[0]!.json.file_data);
        figures.mixedRaces++;
      }
    }, 40_000);

    it('without If-Match, leaves exactly one writer\'s whole body (name, flags, region, data), never a mix', async () => {
      const { uuid } = await createSilo(owner, { file_name: 'blind', file_data: { writer: -1 } });
      // Many short rounds: each round's final state is one more chance to catch a mix.
      const WRITERS = 4;
      for (let round = 0; round < 40; round++) {
        const bodies = Array.from({ length: WRITERS }, (_, i) => ({
          file_name: `round ${round} writer ${i}`,
          is_public: i % 2 === 0,
          region_name: REGIONS[(i + round) % 3]!,
          // Sizes differ so that writes take different times.
          file_data: { writer: i, round, pad: randomBytes(1 + ((i * 997) % 3000)).toString('base64') },
        }));
        const replies = await Promise.all(
          bodies.map((body, i) => on(i, `/api/v1/manage/${uuid}`, { method: 'PATCH', headers: { 'X-MAN-API': owner.manage }, body })),
        );
        expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
        // Each answer describes its own write, whole.
        replies.forEach((r, i) => {
          expect(r.json).toMatchObject(bodies[i]!);
        });

        const meta = await on(round, `/api/v1/manage/meta/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
        const got = await on(round + 1, `/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': owner.manage } });
        const writer = got.json.data.writer as number;
        const body = bodies[writer]!;
        expect(got.json.data).toEqual(body.file_data);
        expect(meta.json).toMatchObject({ file_name: body.file_name, is_public: body.is_public, region_name: body.region_name });
        // The last write applied is the one whose ETag is current.
        expect(got.headers.etag).toBe(replies[writer]!.headers.etag);
        expect(meta.headers.etag).toBe(replies[writer]!.headers.etag);
        // The data lives in the winner's region only, and answers there with the winner's flags.
        for (const region of REGIONS) {
          const read = await on(round, `/${uuid}`, { host: HOST[region], headers: { 'X-SILO-KEY': owner.access } });
          const pub = await on(round + 1, `/public/${uuid}`, { host: HOST[region] });
          if (region === body.region_name) {
            expect(read.json).toEqual(body.file_data);
            expect(pub.status).toBe(body.is_public ? 200 : 404);
          } else {
            expect(read.status).toBe(404);
            expect(pub.status).toBe(404);
          }
        }
        figures.blindRounds++;
        figures.blindWriters += WRITERS;
      }
    }, 40_000);

    it('lists 200 more silos after 200 concurrent creates split across both processes', async () => {
      const list = (n: number, page: number) =>
        on(n, `/api/v1/manage/silos?page=${page}&per_page=100`, { headers: { 'X-MAN-API': owner.manage } });
      const before = (await list(0, 1)).json.metadata.total_items as number;
      const replies: Answer[] = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          on(i, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: { file_name: `c${i}`, file_data: { i } } }),
        ),
      );
      expect(replies.filter((r) => r.status === 201)).toHaveLength(200);
      const created = new Set(replies.map((r) => r.json.file_uuid as string));
      expect(created.size).toBe(200);
      const pageCount = Math.ceil((before + 200) / 100);
      for (const n of [0, 1]) {
        const pages = await Promise.all(Array.from({ length: pageCount + 1 }, (_, i) => list(n, i + 1)));
        for (const page of pages) expect(page.json.metadata.total_items).toBe(before + 200);
        const listed = pages.flatMap((p) => p.json.silos.map((s: { file_uuid: string }) => s.file_uuid as string));
        expect(listed).toHaveLength(before + 200);
        expect(new Set(listed).size).toBe(before + 200);
        for (const uuid of created) expect(listed).toContain(uuid);
      }
      figures.creates = 200;
    }, 40_000);
  });
}

conditionalWrites('Redis', !haveRedis, async () => {
  await flushDb(DB);
  return redisDbUrl(DB);
}, () => flushDb(DB));

let schema: TestSchema | undefined;
conditionalWrites('PostgreSQL database', !havePostgres, async () => {
  schema = await testSchema('conditional');
  return schema.storeUrl();
}, async () => {
  await schema?.drop();
});

const cluster = clusterForSuite();
conditionalWrites('Redis Cluster', !haveCluster, cluster.open, cluster.close);
