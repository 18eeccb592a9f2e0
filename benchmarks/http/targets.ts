/**
 * Starting the servers of the benchmarks (Silo on each store in-process, `silo serve` through
 * serve.ts, the baselines) and the outside
 * storage they use, each cleaned before and after every Silo server and nothing else touched:
 * - Redis: database 11 by default, flushed (never another database);
 * - PostgreSQL: a schema of the benchmark's own (`silo_bench_<pid>`) in the database `test`, made
 *   fresh and dropped (never another schema);
 * - Redis Cluster: three masters of the benchmark's own on spare ports (test/support's
 *   `startOwnCluster`, the one the tests use), flushed, stopped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { startOwnCluster, type OwnCluster } from '../../test/support/redis-cluster.js';
import { haveRedisServer } from '../../test/support/redis-server.js';
import type { BaselineKind, BaselineReady } from './baselines.js';
import { startChild, type Child, type StartOptions } from './children.js';
import { isServeKind, type SiloKind } from './kinds.js';
import { startServe, type RequestLog } from './serve.js';
import type { ReadyLine, SeedKind } from './server.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/11';
/**
 * `silo serve` on Redis needs a database of its own: it bootstraps only on empty storage, and the
 * in-process server's silos live in database 11 at the same time.
 */
export const DEFAULT_SERVE_REDIS_URL = 'redis://127.0.0.1:6379/4';
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** The only schema the benchmark creates, empties and drops (per harness process, so two runs never share one). */
export const BENCH_SCHEMA = `silo_bench_${process.pid}`;

