/**
 * Atomic, durable writes of every kind across kill -9 (contract §9, §10), on SQLite (a temporary
 * SILO_DATA_DIR), on Redis (database 14 of the test Redis, emptied before and after) and on
 * PostgreSQL (a schema of this run in the test database, dropped afterwards).
 *
 * Workers send a random mix of writes to `silo serve`: create, full PATCH (name and data of one
 * write), merge patch, JSON Patch append (on silos with array data), restore of an earlier
 * version, region move and delete, some with If-Match. Writes to one silo are sequential (a silo
 * belongs to one worker at a time), writes to different silos concurrent, so the test knows each
 * silo's exact state after every acknowledged write, and at a kill at most one write per silo is in
 * flight. After a random number of acknowledged writes the server gets SIGKILL; it restarts on the
 * same storage, and then, for every silo the test ever touched:
 *
 * - it is absent (404 on meta, get-silo, every data address, and not listed) or present on all of
 *   them, with one state: the last acknowledged write's, or the in-flight write's (name, data,
 *   region, visibility and version of one write, never a mix); a silo whose delete was
 *   acknowledged is gone, one whose create was acknowledged is there unless its delete was sent;
 *   a silo listed that the test does not know is an in-flight create, whole, at version 1;
 * - data reads answer on the silo's region host only (private and, if public, public address),
 *   with the data of get-silo and the ETag of meta and get-silo;
 * - history holds exactly the last SILO_HISTORY_VERSIONS versions, each with the name, flags,
 *   region and data of the write that made it; the version before them is gone;
 * - a PATCH with If-Match set to get-silo's ETag succeeds (one version more), and the same If-Match
 *   again is a 412;
 * - the listing's total_items equals the number of silos over all its pages and the set the test
 *   expects, each with the state found above; on SQLite `PRAGMA integrity_check` is ok.
 *
 * A silo lock held by a write that the kill cut off stays taken until its TTL (koa-silo's
 * DEFAULT_LOCK_TIMING.ttlMs): the test leaves such a silo alone until then, and gives it its
 * If-Match write in the last check of the run, once the lock has expired.
 *
 * The random choices come from a seed printed by the test (SILO_TEST_SEED=<seed> repeats them;
 * the kills still land wherever the scheduler puts them).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOCK_TIMING } from '../../packages/koa-silo/src/storage/lease-locks.js';
import { call, isContractError, pool, type Answer, type Call, keptAliveAgent } from '../support/http-call.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { postgresAvailable, testSchema, type TestSchema } from '../support/postgres.js';
import { clusterAvailable, clusterForSuite } from '../support/redis-cluster.js';
import { redisAvailable } from '../support/redis.js';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const haveRedis = await redisAvailable();
const haveCluster = clusterAvailable();
const havePostgres = await postgresAvailable();
const DB = 14;

const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
type Region = (typeof REGIONS)[number];
const hostOf = (region: Region) => `${region}.localhost`;

/** SILO_HISTORY_VERSIONS: small, so that pruning happens often. */
const KEEP = 5;
const WORKERS = 12;
/** SIGKILLs per store. */
const KILLS = 3;
/** The server is killed after a random number of acknowledged writes in this range. */
const KILL_AFTER = [60, 260] as const;
/** Writes of the last phase, which ends without a kill. */
const LAST_PHASE_WRITES = 150;
const CALL_MS = 15_000;
/** How long after a kill a silo whose write it cut off may still be locked. */
const LOCKED_MS = DEFAULT_LOCK_TIMING.ttlMs + 500;

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Op = 'create' | 'put' | 'merge' | 'append' | 'restore' | 'move' | 'delete' | 'check';
const OPS: Op[] = ['create', 'put', 'merge', 'append', 'restore', 'move', 'delete', 'check'];

/** What one version of a silo is: the document of contract §10 and its version. */
interface State {
  file_name: string;
  file_data: Json;
  region_name: Region;
  is_public: boolean;
  version: number;
}

