/**
 * Store URLs → Keyv stores.
 *
 * - `sqlite://<path>`: the embedded store (`sqlite:///abs/file.sqlite`, `sqlite://relative.sqlite`,
 *   `sqlite://:memory:`). Each store role is its own table in the file: `main` (accounts, keys,
 *   silo metadata) and `region_api`, `region_sg_01_api`, `region_usc_01_api` (silo data).
 * - `redis://[user:password@]host[:port][/db]` (or `rediss://`): each role is its own Keyv
 *   namespace in that database (`silo:main::<key>`, `silo:region:api::<key>`, ...). Processes
 *   given the same URL share one client per URL.
 * - `postgres://[user:password@]host[:port]/db[?sslmode=verify-full&...]` (or `postgresql://`): each
 *   role is its own table, as on SQLite, made at start (see postgres-store.ts); one pool per URL.
 *
 * Every Keyv made here throws storage errors (`throwOnErrors`), so that an outage becomes a 503
 * rather than a silent "not found". A Redis that cannot be reached at start is an error within
 * `connectTimeoutMs`; once started, the client reconnects by itself and commands fail fast while it
 * is away (no offline queue), so requests answer 503 instead of hanging.
 */
import path from 'node:path';
import Keyv from 'keyv';
import KeyvRedis, { createClient, createCluster, type RedisClientType, type RedisClusterType } from '@keyv/redis';
import pg from 'pg';
import { DEFAULT_RATE_LIMIT_TABLE, type EventBus } from 'koa-silo';
import { REGIONS, type Region } from 'koa-silo/model';
import { PostgresStore, underSchemaLock } from './postgres-store.js';
import { postgresBus } from './postgres-events.js';
import { sqliteBus } from './sqlite-events.js';
import { SqliteStore, sqliteKeyv, type SqliteSynchronous } from './sqlite-store.js';

export type StoreRole = 'main' | Region;

export type StoreLocation =
  | { kind: 'sqlite'; path: string; url: string }
  | { kind: 'redis'; url: string; db: number; display: string }
  | { kind: 'postgres'; url: string; display: string; poolSize: number; statementTimeoutMs: number };

/** A problem with configuration or storage found at start: reported as one line, no stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** The URL of a database server, parsed, with a host; errors name `what` and never print a password. */
function serverUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StartupError(`not a valid ${what} URL: ${redact(value)}`);
  }
  if (!url.hostname) throw new StartupError(`a ${what} URL needs a host: ${redact(value)}`);
  return url;
}

/** How long one PostgreSQL statement may run by default (koa-silo's storage time limit is 5 s too). */
const POSTGRES_STATEMENT_TIMEOUT_MS = 5000;
const POSTGRES_POOL_SIZE = 10;

