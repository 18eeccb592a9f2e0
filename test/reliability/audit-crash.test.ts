/**
 * The audit log across kill -9 (contract §19: an entry is committed with the action it records),
 * on SQLite (a temporary SILO_DATA_DIR), on Redis (database 5 of the test Redis, emptied before and
 * after) and on PostgreSQL (a schema of this run, dropped afterwards).
 *
 * Workers send creates, updates, JSON Patch appends, merge patches, restores, region moves and
 * deletes to `silo serve` with a manage key; after a random number of acknowledged writes the
 * server gets SIGKILL, restarts on the same storage, and then, for every silo that the log or the
 * listing names and every silo the test ever wrote:
 *
 * - a silo that exists at version V has exactly one entry for each of versions 1..V (create for 1;
 *   update, patch, restore or move for the others), and no delete;
 * - a silo that is gone has exactly one delete entry, at its last version, and one entry for each
 *   version before it (or, a create the kill cut off before its commit, no entry at all);
 * - every acknowledged write is there (its version at most the silo's, or its delete);
 * - no entry names a silo that never existed.
 *
 * So no action committed without its entry, and no entry without its action, whatever instant the
 * kill chose. The random choices come from a seed printed by the test (SILO_TEST_SEED repeats them).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, pool, type Answer, type Call, keptAliveAgent } from '../support/http-call.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { postgresAvailable, testSchema, type TestSchema } from '../support/postgres.js';
import { redisAvailable } from '../support/redis.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const haveRedis = await redisAvailable();
const havePostgres = await postgresAvailable();
const DB = 5;

const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
const WORKERS = 10;
const KILLS = 3;
const KILL_AFTER = [60, 200] as const;
const CALL_MS = 15_000;
const WRITES = new Set(['silo.create', 'silo.update', 'silo.patch', 'silo.restore', 'silo.move']);

interface Entry {
  action: string;
  actor: { type: string; name: string };
  file_uuid?: string;
  version?: number;
  outcome: string;
}

interface Silo {
  uuid: string;
  /** The version of the last acknowledged write; the silo's delete acknowledged: gone. */
  version: number;
  gone: boolean;
  /** A write the kill cut off: the silo is left alone from then on (its lock may be held). */
  cut: boolean;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function crashRun(label: string, env: Record<string, string>): Promise<void> {
  const seed = Number(process.env.SILO_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`[reliability] audit-crash ${label}: seed ${seed} (SILO_TEST_SEED=${seed} repeats the mix)`);
  const rng = seeded(seed);
  const silos = new Map<string, Silo>();
  let server: SiloServer | undefined;
  let agent: http.Agent | undefined;
  let key = '';
  let writeNo = 0;
  const stats = { acked: 0, cut: 0, cutCommitted: 0, entries: 0 };

  const start = async () => {
    agent?.destroy();
    agent = keptAliveAgent(32);
    server = await startSiloServer(env);
  };
  const req = (p: string, options: Call = {}) =>
    call(server!.port, p, { agent, timeoutMs: CALL_MS, ...options, headers: { 'X-MAN-API': key, ...(options.headers as Record<string, string> | undefined) } });

  /** One write of a worker: a create, or a write of one of its own silos. */
  async function write(mine: Silo[]): Promise<{ silo?: Silo; done: (reply: Answer) => void } & { path: string; call: Call }> {
    const w = ++writeNo;
    const live = mine.filter((s) => !s.gone && !s.cut);
    if (live.length === 0 || rng() < 0.25) {
      return {
        path: '/api/v1/manage/',
        call: { method: 'POST', body: { file_name: `w${w}`, file_data: [{ w }], region_name: REGIONS[Math.floor(rng() * 3)]! } },
        done: (reply) => {
          expect(reply.status, reply.text).toBe(201);
          const silo = { uuid: reply.json.file_uuid as string, version: 1, gone: false, cut: false };
          silos.set(silo.uuid, silo);
          mine.push(silo);
        },
      };
    }
    const silo = live[Math.floor(rng() * live.length)]!;
    const at = `/api/v1/manage/${silo.uuid}`;
    const roll = rng();
    const next = (reply: Answer) => {
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json.version).toBe(silo.version + 1);
      silo.version++;
    };
    // A name of its own per write, so that each version is told apart by its name.
    const name = `w${w}-v${silo.version}`;
    if (roll < 0.25) return { silo, path: at, call: { method: 'PATCH', body: { file_name: name } }, done: next };
    if (roll < 0.45) return { silo, path: at, call: { method: 'PATCH', headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/file_data/-', value: { w } }] }, done: next };
    if (roll < 0.6) return { silo, path: at, call: { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: { is_public: rng() < 0.5, file_name: name } }, done: next };
    if (roll < 0.72 && silo.version > 1) return { silo, path: `${at}/versions/${silo.version}/restore`, call: { method: 'POST' }, done: next };
    if (roll < 0.88) return { silo, path: at, call: { method: 'PATCH', body: { region_name: REGIONS[Math.floor(rng() * 3)]!, file_name: name } }, done: next };
    return {
      silo,
      path: at,
      call: { method: 'DELETE' },
      done: (reply) => {
        expect(reply.status, reply.text).toBe(200);
        silo.gone = true;
      },
    };
  }

  async function phase(killAfter: number): Promise<void> {
    let acked = 0;
    let killing = false;
    const worker = async () => {
      const mine: Silo[] = [];
      while (!killing) {
        const w = await write(mine);
        let reply: Answer | undefined;
        try {
          reply = await req(w.path, w.call);
        } catch (error) {
          if (!killing) throw error;
        }
        if (!reply) {
          stats.cut++;
          if (w.silo) w.silo.cut = true;
          continue;
        }
        // A reply that came as the server died is an acknowledged write all the same.
        if (reply.status === 0) continue;
        if (reply.status === 503) console.log(`[audit-crash] 503 on ${w.call.method} ${w.path}:\n${(server?.outputAfterStart() ?? '').split('\n').filter((l) => l.includes('"error"')).slice(-5).join('\n')}`);
        w.done(reply);
        stats.acked++;
        if (++acked >= killAfter && !killing) {
          killing = true;
          await server!.kill9();
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
  }

  /** Every page of a listing under `path` (`silos` or `entries`). */
  async function all<T>(p: string, member: 'silos' | 'entries'): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page++) {
      const reply = await req(`${p}${p.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
      expect(reply.status, reply.text).toBe(200);
      items.push(...(reply.json[member] as T[]));
      if (items.length >= reply.json.metadata.total_items) return items;
    }
  }

  async function verify(): Promise<void> {
    const entries = await all<Entry>('/api/v1/manage/audit', 'entries');
    const listed = new Map((await all<{ file_uuid: string; version: number }>('/api/v1/manage/silos', 'silos')).map((s) => [s.file_uuid, s.version]));
    const byUuid = new Map<string, Entry[]>();
    for (const entry of entries) {
      expect(entry.outcome).toBe('success');
      if (!entry.action.startsWith('silo.')) continue;
      expect(entry.actor, `entry ${JSON.stringify(entry)}`).toEqual({ type: 'manage', name: 'default' });
      const list = byUuid.get(entry.file_uuid!) ?? [];
      list.push(entry);
      byUuid.set(entry.file_uuid!, list);
    }
    const uuids = new Set([...byUuid.keys(), ...listed.keys(), ...silos.keys()]);
    await pool(
      8,
      [...uuids].map((uuid) => async () => {
        const at = `silo ${uuid} (seed ${seed})`;
        const own = byUuid.get(uuid) ?? [];
        const meta = await req(`/api/v1/manage/meta/${uuid}`);
        const writes = own.filter((e) => WRITES.has(e.action)).map((e) => e.version!).sort((a, b) => a - b);
        const deletes = own.filter((e) => e.action === 'silo.delete');
        const known = silos.get(uuid);
        if (meta.status === 200) {
          const version = meta.json.version as number;
          expect(listed.get(uuid), at).toBe(version);
          expect(deletes, `${at}: a delete entry for a silo that is there`).toEqual([]);
          expect(writes, `${at}: entries of versions 1..${version}`).toEqual(Array.from({ length: version }, (_, i) => i + 1));
          expect(own.find((e) => e.version === 1)?.action, at).toBe('silo.create');
          if (known) {
            expect(known.gone, `${at}: an acknowledged delete undone`).toBe(false);
            expect(version === known.version || (known.cut && version === known.version + 1), `${at}: version ${version}, acknowledged ${known.version}`).toBe(true);
            if (version > known.version) stats.cutCommitted++;
            known.version = version;
          } else {
            // A create the kill cut off, committed whole.
            expect(version, at).toBe(1);
            stats.cutCommitted++;
          }
        } else {
          expect(meta.status, at).toBe(404);
          expect(listed.has(uuid), at).toBe(false);
          if (own.length === 0) {
            expect(known, `${at}: an acknowledged silo without its entries`).toBeUndefined();
            return;
          }
          expect(deletes.length, `${at}: gone, with ${deletes.length} delete entries`).toBe(1);
          const last = deletes[0]!.version!;
          expect(writes, `${at}: entries of versions 1..${last} before its delete`).toEqual(Array.from({ length: last }, (_, i) => i + 1));
          if (known) {
            expect(known.gone || known.cut, `${at}: deleted, but no delete was sent`).toBe(true);
            if (!known.gone) stats.cutCommitted++;
            known.gone = true;
          }
        }
      }),
    );
    stats.entries = entries.length;
  }

  try {
    await start();
    expect(server!.banner, 'the first start printed no keys').toBeDefined();
    key = server!.banner!.manage;
    for (let kill = 0; kill < KILLS; kill++) {
      await phase(KILL_AFTER[0] + Math.floor(rng() * (KILL_AFTER[1] - KILL_AFTER[0] + 1)));
      expect(server!.alive()).toBe(false);
      await start();
      await verify();
    }
    await server!.stop();
    console.log(
      `[reliability] audit-crash ${label}: ${KILLS} SIGKILLs, ${stats.acked} writes acknowledged, ${stats.cut} cut off (${stats.cutCommitted} of them committed, each with its entry), ` +
        `${silos.size} silos, ${stats.entries} entries, actions and entries equal`,
    );
  } finally {
    agent?.destroy();
    await server?.stop();
  }
}

describe('kill -9 of silo serve during writes: every action with its audit entry, no entry without its action', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-audit-crash-'));
    dirs.push(dir);
    return dir;
  };
  const base = { SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_HISTORY_VERSIONS: '3' };

  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite', async () => {
    await crashRun('SQLite', { ...base, SILO_DATA_DIR: tempDir() });
  }, 120_000);

  describe.skipIf(!haveRedis)('on Redis', () => {
    beforeAll(() => flushDb(DB));
    afterAll(async () => {
      if (haveRedis) await flushDb(DB);
    });

    it('Redis', async () => {
      await crashRun('Redis', { ...base, SILO_STORE_URL: redisDbUrl(DB), SILO_DATA_DIR: tempDir() });
    }, 120_000);
  });

  describe.skipIf(!havePostgres)('on PostgreSQL', () => {
    let schema: TestSchema | undefined;
    afterAll(async () => {
      await schema?.drop();
    });

    it('PostgreSQL', async () => {
      schema = await testSchema('audit_crash');
      await crashRun('PostgreSQL', { ...base, SILO_STORE_URL: schema.storeUrl(), SILO_DATA_DIR: tempDir() });
    }, 120_000);
  });
});
