/**
 * Starting the servers of the benchmarks (Silo on each store, the baselines) and the Redis
 * database they use: only database 11 by default, flushed before and after, never another one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import type { BaselineKind, BaselineReady } from './baselines.js';
import { startChild, type Child, type StartOptions } from './children.js';
import type { ReadyLine, SeedKind, StoreKind } from './server.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/11';

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
  store: StoreKind;
  child: Child<ReadyLine>;
  /** Stops the server, then removes its temp dir or flushes its Redis database. */
  dispose(): Promise<void>;
}

export interface SiloStartOptions extends StartOptions {
  seed?: SeedKind;
  redisUrl?: string;
  patchSilos?: number;
  /** Measure another koa-silo build (its dist/index.js) instead of packages/koa-silo/dist. */
  siloModule?: string;
}

export async function startSilo(store: StoreKind, options: SiloStartOptions = {}): Promise<SiloTarget> {
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
