/**
 * The server of the metrics-and-audit cost A/B (cost.ts): koa-silo's build (packages/koa-silo/dist)
 * on a bare Koa app over silo-server's embedded SQLite store, as `silo serve` opens it, rate
 * limiting off, in one of two variants:
 *
 * - `with`: metrics on (scraped every 5 s by this process, as Prometheus would) and the audit log
 *   as it is: every write commits its entry (on SQLite, one row of the store's audit log);
 * - `without`: metrics off, and the store's atomic batches stripped of the audit log's rows (and
 *   the records and index entries of the generic layout) before they reach SQLite (the entry is
 *   still built and serialized: that part of the cost, a few µs, is counted on both sides).
 *
 * `--audit-layout=records` hides the store's own audit log (koa-silo's AuditLogAdapter), so that
 * entries are written as on stores without one: a record and three sorted-index entries, each with
 * its count (the layout SQLite had before; for comparison).
 *
 *   node --import tsx benchmarks/ops/server.ts --variant=with|without --data-dir=DIR [--patch-silos=16] [--audit-layout=rows|records]
 *
 * Prints one JSON line `{"ready": true, pid, port, keys, read, patch: [...]}` once it listens.
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createSilo, REGIONS, type AtomicBatch } from '../../packages/koa-silo/dist/index.js';
import { openStores, parseStoreUrl } from '../../packages/silo-server/dist/stores.js';
import { makeDocument } from '../http/data.js';
import { stripAuditWrites } from './strip-audit.js';

const arg = (name: string) => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const variant = arg('variant');
if (!['with', 'without', 'metrics-only', 'audit-only'].includes(variant ?? '')) throw new Error('--variant=with|without|metrics-only|audit-only');
const metricsOn = variant === 'with' || variant === 'metrics-only';
const auditOn = variant === 'with' || variant === 'audit-only';
const dir = arg('data-dir');
if (!dir) throw new Error('--data-dir=DIR');
const patchCount = Number(arg('patch-silos') ?? 16);

const location = parseStoreUrl(`sqlite://${path.join(dir, 'silo.sqlite')}`);
const stores = await openStores({ main: location, regions: Object.fromEntries(REGIONS.map((r) => [r, location])) as Record<(typeof REGIONS)[number], typeof location> });

if (arg('audit-layout') === 'records') {
  // An own property shadows the store's getter: koa-silo then finds no audit log of its own.
  Object.defineProperty(stores.main.keyv.store, 'auditLog', { value: undefined });
}

// The audit log's writes never reach the store.
if (!auditOn) stripAuditWrites(stores.main.keyv.store as { atomic(batch: AtomicBatch): Promise<boolean> });

const silo = createSilo({
  store: stores.main.keyv,
  regionStores: Object.fromEntries(REGIONS.map((r) => [r, stores.regions[r].keyv])),
  plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 } },
  rateLimit: { store: 'memory' },
  notFound: 'json',
  sweepIntervalMs: 0,
  auditPruneIntervalMs: 0,
  ...(metricsOn ? { metrics: true } : {}),
  logger: { error: (message: string, err?: unknown) => console.error(message, err) },
});

await silo.accounts.createAccount('bench');
const manage = await silo.accounts.createKey({ account: 'bench', type: 'manage', name: 'bench', duration: 'never' });
const access = await silo.accounts.createKey({ account: 'bench', type: 'access', name: 'bench' });
const read = await silo.silos.create('bench', { file_name: 'read', file_data: makeDocument(1024, 0) });
const patch: string[] = [];
for (let i = 0; i < patchCount; i++) patch.push((await silo.silos.create('bench', { file_name: `patch-${i}`, file_data: makeDocument(1024, i + 1) })).file_uuid);

let scrapes = 0;
if (silo.metrics) {
  const timer = setInterval(() => void silo.metrics!.text().then(() => scrapes++), 5000);
  timer.unref();
}

const app = new Koa();
app.use(silo.middleware());
const server = http.createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
process.stdout.write(
  `${JSON.stringify({ ready: true, pid: process.pid, port: (server.address() as AddressInfo).port, keys: { manage: manage.key, access: access.key }, read: read.file_uuid, patch, bytes: read.size })}\n`,
);

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => {
    void silo
      .close()
      .then(() => stores.close())
      .then(() => process.exit(0));
  });
});