/** `url` fit for logs and results: a password replaced by `***`. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** Runs `work` on one connection to the database of `url`, closed afterwards. */
async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why PostgreSQL at `url` cannot be used, or undefined when it answers. */
export async function postgresUnreachable(url: string): Promise<string | undefined> {
  try {
    await withPostgres(url, (c) => c.query('SELECT 1'));
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The server version of PostgreSQL at `url` (for the results), or undefined. */
export async function postgresVersion(url: string): Promise<string | undefined> {
  try {
    return await withPostgres(url, async (c) => (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version);
  } catch {
    return undefined;
  }
}

/** The benchmark's schema, empty: dropped with everything in it (a previous server's tables), then made again. */
export async function resetBenchSchema(url: string): Promise<void> {
  await withPostgres(url, async (c) => {
    await c.query(`DROP SCHEMA IF EXISTS "${BENCH_SCHEMA}" CASCADE`);
    await c.query(`CREATE SCHEMA "${BENCH_SCHEMA}"`);
  });
}

export async function dropBenchSchema(url: string): Promise<void> {
  await withPostgres(url, (c) => c.query(`DROP SCHEMA IF EXISTS "${BENCH_SCHEMA}" CASCADE`));
}

/** A store URL on the benchmark's schema: the schema rides on the URL as a connection option, as a user would choose one. */
export function benchSchemaUrl(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${BENCH_SCHEMA}`);
  return u.toString();
}

/** The benchmark's own Redis Cluster, or why it cannot run here. */
export async function startBenchCluster(): Promise<OwnCluster | { reason: string }> {
  if (!haveRedisServer()) return { reason: 'redis-server is not on PATH (the benchmark starts its own Redis Cluster with it)' };
  try {
    return await startOwnCluster();
  } catch (err) {
    return { reason: `the Redis Cluster did not start: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The database number of a redis:// URL (0 when absent). */
export function redisDb(url: string): number {
  const db = new URL(url).pathname.replace(/^\//, '');
  return db === '' ? 0 : Number(db);
}

/**
 * FLUSHDB on the URL's database, after checking that the connection really is on that database
 * (CLIENT INFO) and that it is not database 0. Resolves false when Redis cannot be reached.
 */
export async function flushRedisDb(url: string): Promise<boolean> {
  const db = redisDb(url);
  if (!Number.isInteger(db) || db <= 0) throw new Error(`refusing to flush Redis database ${db}: give a dedicated database (redis://host:port/11)`);
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch {
    return false;
  }
  try {
    const info = String(await client.sendCommand(['CLIENT', 'INFO']));
    if (!new RegExp(`(^| )db=${db}( |$)`).test(info)) throw new Error(`the Redis connection is not on database ${db}: ${info}`);
    await client.sendCommand(['FLUSHDB']);
    return true;
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

export interface SiloTarget {
  store: SiloKind;
  child: Child<ReadyLine>;
  /** `silo serve`'s request log (its stdout, drained into a file); none in-process. */
  requestLog?: RequestLog;
  /** Stops the server, then removes its temp dir, flushes its Redis database or cluster, or drops its schema. */
  dispose(): Promise<void>;
}

export interface SiloStartOptions extends StartOptions {
  seed?: SeedKind;
  redisUrl?: string;
  /** serve-redis's database (default DEFAULT_SERVE_REDIS_URL). */
  serveRedisUrl?: string;
  /** The PostgreSQL database (the server gets the benchmark's schema in it). */
  postgresUrl?: string;
  /** The running cluster of `--store=cluster` (startBenchCluster). */
  cluster?: OwnCluster;
  patchSilos?: number;
  /** Measure another koa-silo build (its dist/index.js) instead of packages/koa-silo/dist. */
  siloModule?: string;
}

export async function startSilo(store: SiloKind, options: SiloStartOptions = {}): Promise<SiloTarget> {
  if (isServeKind(store)) {
    // `silo serve` runs silo-server's own koa-silo: options.siloModule does not apply.
    const served = await startServe(store, {
      redisUrl: options.serveRedisUrl ?? DEFAULT_SERVE_REDIS_URL,
      flushRedis: flushRedisDb,
      seed: options.seed,
      patchSilos: options.patchSilos,
      nodeArgs: options.nodeArgs,
      timeoutMs: options.timeoutMs,
    });
    return { store, ...served };
  }
  const args = [`--store=${store}`, `--seed=${options.seed ?? 'standard'}`, `--patch-silos=${options.patchSilos ?? 50}`];
  if (options.siloModule) args.push(`--silo-module=${options.siloModule}`);
  let cleanup = async () => {};
  if (store === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'silo-http-bench-'));
    args.push(`--data-dir=${dir}`);
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else if (store === 'redis') {
    const url = options.redisUrl ?? DEFAULT_REDIS_URL;
    if (!(await flushRedisDb(url))) throw new Error(`Redis is not reachable at ${url}`);
    args.push(`--redis-url=${url}`);
    cleanup = async () => {
      await flushRedisDb(url);
    };
  } else if (store === 'postgres') {
    const url = options.postgresUrl ?? DEFAULT_POSTGRES_URL;
    await resetBenchSchema(url);
    args.push(`--postgres-url=${benchSchemaUrl(url)}`);
    cleanup = () => dropBenchSchema(url);
  } else if (store === 'cluster') {
    const cluster = options.cluster;
    if (!cluster) throw new Error('--store=cluster needs a running cluster (startBenchCluster)');
    await cluster.flush();
    args.push(`--cluster-url=${cluster.url}`);
    cleanup = () => cluster.flush();
  }
  let child: Child<ReadyLine>;
  try {
    child = await startChild<ReadyLine>(`silo-${store}`, './server.ts', args, {
      ...options,
      nodeArgs: ['--expose-gc', ...(options.nodeArgs ?? [])],
    });
  } catch (err) {
    await cleanup();
    throw err;
  }
  return {
    store,
    child,
    async dispose() {
      await child.stop();
      await cleanup();
    },
  };
}

export function startBaseline(kind: BaselineKind, options: StartOptions = {}): Promise<Child<BaselineReady>> {
  return startChild<BaselineReady>(kind, './baselines.ts', [`--kind=${kind}`], options);
}
