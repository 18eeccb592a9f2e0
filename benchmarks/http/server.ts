/**
 * The Silo server under test, in its own process: `createSilo` from the built koa-silo
 * (packages/koa-silo/dist) mounted on a bare Koa app, over the store named on the command line,
 * rate limiting off. It seeds the silos the scenarios need through the programmatic API, then
 * prints one JSON line (`{"ready": true, ...}`) with the port, keys and silo uuids.
 *
 *   node --import tsx benchmarks/http/server.ts --store=memory|sqlite|redis|postgres|cluster [--port=0]
 *        [--seed=standard|big] [--data-dir=DIR] [--redis-url=redis://127.0.0.1:6379/11]
 *        [--postgres-url=postgres://...?options=-c%20search_path%3D...] [--cluster-url=redis://127.0.0.1:PORT]
 *        [--silo-module=/abs/path/to/another/koa-silo/dist/index.js]
 *
 * - memory: `new Keyv()`.
 * - sqlite: silo-server's embedded store (packages/silo-server/dist) in `--data-dir`, opened as
 *   `silo serve` opens it (one file, a table per store role, WAL, synchronous=NORMAL).
 * - redis:  silo-server's Redis stores on `--redis-url` (a database the harness has flushed).
 * - postgres: silo-server's PostgreSQL stores on `--postgres-url` (a schema the harness has made
 *   empty, named by the URL's search_path; the server makes its tables there at start).
 * - cluster: silo-server's Redis stores on `--cluster-url`, one node of a Redis Cluster the harness
 *   started and flushed (openStores detects the cluster from that node).
 *
 * SIGTERM closes the server and the stores, then exits 0 (so that `--cpu-prof` writes its file).
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Keyv } from 'keyv';
import { pathToFileURL } from 'node:url';
import * as builtKoaSilo from '../../packages/koa-silo/dist/index.js';
import type { Silo, SiloData, SiloOptions } from '../../packages/koa-silo/dist/index.js';
import { openStores, parseStoreUrl, type Stores } from '../../packages/silo-server/dist/stores.js';
import { seedSilos } from './data.js';

import type { SiloKind, StoreKind } from './kinds.js';

export type { StoreKind } from './kinds.js';
export type SeedKind = 'standard' | 'big';

/** What the server prints once it listens (one JSON line on stdout). */
export interface ReadyLine {
  ready: true;
  pid: number;
  port: number;
  /** The scenarios' column: this server's store, or `serve-<store>` for `silo serve` (serve.ts). */
  store: SiloKind;
  seed: SeedKind;
  keys: { manage: string; access: string };
  /** Silo uuids by role (standard: small, large, items, contended, patch0..; big: big). */
  silos: Record<string, string>;
  /** The per-connection PATCH targets (standard seed). */
  patchSilos: string[];
  /** Compact JSON bytes of each seeded data set. */
  bytes: Record<string, number>;
  seedMs: number;
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.slice(2).find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const store = (arg('store') ?? 'memory') as StoreKind;
const seed = (arg('seed') ?? 'standard') as SeedKind;
const port = Number(arg('port') ?? 0);
const patchCount = Number(arg('patch-silos') ?? 50);

// Another build of koa-silo (a branch, an experiment) can be measured in place of packages/koa-silo/dist.
const siloModulePath = arg('silo-module');
const { createSilo, REGIONS } = siloModulePath
  ? ((await import(pathToFileURL(path.resolve(siloModulePath)).href)) as typeof builtKoaSilo)
  : builtKoaSilo;

async function openSiloOn(kind: StoreKind): Promise<{ silo: Silo; stores?: Stores }> {
  const options: SiloOptions = {
    // Rate limiting off (0 per minute); the default 10 MB data limit.
    plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 } },
    rateLimit: { store: 'memory' },
    notFound: 'json',
    logger: { error: (message: string, err?: unknown) => console.error(message, err) },
  };
  if (kind === 'memory') return { silo: createSilo({ ...options, store: new Keyv() }) };
  let url: string;
  if (kind === 'sqlite') {
    const dir = arg('data-dir');
    if (!dir) throw new Error('--store=sqlite needs --data-dir');
    url = `sqlite://${path.join(dir, 'silo.sqlite')}`;
  } else if (kind === 'redis') {
    url = arg('redis-url') ?? 'redis://127.0.0.1:6379/11';
  } else if (kind === 'postgres' || kind === 'cluster') {
    // No default: the schema or cluster must be one the harness made for this server and cleans.
    const given = arg(`${kind}-url`);
    if (!given) throw new Error(`--store=${kind} needs --${kind}-url`);
    url = given;
  } else {
    throw new Error(`unknown store ${String(kind)}`);
  }
  const location = parseStoreUrl(url);
  const stores = await openStores({
    main: location,
    regions: Object.fromEntries(REGIONS.map((r) => [r, location])) as Record<(typeof REGIONS)[number], typeof location>,
  });
  // A cluster URL that reached a plain Redis would be measured as the redis column: refuse it.
  if (kind === 'cluster' && !(stores.redis && 'masters' in stores.redis)) {
    await stores.close();
    throw new Error(`--cluster-url ${url} is not a node of a Redis Cluster`);
  }
  const silo = createSilo({
    ...options,
    store: stores.main.keyv,
    regionStores: Object.fromEntries(REGIONS.map((r) => [r, stores.regions[r].keyv])),
  });
  return { silo, stores };
}

async function seedSilo(silo: Silo): Promise<Omit<ReadyLine, 'ready' | 'pid' | 'port' | 'store' | 'seed'>> {
  const started = performance.now();
  await silo.accounts.createAccount('bench');
  const manage = await silo.accounts.createKey({ account: 'bench', type: 'manage', name: 'bench', duration: 'never' });
  const access = await silo.accounts.createKey({ account: 'bench', type: 'access', name: 'bench' });
  const silos: Record<string, string> = {};
  const bytes: Record<string, number> = {};
  const patchSilos = await seedSilos(seed, patchCount, async (role, data, isPublic) => {
    const record = await silo.silos.create('bench', { file_name: `bench-${role}`, file_data: data as SiloData, is_public: isPublic });
    silos[role] = record.file_uuid;
    bytes[role] = record.size;
    return record.file_uuid;
  });
  return { keys: { manage: manage.key, access: access.key }, silos, patchSilos, bytes, seedMs: performance.now() - started };
}

async function main(): Promise<void> {
  const { silo, stores } = await openSiloOn(store);
  const seeded = await seedSilo(silo);
  // Started with --expose-gc by the harness: drop the seeding garbage, so that the memory the
  // server holds when the load starts is what it keeps, not what seeding left behind.
  (globalThis as { gc?: () => void }).gc?.();

  const app = new Koa();
  app.use(silo.middleware());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const line: ReadyLine = {
    ready: true,
    pid: process.pid,
    port: (server.address() as AddressInfo).port,
    store,
    seed,
    ...seeded,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await silo.close().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  console.error(`bench server (${store}) failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
