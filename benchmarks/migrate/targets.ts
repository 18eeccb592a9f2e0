/**
 * The stores `silo migrate` writes into, each emptied before and after every run, nothing else
 * touched:
 * - SQLite: a new file in the suite's temporary directory, removed after the run;
 * - Redis: database 2 of 127.0.0.1:6379 only, FLUSHDB after CLIENT INFO shows the connection is on
 *   database 2 (http/targets.ts flushRedisDb);
 * - PostgreSQL: a schema of the suite's own in database `test`, dropped and made again, dropped at
 *   the end;
 * - Redis Cluster: three masters of the suite's own (test/support startOwnCluster), FLUSHALL,
 *   stopped at the end.
 * A store that cannot be reached is a target not run, with the reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { displayUrl, flushRedisDb, postgresUnreachable, startBenchCluster } from '../http/targets.js';

export type TargetName = 'SQLite' | 'Redis' | 'PostgreSQL' | 'Redis Cluster';
export const TARGET_NAMES: TargetName[] = ['SQLite', 'Redis', 'PostgreSQL', 'Redis Cluster'];

export const REDIS_URL = 'redis://127.0.0.1:6379/2';
export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `silo_bench_migrate_${process.pid}`;

export interface Target {
  name: TargetName;
  /** Empties the store; resolves to the URL for `--to`. */
  empty(): Promise<string>;
  /** Empties it again and gives back what it holds (files, keys, tables). */
  clear(): Promise<void>;
  /** At the end of the suite: the last cleanup (a cluster is stopped, a schema dropped). */
  dispose(): Promise<void>;
}

export interface NotRun {
  name: TargetName;
  reason: string;
}

async function withPostgres(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const dropSchema = () => withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`));

function sqliteTarget(dir: string): Target {
  let run = 0;
  let file = '';
  const clear = async () => {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  };
  return {
    name: 'SQLite',
    async empty() {
      file = path.join(dir, `target-${++run}.sqlite`);
      await clear();
      return `sqlite://${file}`;
    },
    clear,
    dispose: clear,
  };
}

async function redisTarget(): Promise<Target | NotRun> {
  const flush = async () => {
    if (!(await flushRedisDb(REDIS_URL))) throw new Error(`Redis is not reachable at ${REDIS_URL}`);
  };
  try {
    if (!(await flushRedisDb(REDIS_URL))) return { name: 'Redis', reason: `Redis not reachable at ${REDIS_URL}` };
  } catch (err) {
    return { name: 'Redis', reason: err instanceof Error ? err.message : String(err) };
  }
  return { name: 'Redis', empty: async () => (await flush(), REDIS_URL), clear: flush, dispose: flush };
}

async function postgresTarget(): Promise<Target | NotRun> {
  const why = await postgresUnreachable(POSTGRES_URL);
  if (why) return { name: 'PostgreSQL', reason: `PostgreSQL not reachable at ${displayUrl(POSTGRES_URL)}: ${why}` };
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${SCHEMA}`);
  return {
    name: 'PostgreSQL',
    async empty() {
      await withPostgres(async (c) => {
        await c.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
        await c.query(`CREATE SCHEMA "${SCHEMA}"`);
      });
      return url.toString();
    },
    clear: dropSchema,
    dispose: dropSchema,
  };
}

async function clusterTarget(): Promise<Target | NotRun> {
  const cluster = await startBenchCluster();
  if ('reason' in cluster) return { name: 'Redis Cluster', reason: cluster.reason };
  return {
    name: 'Redis Cluster',
    empty: async () => (await cluster.flush(), cluster.url),
    clear: () => cluster.flush(),
    dispose: () => cluster.dispose(),
  };
}

/** Every target that can run here, and the others with their reason. */
export async function openTargets(dir: string): Promise<{ targets: Target[]; notRun: NotRun[] }> {
  const opened = [sqliteTarget(dir), await redisTarget(), await postgresTarget(), await clusterTarget()];
  return {
    targets: opened.filter((t): t is Target => 'empty' in t),
    notRun: opened.filter((t): t is NotRun => 'reason' in t),
  };
}