interface Silo {
  uuid: string;
  kind: 'object' | 'array';
  /** The state after the last write known to have committed. */
  state: State;
  created_at?: string;
  /** The ETag of `state`'s version, from the answer that made it or from get-silo. */
  etag?: string;
  /** Every state the test knows of, by version (the kept ones at least). */
  history: Map<number, State>;
  /** The write the kill cut off: its state if it committed, null for a delete. */
  pending?: { op: Op; next: State | null };
  /** Deleted (acknowledged, or an in-flight delete found committed). */
  gone: boolean;
  /** A worker has a write of it under way (or a cut-off write is unresolved). */
  busy: boolean;
  /** Its lock may be held by a write that the kill cut off until this time (ms). */
  lockedUntil: number;
}

/** A create whose answer the kill cut off: the silo exists with `next`, or not at all. */
interface PendingCreate {
  kind: Silo['kind'];
  next: State;
}

/** RFC 7386. */
function mergePatch(target: Json | undefined, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const out: { [key: string]: Json } =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** A small seeded generator (mulberry32), so that a failing mix can be replayed. */
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

interface StoreSetup {
  label: string;
  env: Record<string, string>;
  /** `PRAGMA integrity_check` of the SQLite file, for the SQLite store. */
  integrity?: () => string;
}

/** One run: start, KILLS × (writes, SIGKILL, restart, check), a last phase, the final check. */
async function crashRun(setup: StoreSetup): Promise<void> {
  const seed = Number(process.env.SILO_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`[reliability] crash-writes ${setup.label}: seed ${seed} (SILO_TEST_SEED=${seed} repeats the mix)`);
  const rng = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const pad = () => 'p'.repeat(Math.floor(rng() * 300));

  let server: SiloServer | undefined;
  let agent: http.Agent | undefined;
  let keys!: { manage: string; access: string };
  const silos = new Map<string, Silo>();
  let pendingCreates: PendingCreate[] = [];
  let writeNo = 0;
  const stats = {
    acked: Object.fromEntries(OPS.map((op) => [op, 0])) as Record<Op, number>,
    inFlightAtKills: [] as number[],
    cutOff: 0,
    cutOffCommitted: 0,
    adopted: 0,
    siloChecks: 0,
    versionChecks: 0,
  };
  const started = Date.now();

  const start = async () => {
    agent?.destroy();
    agent = keptAliveAgent(32);
    server = await startSiloServer(setup.env);
  };
  const req = (path: string, options: Call = {}) => call(server!.port, path, { agent, timeoutMs: CALL_MS, ...options });
  const manage = (extra: Record<string, string> = {}) => ({ 'X-MAN-API': keys.manage, ...extra });

  const newSilo = (uuid: string, kind: Silo['kind'], state: State, etag: string | undefined, created_at?: string): Silo => {
    const silo: Silo = { uuid, kind, state, etag, created_at, history: new Map([[state.version, state]]), gone: false, busy: false, lockedUntil: 0 };
    silos.set(uuid, silo);
    return silo;
  };

  /** A write committed: the silo's new state (and its ETag), history trimmed to the kept versions. */
  const committed = (silo: Silo, next: State, etag: string | undefined) => {
    silo.state = next;
    silo.etag = etag;
    silo.history.set(next.version, next);
    for (const v of silo.history.keys()) if (v <= next.version - KEEP) silo.history.delete(v);
  };

  const freshData = (kind: Silo['kind'], w: number): Json =>
    kind === 'object' ? { w, pad: pad() } : [{ w, i: 0, pad: pad() }, { w, i: 1 }];

  interface Plan {
    op: Op;
    silo?: Silo;
    kind?: Silo['kind'];
    path: string;
    call: Call;
    expectStatus: number;
    /** The state after the write; null: the silo is deleted. */
    next: State | null;
  }

  /** The next write of a worker: a create, or a write of a silo nobody else is writing. */
  const plan = (): Plan => {
    const now = Date.now();
    const host = hostOf(pick(REGIONS));
    const w = ++writeNo;
    const idle = [...silos.values()].filter((s) => !s.gone && !s.busy && s.lockedUntil <= now);
    const live = [...silos.values()].filter((s) => !s.gone).length;
    if (idle.length === 0 || rng() < (live < 24 ? 0.3 : 0.06)) {
      const kind = rng() < 0.5 ? 'object' : 'array';
      const region = pick(REGIONS);
      const next: State = { file_name: `w${w}`, file_data: freshData(kind, w), region_name: region, is_public: rng() < 0.5, version: 1 };
      const body: Record<string, Json> = { file_name: next.file_name, file_data: next.file_data, is_public: next.is_public };
      // The default region is 'api': sometimes left to it.
      if (region !== 'api' || rng() < 0.5) body.region_name = region;
      return { op: 'create', kind, path: '/api/v1/manage/', call: { method: 'POST', host, headers: manage(), body }, expectStatus: 201, next };
    }
    const silo = pick(idle);
    silo.busy = true;
    const { state } = silo;
    const version = state.version + 1;
    const ifMatch: Record<string, string> = silo.etag && rng() < 0.4 ? { 'If-Match': silo.etag } : {};
    const patchPath = `/api/v1/manage/${silo.uuid}`;
    const restorable = [...silo.history.keys()].filter((v) => v < state.version && v > state.version - KEEP);
    const roll = rng();
    let op: Op =
      roll < 0.22 ? 'put' : roll < 0.4 ? 'merge' : roll < 0.62 ? 'append' : roll < 0.76 ? 'restore' : roll < 0.9 ? 'move' : 'delete';
    if (op === 'append' && (silo.kind !== 'array' || (state.file_data as Json[]).length > 30)) op = silo.kind === 'array' ? 'put' : 'merge';
    if (op === 'restore' && restorable.length === 0) op = 'put';

    switch (op) {
      case 'put': {
        const body: Record<string, Json> = { file_name: `w${w}`, file_data: freshData(silo.kind, w) };
        if (rng() < 0.5) body.is_public = rng() < 0.5;
        const next: State = { ...state, file_name: body.file_name as string, file_data: body.file_data!, is_public: (body.is_public as boolean | undefined) ?? state.is_public, version };
        return { op, silo, path: patchPath, call: { method: 'PATCH', host, headers: manage(ifMatch), body }, expectStatus: 200, next };
      }
      case 'merge': {
        const data: Json =
          silo.kind === 'object' ? { w, [`k${w % 4}`]: w, pad: rng() < 0.3 ? null : pad() } : [{ w, merged: true }];
        const body: { [key: string]: Json } = { file_name: `w${w}`, file_data: data };
        if (rng() < 0.5) body.is_public = rng() < 0.5;
        const doc = mergePatch({ file_name: state.file_name, file_data: state.file_data, region_name: state.region_name, is_public: state.is_public }, body) as {
          file_name: string;
          file_data: Json;
          region_name: Region;
          is_public: boolean;
        };
        const next: State = { file_name: doc.file_name, file_data: doc.file_data, region_name: doc.region_name, is_public: doc.is_public, version };
        return { op, silo, path: patchPath, call: { method: 'PATCH', host, headers: manage({ 'content-type': MERGE, ...ifMatch }), body }, expectStatus: 200, next };
      }
      case 'append': {
        const element = { w, appended: true };
        const ops: Json[] = [
          { op: 'add', path: '/file_data/-', value: element },
          { op: 'replace', path: '/file_name', value: `w${w}` },
        ];
        const next: State = { ...state, file_name: `w${w}`, file_data: [...(state.file_data as Json[]), element], version };
        if (rng() < 0.3) {
          next.is_public = !state.is_public;
          ops.push({ op: 'replace', path: '/is_public', value: next.is_public });
        }
        return { op, silo, path: patchPath, call: { method: 'PATCH', host, headers: manage({ 'content-type': JSON_PATCH, ...ifMatch }), body: ops }, expectStatus: 200, next };
      }
      case 'restore': {
        const from = pick(restorable);
        const next: State = { ...state, file_data: silo.history.get(from)!.file_data, version };
        return { op, silo, path: `${patchPath}/versions/${from}/restore`, call: { method: 'POST', host, headers: manage(ifMatch) }, expectStatus: 200, next };
      }
      case 'move': {
        const to = pick(REGIONS.filter((r) => r !== state.region_name));
        const next: State = { ...state, region_name: to, version };
        return { op, silo, path: patchPath, call: { method: 'PATCH', host, headers: manage(ifMatch), body: { region_name: to } }, expectStatus: 200, next };
      }
      default:
        return { op: 'delete', silo, path: patchPath, call: { method: 'DELETE', host, headers: manage(ifMatch) }, expectStatus: 200, next: null };
    }
  };

  /** The answer of an acknowledged write says what the test expects; the model takes it in. */
  const acknowledged = (p: Plan, reply: Answer) => {
    const what = `${p.op} ${p.silo?.uuid ?? ''} (seed ${seed})`;
    expect(reply.status, `${what} answered ${reply.status} ${reply.text.slice(0, 300)}`).toBe(p.expectStatus);
    const etag = reply.headers.etag;
    if (p.op === 'create') {
      const next = p.next!;
      expect(reply.json).toMatchObject({ file_name: next.file_name, region_name: next.region_name, is_public: next.is_public, version: 1 });
      expect(etag, what).toMatch(/^"[^"]+"$/);
      newSilo(reply.json.file_uuid, p.kind!, next, etag, reply.json.created_at);
    } else if (p.op === 'delete') {
      expect(reply.json, what).toEqual({ file_uuid: p.silo!.uuid, deleted: true });
      p.silo!.gone = true;
      p.silo!.busy = false;
    } else {
      const { file_name, file_data, region_name, is_public, version } = reply.json;
      expect({ file_name, file_data, region_name, is_public, version }, what).toEqual(p.next);
      expect(etag, what).toMatch(/^"[^"]+"$/);
      expect(etag, `${what}: a new version with the old ETag`).not.toBe(p.silo!.etag);
      committed(p.silo!, p.next!, etag);
      p.silo!.busy = false;
    }
    stats.acked[p.op]++;
  };

  /**
   * Workers write until `killAfter` writes were acknowledged (then SIGKILL), or, without
   * `killAfter`, until `writes` were acknowledged.
   */
  async function phase(killAfter: number | undefined, writes = LAST_PHASE_WRITES): Promise<void> {
    let acked = 0;
    let inFlight = 0;
    let killing = false;
    let stop = false;
    let killedAt = 0;
    const errors: unknown[] = [];
    const worker = async () => {
      while (!stop && !killing && (killAfter !== undefined || acked < writes)) {
        const p = plan();
        inFlight++;
        let reply: Answer | undefined;
        try {
          reply = await req(p.path, p.call);
        } catch (error) {
          if (!killing) throw error;
        } finally {
          inFlight--;
        }
        if (!reply) {
          // Cut off by the kill: committed or not, the check after the restart tells.
          stats.cutOff++;
          if (p.op === 'create') pendingCreates.push({ kind: p.kind!, next: p.next! });
          else {
            p.silo!.pending = { op: p.op, next: p.next };
            p.silo!.lockedUntil = killedAt + LOCKED_MS;
          }
          continue;
        }
        acknowledged(p, reply);
        acked++;
        if (killAfter !== undefined && acked >= killAfter && !killing) {
          killing = true;
          killedAt = Date.now();
          stats.inFlightAtKills.push(inFlight);
          await server!.kill9();
        }
      }
    };
    await Promise.all(
      Array.from({ length: WORKERS }, () =>
        worker().catch((error: unknown) => {
          stop = true;
          errors.push(error);
        }),
      ),
    );
    if (errors.length > 0) throw errors[0];
  }

  const get = (path: string, host = hostOf(pick(REGIONS))) => req(path, { host, headers: manage() });

  /** What the server shows of a silo everywhere, checked for consistency; null when it is absent. */
  async function observe(uuid: string): Promise<{ state: State; etag: string; created_at: string } | null> {
    const at = `silo ${uuid} (seed ${seed})`;
    const [meta, got, reads, pubs] = await Promise.all([
      get(`/api/v1/manage/meta/${uuid}`),
      get(`/api/v1/manage/${uuid}`),
      Promise.all(REGIONS.map((r) => req(`/${uuid}`, { host: hostOf(r), headers: { 'X-SILO-KEY': keys.access } }))),
      Promise.all(REGIONS.map((r) => req(`/public/${uuid}`, { host: hostOf(r) }))),
    ]);
    stats.siloChecks++;
    if (meta.status === 404) {
      expect(isContractError(meta.json), at).toBe(true);
      expect([got.status, ...reads.map((r) => r.status), ...pubs.map((r) => r.status)], `${at}: meta 404, other addresses`).toEqual(new Array(7).fill(404));
      return null;
    }
    expect(meta.status, `${at}: meta ${meta.text}`).toBe(200);
    expect(got.status, `${at}: meta 200, get-silo ${got.text}`).toBe(200);
    const region = meta.json.region_name as Region;
    const etag = meta.headers.etag as string;
    expect(etag, at).toMatch(/^"[^"]+"$/);
    expect(got.headers.etag, `${at}: get-silo's ETag is not meta's`).toBe(etag);
    REGIONS.forEach((r, i) => {
      const read = reads[i]!;
      const pub = pubs[i]!;
      if (r === region) {
        expect(read.status, `${at}: private read on its region host ${r}: ${read.text.slice(0, 200)}`).toBe(200);
        expect(read.json, `${at}: private read`).toEqual(got.json.data);
        expect(read.headers.etag, `${at}: the data read's ETag is not meta's`).toBe(etag);
        if (meta.json.is_public) {
          expect(pub.status, `${at}: public read of a public silo on ${r}`).toBe(200);
          expect(pub.json, `${at}: public read`).toEqual(got.json.data);
          expect(pub.headers.etag, `${at}: the public read's ETag is not meta's`).toBe(etag);
        } else expect(pub.status, `${at}: public read of a private silo`).toBe(404);
      } else {
        expect(read.status, `${at}: private read on ${r}, not its region ${region}`).toBe(404);
        expect(pub.status, `${at}: public read on ${r}, not its region ${region}`).toBe(404);
      }
    });
    const state: State = {
      file_name: meta.json.file_name,
      file_data: got.json.data,
      region_name: region,
      is_public: meta.json.is_public,
      version: meta.json.version,
    };
    return { state, etag, created_at: meta.json.created_at };
  }

  /** History holds exactly the kept versions, each as the write that made it left it. */
  async function checkHistory(silo: Silo): Promise<void> {
    const at = `silo ${silo.uuid} (seed ${seed})`;
    const v = silo.state.version;
    const kept = Math.min(v, KEEP);
    const list = await get(`/api/v1/manage/${silo.uuid}/versions?per_page=100`);
    expect(list.status, `${at}: versions ${list.text}`).toBe(200);
    expect(list.json.metadata.total_items, `${at}: versions kept`).toBe(kept);
    expect(list.json.versions.map((e: { version: number }) => e.version), `${at}: versions listed`).toEqual(
      Array.from({ length: kept }, (_, i) => v - i),
    );
    const ones = await Promise.all(list.json.versions.map((e: { version: number }) => get(`/api/v1/manage/${silo.uuid}/versions/${e.version}`)));
    let previous: string | undefined;
    list.json.versions.forEach((entry: { version: number; updated_at: string; file_name: string; is_public: boolean; region_name: Region; size: number }, i: number) => {
      const known = silo.history.get(entry.version);
      expect(known, `${at}: version ${entry.version}, which the test never saw committed`).toBeDefined();
      expect({ file_name: entry.file_name, is_public: entry.is_public, region_name: entry.region_name }, `${at}: version ${entry.version} in history`).toEqual({
        file_name: known!.file_name,
        is_public: known!.is_public,
        region_name: known!.region_name,
      });
      const one = ones[i]!;
      expect(one.status, `${at}: version ${entry.version}: ${one.text.slice(0, 200)}`).toBe(200);
      expect(one.json.version).toBe(entry.version);
      expect(one.json.updated_at).toBe(entry.updated_at);
      expect(one.json.data, `${at}: data of version ${entry.version}`).toEqual(known!.file_data);
      expect(entry.size, `${at}: size of version ${entry.version}`).toBe(Buffer.byteLength(JSON.stringify(one.json.data)));
      if (previous !== undefined) expect(entry.updated_at <= previous, `${at}: updated_at goes back in history`).toBe(true);
      previous = entry.updated_at;
      stats.versionChecks++;
    });
    if (v > KEEP) {
      const pruned = await get(`/api/v1/manage/${silo.uuid}/versions/${v - KEEP}`);
      expect(pruned.status, `${at}: pruned version ${v - KEEP}`).toBe(404);
    }
  }

  /** If-Match with get-silo's ETag writes (one version more); the same If-Match again is a 412. */
  async function checkIfMatch(silo: Silo, etag: string): Promise<void> {
    const at = `silo ${silo.uuid} (seed ${seed})`;
    const w = ++writeNo;
    const next: State = { ...silo.state, file_name: `w${w}`, version: silo.state.version + 1 };
    const path = `/api/v1/manage/${silo.uuid}`;
    const ok = await req(path, { method: 'PATCH', host: hostOf(pick(REGIONS)), headers: manage({ 'If-Match': etag }), body: { file_name: next.file_name } });
    expect(ok.status, `${at}: If-Match with get-silo's ETag: ${ok.text.slice(0, 300)}\n${serverLog(silo.uuid)}`).toBe(200);
    const { file_name, file_data, region_name, is_public, version } = ok.json;
    expect({ file_name, file_data, region_name, is_public, version }, at).toEqual(next);
    committed(silo, next, ok.headers.etag as string);
    stats.acked.check++;
    const stale = await req(path, { method: 'PATCH', host: hostOf(pick(REGIONS)), headers: manage({ 'If-Match': etag }), body: { file_name: `w${w} stale` } });
    expect(stale.status, `${at}: If-Match with a replaced ETag: ${stale.text.slice(0, 300)}`).toBe(412);
    expect(isContractError(stale.json)).toBe(true);
  }

  /** Every page of the listing: total_items, the uuids shown (each once) and their items. */
  async function listing(): Promise<{ total: number; items: Map<string, Record<string, unknown>> }> {
    const first = await get('/api/v1/manage/silos?per_page=100');
    expect(first.status, first.text).toBe(200);
    const total = first.json.metadata.total_items as number;
    const rest = await Promise.all(
      Array.from({ length: Math.max(0, Math.ceil(total / 100) - 1) }, (_, i) => get(`/api/v1/manage/silos?per_page=100&page=${i + 2}`)),
    );
    const items = new Map<string, Record<string, unknown>>();
    let shown = 0;
    for (const page of [first, ...rest]) {
      expect(page.status, page.text).toBe(200);
      expect(page.json.metadata.total_items, 'total_items changed between pages with no writes').toBe(total);
      for (const item of page.json.silos as Record<string, unknown>[]) {
        items.set(item.file_uuid as string, item);
        shown++;
      }
    }
    expect(shown, `the listing shows ${shown} silos over its pages but says total_items ${total}`).toBe(total);
    expect(items.size, 'a silo listed twice').toBe(shown);
    return { total, items };
  }

  /** The checks after a restart (see the file's comment). `final`: every lock has expired. */
  async function verify(final: boolean): Promise<void> {
    const now = Date.now();
    // Listed silos the test does not know: creates that the kill cut off, whole, at version 1.
    const before = await listing();
    for (const uuid of before.items.keys()) {
      if (silos.has(uuid)) continue;
      const seen = await observe(uuid);
      expect(seen, `listed silo ${uuid} answers 404 (seed ${seed})`).not.toBeNull();
      const match = pendingCreates.find((c) => c.next.file_name === seen!.state.file_name);
      expect(match, `listed silo ${uuid} (${seen!.state.file_name}) is no create that was sent (seed ${seed})`).toBeDefined();
      expect(seen!.state, `silo ${uuid}: a create cut off by the kill (seed ${seed})`).toEqual(match!.next);
      pendingCreates = pendingCreates.filter((c) => c !== match);
      newSilo(uuid, match!.kind, seen!.state, seen!.etag, seen!.created_at);
      stats.adopted++;
      stats.cutOffCommitted++;
    }
    pendingCreates = [];

    await pool(
      8,
      [...silos.values()].map((silo) => async () => {
        const at = `silo ${silo.uuid} (seed ${seed})`;
        const seen = await observe(silo.uuid);
        const candidates: (State | null)[] = silo.gone ? [null] : [silo.state];
        if (silo.pending) candidates.push(silo.pending.next);
        expect(candidates, `${at}: what the server shows is not the last acknowledged write${silo.pending ? ` or the one in flight (${silo.pending.op})` : ''}`).toContainEqual(
          seen?.state ?? null,
        );
        if (silo.pending) {
          if (seen?.state.version !== silo.state.version) stats.cutOffCommitted++;
          silo.pending = undefined;
        }
        if (!seen) {
          silo.gone = true;
          silo.busy = false;
          return;
        }
        if (silo.created_at !== undefined) expect(seen.created_at, `${at}: created_at changed`).toBe(silo.created_at);
        silo.created_at = seen.created_at;
        committed(silo, seen.state, seen.etag);
        await checkHistory(silo);
        // A lock that the kill left taken refuses writes until it expires: If-Match later.
        if (final || silo.lockedUntil <= now) {
          if (final) await sleep(Math.max(0, silo.lockedUntil - Date.now()));
          await checkIfMatch(silo, seen.etag);
        }
        silo.busy = false;
      }),
    );

    const after = await listing();
    const present = [...silos.values()].filter((s) => !s.gone);
    expect(after.total, `total_items (seed ${seed})`).toBe(present.length);
    expect([...after.items.keys()].sort(), `the listing (seed ${seed})`).toEqual(present.map((s) => s.uuid).sort());
    for (const silo of present) {
      const item = after.items.get(silo.uuid)!;
      expect({ file_name: item.file_name, region_name: item.region_name, is_public: item.is_public, version: item.version }, `listed silo ${silo.uuid}`).toEqual({
        file_name: silo.state.file_name,
        region_name: silo.state.region_name,
        is_public: silo.state.is_public,
        version: silo.state.version,
      });
    }
    if (setup.integrity) expect(setup.integrity(), 'PRAGMA integrity_check').toBe('ok');
  }

  /** The server's log lines since its last start that name `uuid`, for a failure message. */
  const serverLog = (uuid: string) => (server?.outputAfterStart() ?? '').split('\n').filter((l) => l.includes(uuid)).slice(-20).join('\n');
  const errorsLogged = () => (server?.outputAfterStart() ?? '').split('\n').filter((l) => l.includes('"level":"error"'));

  try {
    await start();
    expect(server!.banner, 'the first start printed no keys').toBeDefined();
    keys = server!.banner!;
    for (let kill = 0; kill < KILLS; kill++) {
      await phase(KILL_AFTER[0] + Math.floor(rng() * (KILL_AFTER[1] - KILL_AFTER[0] + 1)));
      expect(server!.alive()).toBe(false);
      await start();
      expect(server!.banner, 'the restart found the storage empty').toBeUndefined();
      await verify(false);
      expect(errorsLogged(), 'the server logged errors').toEqual([]);
    }
    // After the last restart: more writes of every kind, then the full check once every lock the
    // kills left has expired.
    await phase(undefined);
    await verify(true);
    expect(errorsLogged(), 'the server logged errors').toEqual([]);
    await server!.stop();
    if (setup.integrity) expect(setup.integrity(), 'PRAGMA integrity_check after a clean stop').toBe('ok');
    const total = Object.values(stats.acked).reduce((a, b) => a + b, 0);
    console.log(
      `[reliability] crash-writes ${setup.label}: ${KILLS} SIGKILLs (${stats.inFlightAtKills.join(', ')} writes in flight), ` +
        `${total} writes acknowledged (${OPS.map((op) => `${op} ${stats.acked[op]}`).join(', ')}), 0 lost; ` +
        `${stats.cutOff} cut off by a kill, ${stats.cutOffCommitted} of them found committed (${stats.adopted} creates); ` +
        `${silos.size} silos, ${stats.siloChecks} silo checks, ${stats.versionChecks} version checks; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    agent?.destroy();
    await server?.stop();
  }
}

describe('kill -9 of silo serve during concurrent writes of every kind', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-crash-writes-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite: every silo is one whole write, none acknowledged is lost, the file stays intact', async () => {
    const dir = tempDir();
    const integrity = () => {
      // While the server runs (it keeps its connection), closing this one checkpoints nothing away.
      const db = new Database(path.join(dir, 'silo.sqlite'), { fileMustExist: true });
      try {
        return String(db.pragma('integrity_check', { simple: true }));
      } finally {
        db.close();
      }
    };
    await crashRun({
      label: 'SQLite',
      env: { SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_HISTORY_VERSIONS: String(KEEP) },
      integrity,
    });
  }, 90_000);

  describe.skipIf(!haveRedis)('on Redis', () => {
    beforeAll(() => flushDb(DB));
    afterAll(async () => {
      if (haveRedis) await flushDb(DB);
    });

    it('Redis: every silo is one whole write, none acknowledged is lost', async () => {
      await crashRun({
        label: 'Redis',
        env: { SILO_STORE_URL: redisDbUrl(DB), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_HISTORY_VERSIONS: String(KEEP) },
      });
    }, 90_000);
  });

  describe.skipIf(!haveCluster)('on Redis Cluster', () => {
    const cluster = clusterForSuite();
    afterAll(cluster.close);

    it('Redis Cluster: every silo is one whole write, none acknowledged is lost', async () => {
      await crashRun({
        label: 'Redis Cluster',
        env: { SILO_STORE_URL: await cluster.open(), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_HISTORY_VERSIONS: String(KEEP) },
      });
    }, 90_000);
  });

  describe.skipIf(!havePostgres)('on PostgreSQL', () => {
    let schema: TestSchema | undefined;
    afterAll(async () => {
      await schema?.drop();
    });

    it('PostgreSQL: every silo is one whole write, none acknowledged is lost', async () => {
      schema = await testSchema('crash');
      await crashRun({
        label: 'PostgreSQL',
        env: { SILO_STORE_URL: schema.storeUrl(), SILO_DATA_DIR: tempDir(), SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_HISTORY_VERSIONS: String(KEEP) },
      });
    }, 90_000);
  });
});