/** An integer query parameter of a store URL, taken out of it (the driver would not know it). */
function urlInteger(url: URL, name: string, fallback: number, min: number, max: number, raw: string): number {
  const text = url.searchParams.get(name);
  url.searchParams.delete(name);
  if (text === null) return fallback;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new StartupError(`${name} in ${redact(raw)} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

/** Parses and validates a store URL. Relative SQLite paths resolve against `cwd`. */
export function parseStoreUrl(raw: string, cwd = process.cwd()): StoreLocation {
  const value = raw.trim();
  if (value.startsWith('sqlite://')) {
    const p = value.slice('sqlite://'.length);
    if (p === '') throw new StartupError('a sqlite:// store URL needs a file path, e.g. sqlite://./.silo-data/silo.sqlite');
    if (p === ':memory:') return { kind: 'sqlite', path: ':memory:', url: 'sqlite://:memory:' };
    if (p.endsWith('/')) throw new StartupError(`a sqlite:// store URL names a file, not a directory: ${value}`);
    const abs = path.resolve(cwd, p);
    return { kind: 'sqlite', path: abs, url: `sqlite://${abs}` };
  }
  if (value.startsWith('redis://') || value.startsWith('rediss://')) {
    const url = serverUrl(value, 'Redis');
    if (url.port !== '' && !(Number(url.port) >= 1 && Number(url.port) <= 65535)) {
      throw new StartupError(`invalid Redis port in ${redact(value)}`);
    }
    const dbPart = url.pathname.replace(/^\//, '');
    if (dbPart !== '' && !/^(0|[1-9][0-9]{0,4})$/.test(dbPart)) {
      throw new StartupError(`the Redis database in ${redact(value)} must be a non-negative integer (redis://host:port/db)`);
    }
    const db = dbPart === '' ? 0 : Number(dbPart);
    return { kind: 'redis', url: value, db, display: redact(value) };
  }
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    const url = serverUrl(value, 'PostgreSQL');
    if (url.pathname.replace(/^\//, '') === '') throw new StartupError(`a PostgreSQL URL needs a database: ${redact(value)} (postgres://host:port/db)`);
    // Silo's own settings ride in the URL (one pool per URL); the rest (sslmode, options) is the driver's.
    const poolSize = urlInteger(url, 'pool_size', POSTGRES_POOL_SIZE, 1, 1000, value);
    const statementTimeoutMs = urlInteger(url, 'statement_timeout_ms', POSTGRES_STATEMENT_TIMEOUT_MS, 100, 3_600_000, value);
    return { kind: 'postgres', url: url.toString(), display: redact(url.toString()), poolSize, statementTimeoutMs };
  }
  throw new StartupError(
    `unsupported store URL ${JSON.stringify(redact(value))}: use sqlite://<path>, redis://host:port[/db] or postgres://host:port/db`,
  );
}

/**
 * A URL fit for logs and errors: any password replaced by `***`, in the credentials or in a query
 * parameter (`password`, `sslpassword`, any `…secret`, `…token`, `auth`). The URL may be malformed (that
 * is when it gets printed in an error), so everything up to the last `@` counts as credentials,
 * whatever it holds (`/`, `?`, `#` and `@` included), whatever the scheme; only a user name
 * before the first `:` stays.
 */
export function redact(url: string): string {
  return redactCredentials(redactSecretParams(url));
}

/** Query parameters that carry a secret (`?password=` is read by PostgreSQL's driver, as `user:password@`). */
const SECRET_PARAM = /([?&](?:[a-z_]*pass(?:word)?|[a-z_]*secret|[a-z_]*token|auth)=)[^&#]*/gi;

function redactSecretParams(url: string): string {
  return url.replace(SECRET_PARAM, '$1***');
}

function redactCredentials(url: string): string {
  const m = /^(\s*[a-z][a-z0-9+.-]*:\/*)(.*)@/is.exec(url);
  if (!m) return url;
  const cred = m[2]!;
  const colon = cred.indexOf(':');
  // PostgreSQL's user position holds a user name only (a password needs the colon); Redis may read
  // a lone credential as the password, so there it is hidden too.
  if (colon < 0 && /^\s*postgres(ql)?:\/\/$/i.test(m[1]!) && /^[^/?#@\s]+$/.test(cred)) return url;
  const user = colon > 0 && !/[/?#@\s]/.test(cred.slice(0, colon)) ? cred.slice(0, colon) : '';
  return `${m[1]}${user}:***@${url.slice(m[0].length)}`;
}

export function describeLocation(location: StoreLocation): string {
  return location.kind === 'sqlite' ? location.url : location.display;
}

/** The table (SQLite, PostgreSQL) or namespace (Redis) of a role. */
export function sqliteTable(role: StoreRole): string {
  return role === 'main' ? 'main' : `region_${role.replace(/-/g, '_')}`;
}
export function redisNamespace(role: StoreRole): string {
  return role === 'main' ? 'silo:main' : `silo:region:${role}`;
}

export interface StoreHandle {
  role: StoreRole;
  location: StoreLocation;
  keyv: Keyv;
}

export interface OpenStoresOptions {
  main: StoreLocation;
  regions: Record<Region, StoreLocation>;
  sqliteSynchronous?: SqliteSynchronous;
  /** How long to wait for each Redis at start. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Storage state changes (Redis lost / back). */
  log?: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export interface Stores {
  main: StoreHandle;
  regions: Record<Region, StoreHandle>;
  /** The connected Redis client of the main store's URL, when it is Redis (for shared rate limits). */
  redis?: RedisClientType | RedisClusterType;
  /** The pool of the main store's URL, when it is PostgreSQL (for shared rate limits, table made). */
  postgres?: pg.Pool;
  /** The change feed's bus on the main store's PostgreSQL or SQLite file (Redis's is made by koa-silo itself). */
  events?: EventBus;
  /** Resolves when every store answers; rejects with a message naming the first that does not. */
  check(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface RedisConn {
  location: Extract<StoreLocation, { kind: 'redis' }>;
  client: RedisClientType | RedisClusterType;
  /** Whether the URL named a node of a Redis Cluster (then `client` is a cluster client). */
  cluster: boolean;
}

/** Closes a client that may be half-open, without waiting for a server that does not answer. */
function destroyQuietly(client: { isOpen: boolean; destroy(): void }): void {
  try {
    if (client.isOpen) client.destroy();
  } catch {
    // Already closed: nothing to release.
  }
}

/** PING on a single Redis or on every master of a cluster. */
async function pingRedis(conn: RedisConn): Promise<void> {
  if (!conn.cluster) {
    await (conn.client as RedisClientType).ping();
    return;
  }
  const cluster = conn.client as RedisClusterType;
  await Promise.all(cluster.masters.map(async (node) => (await cluster.nodeClient(node)).ping()));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function connectRedis(
  location: Extract<StoreLocation, { kind: 'redis' }>,
  timeoutMs: number,
  log: NonNullable<OpenStoresOptions['log']>,
): Promise<RedisConn> {
  let lastError: Error | undefined;
  let up = false;
  let started = false;
  const client = createClient({
    url: location.url,
    // Commands fail at once while the connection is down, so a request answers 503, never hangs.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: Math.min(timeoutMs, 2000),
      // At start, three failed attempts in a row (about 0.7 s) are an answer: give up. Once
      // started, retry forever (at most 1 s apart) so that the server recovers by itself.
      reconnectStrategy: (retries: number, cause: Error) => (!started && retries >= 3 ? cause : Math.min(100 * 2 ** retries, 1000)),
    },
  }) as unknown as RedisClientType;
  client.on('error', (error: Error) => {
    if (up) log('error', 'storage unreachable', { store: location.display, error: error.message });
    up = false;
    lastError = error;
  });
  client.on('ready', () => {
    if (lastError && !up) log('info', 'storage reachable again', { store: location.display });
    up = true;
  });
  let cluster: RedisClusterType | undefined;
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        const info = String(await client.sendCommand(['INFO', 'cluster']));
        if (!/^cluster_enabled:1\b/m.test(info)) return;
        // A node of a cluster: talk to the whole cluster, found from this node.
        if (location.db !== 0) throw clusterDbError(location);
        destroyQuietly(client);
        cluster = connectCluster(location, timeoutMs, log);
        await cluster.connect();
        await pingRedis({ location, client: cluster, cluster: true });
      })(),
      timeoutMs,
      () => lastError?.message ?? `no answer within ${timeoutMs} ms`,
    );
    up = true;
    started = true;
    return cluster ? { location, client: cluster, cluster: true } : { location, client, cluster: false };
  } catch (error) {
    destroyQuietly(client);
    if (cluster) destroyQuietly(cluster);
    if (error instanceof StartupError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // The client selects the URL's database as it connects, which a cluster node refuses.
    if (/SELECT is not allowed in cluster mode/.test(reason)) throw clusterDbError(location);
    throw new StartupError(`cannot reach Redis at ${location.display}: ${reason}`);
  }
}

function clusterDbError(location: Extract<StoreLocation, { kind: 'redis' }>): StartupError {
  return new StartupError(`${location.display} is a Redis Cluster node: a cluster has database 0 only`);
}

/**
 * A cluster client seeded with the node of `location`. Its node connections behave as the single
 * client's: no offline queue (a command while a node is away fails at once, a 503), reconnect by
 * themselves at most 1 s apart.
 */
function connectCluster(
  location: Extract<StoreLocation, { kind: 'redis' }>,
  timeoutMs: number,
  log: NonNullable<OpenStoresOptions['log']>,
): RedisClusterType {
  const url = new URL(location.url);
  const cluster = createCluster({
    rootNodes: [{ url: location.url }],
    defaults: {
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.min(timeoutMs, 2000),
        ...(url.protocol === 'rediss:' ? { tls: true } : {}),
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1000),
      },
    },
  }) as unknown as RedisClusterType;
  let up = true;
  const lost = (error: Error) => {
    if (up) log('error', 'storage unreachable', { store: location.display, error: error.message });
    up = false;
  };
  cluster.on('error', lost);
  cluster.on('node-error', lost);
  cluster.on('node-ready', () => {
    if (!up) log('info', 'storage reachable again', { store: location.display });
    up = true;
  });
  return cluster;
}

function openSqlite(role: StoreRole, location: Extract<StoreLocation, { kind: 'sqlite' }>, synchronous: SqliteSynchronous): StoreHandle {
  let store: SqliteStore;
  try {
    store = new SqliteStore({ path: location.path, table: sqliteTable(role), synchronous });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot open the SQLite store ${location.path}: ${reason}`);
  }
  const keyv = sqliteKeyv(store);
  return { role, location, keyv };
}

/** A pool on `location`, answering within `timeoutMs` at start (else one StartupError line). */
async function connectPostgres(
  location: Extract<StoreLocation, { kind: 'postgres' }>,
  timeoutMs: number,
  log: NonNullable<OpenStoresOptions['log']>,
): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: location.url,
    max: location.poolSize,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: location.statementTimeoutMs,
  });
  // Idle connections the server dropped (a restart, an outage: all of them at once): the pool makes
  // new ones at the next queries; a read that meets a dead one retries on another
  // (postgres-lost-connections.ts), a write gets a 503. One line when they go, one when a
  // connection is made again, as Redis's client says it.
  let lost = false;
  pool.on('error', (error: Error) => {
    if (!lost) log('warn', 'storage connection lost', { store: location.display, error: error.message });
    lost = true;
  });
  pool.on('connect', () => {
    if (lost) log('info', 'storage reachable again', { store: location.display });
    lost = false;
  });
  let schema: string | null;
  try {
    const answer = await withTimeout(pool.query<{ schema: string | null }>('SELECT current_schema() AS schema'), timeoutMs, () => `no answer within ${timeoutMs} ms`);
    schema = answer.rows[0]?.schema ?? null;
  } catch (error) {
    await pool.end().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot reach PostgreSQL at ${location.display}: ${reason}`);
  }
  if (schema === null) {
    // PostgreSQL's own word for it ("no schema has been selected to create in") comes only at the first CREATE.
    await pool.end().catch(() => undefined);
    throw new StartupError(
      `the search_path of ${location.display} names no schema that exists, so Silo has nowhere to make its tables: ` +
        'create it first (CREATE SCHEMA <name>) or leave search_path out of the URL for "public"',
    );
  }
  return pool;
}

/** rate-limiter-flexible's table of counters (its own definition), made before any request. */
function makeRateLimitTable(pool: pg.Pool): Promise<void> {
  return underSchemaLock(pool, async (client) => {
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${DEFAULT_RATE_LIMIT_TABLE}" (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    );
  });
}

async function openPostgres(role: StoreRole, location: Extract<StoreLocation, { kind: 'postgres' }>, pool: pg.Pool): Promise<StoreHandle> {
  const store = await PostgresStore.open({ pool, table: sqliteTable(role) });
  return { role, location, keyv: new Keyv({ store, namespace: undefined, useKeyPrefix: false, throwOnErrors: true }) };
}

function openRedis(role: StoreRole, conn: RedisConn): StoreHandle {
  const namespace = redisNamespace(role);
  const store = new KeyvRedis(conn.client as never, { namespace, throwOnErrors: true, throwOnConnectError: true });
  // The adapter prefixes keys itself (`namespace::key`), as @keyv/redis's createKeyv does.
  const keyv = new Keyv(store, { namespace, useKeyPrefix: false, throwOnErrors: true });
  return { role, location: conn.location, keyv };
}

/** Opens every store; on any failure closes what was opened and throws a StartupError. */
export async function openStores(options: OpenStoresOptions): Promise<Stores> {
  const log = options.log ?? (() => {});
  const synchronous = options.sqliteSynchronous ?? 'normal';
  const timeoutMs = options.connectTimeoutMs ?? 2000;
  const conns = new Map<string, RedisConn>();
  const pools = new Map<string, pg.Pool>();
  /** The main store's pool when it is PostgreSQL: its rate-limit counters live there too. */
  let mainPool: pg.Pool | undefined;
  let events: EventBus | undefined;
  const handles: StoreHandle[] = [];
  const closeAll = async () => {
    await events?.close().catch(() => {});
    for (const pool of pools.values()) await pool.end().catch(() => {});
    for (const h of handles) {
      if (h.location.kind === 'sqlite') await h.keyv.disconnect().catch(() => {});
    }
    for (const c of conns.values()) {
      if (c.client.isOpen) await c.client.close().catch(() => c.client.destroy());
    }
  };
  try {
    const all: Array<[StoreRole, StoreLocation]> = [['main', options.main], ...REGIONS.map((r) => [r, options.regions[r]] as [StoreRole, StoreLocation])];
    // Connect every distinct Redis at once so that the whole start stays within one timeout.
    const redisLocations = new Map<string, Extract<StoreLocation, { kind: 'redis' }>>();
    for (const [, loc] of all) if (loc.kind === 'redis') redisLocations.set(loc.url, loc);
    const postgresLocations = new Map<string, Extract<StoreLocation, { kind: 'postgres' }>>();
    for (const [, loc] of all) if (loc.kind === 'postgres') postgresLocations.set(loc.url, loc);
    const results = await Promise.allSettled([
      ...[...redisLocations.values()].map(async (loc) => conns.set(loc.url, await connectRedis(loc, timeoutMs, log))),
      ...[...postgresLocations.values()].map(async (loc) => pools.set(loc.url, await connectPostgres(loc, Math.max(timeoutMs, 5000), log))),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    for (const [role, loc] of all) {
      if (loc.kind === 'sqlite') handles.push(openSqlite(role, loc, synchronous));
      else if (loc.kind === 'redis') handles.push(openRedis(role, conns.get(loc.url)!));
      else handles.push(await openPostgres(role, loc, pools.get(loc.url)!));
    }
    mainPool = options.main.kind === 'postgres' ? pools.get(options.main.url) : undefined;
    if (mainPool) {
      await makeRateLimitTable(mainPool);
      events = postgresBus(mainPool, (msg, fields) => log('warn', msg, fields));
    }
    if (options.main.kind === 'sqlite' && options.main.path !== ':memory:') {
      events = sqliteBus((handles[0]!.keyv.store as SqliteStore).database, (msg, fields) => log('warn', msg, fields));
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const [main, ...regionHandles] = handles as [StoreHandle, ...StoreHandle[]];
  const regions = Object.fromEntries(regionHandles.map((h) => [h.role, h])) as Record<Region, StoreHandle>;
  const mainConn = options.main.kind === 'redis' ? conns.get(options.main.url) : undefined;
  let closed = false;
  return {
    main,
    regions,
    ...(mainConn ? { redis: mainConn.client } : {}),
    ...(mainPool ? { postgres: mainPool } : {}),
    ...(events ? { events } : {}),
    async check(checkTimeoutMs = 1000) {
      for (const h of handles) {
        if (h.location.kind === 'sqlite') {
          (h.keyv.store as SqliteStore).check();
        }
      }
      await Promise.all(
        [...pools].map(([url, pool]) =>
          withTimeout(pool.query('SELECT 1'), checkTimeoutMs, () => `no answer within ${checkTimeoutMs} ms`).catch((error: unknown) => {
            throw new Error(`PostgreSQL ${redact(url)}: ${error instanceof Error ? error.message : String(error)}`);
          }),
        ),
      );
      await Promise.all(
        [...conns.values()].map((c) =>
          withTimeout(pingRedis(c), checkTimeoutMs, () => `no answer within ${checkTimeoutMs} ms`).catch((error: unknown) => {
            throw new Error(`Redis ${c.location.display}: ${error instanceof Error ? error.message : String(error)}`);
          }),
        ),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeAll();
    },
  };
}
