/**
 * The Silo servers the HTTP benchmarks measure: koa-silo mounted in-process on a bare Koa app
 * (server.ts), one per store, and `silo serve` as shipped, spawned as a user starts it (serve.ts).
 */

/** koa-silo on a bare Koa app (server.ts), by store. */
export type StoreKind = 'memory' | 'sqlite' | 'redis' | 'postgres' | 'cluster';

/** `node packages/silo-server/bin/silo.js serve` (serve.ts), by store. */
export type ServeKind = 'serve-sqlite' | 'serve-redis';

/** A Silo server of the benchmarks: the column of its scenarios (`s1-<kind>`, ...). */
export type SiloKind = StoreKind | ServeKind;

export const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite', 'redis', 'postgres', 'cluster'];
export const SERVE_KINDS: readonly ServeKind[] = ['serve-sqlite', 'serve-redis'];
export const SILO_KINDS: readonly SiloKind[] = [...STORE_KINDS, ...SERVE_KINDS];

export function isServeKind(kind: string): kind is ServeKind {
  return (SERVE_KINDS as readonly string[]).includes(kind);
}
