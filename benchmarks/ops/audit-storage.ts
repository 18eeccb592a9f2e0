/**
 * What an audit entry costs the storage alone, without HTTP and without a load generator sharing
 * the cores (benchmarks/ops/cost.ts measures the server; its ranges are wide): koa-silo's build
 * over silo-server's SQLite store, as `silo serve` opens it, 16 silos of 1 KB written by 16
 * concurrent writers (`silo.silos.update`, new file_data), in one process; CPU of this process per
 * write, in turns of three variants, each a fresh store:
 *
 * - `rows`: the store's own audit log, an entry one row (koa-silo's AuditLogAdapter);
 * - `records`: that log hidden, entries as stores without one write them (a record and three
 *   sorted-index rows, each with its count), the layout SQLite had before;
 * - `none`: the audit log's rows and records stripped from the store's batches (the entry still
 *   built, as on the other sides).
 *
 *   npx tsc -b && node --import tsx benchmarks/ops/audit-storage.ts [--turns=4]
 *
 * Prints, per variant, the median and the lowest of every round's µs per write (the lowest is the
 * least disturbed by other work on the machine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSilo, REGIONS, type AtomicBatch } from '../../packages/koa-silo/dist/index.js';
import { openStores, parseStoreUrl } from '../../packages/silo-server/dist/stores.js';
import { median } from '../common.js';
import { stripAuditWrites } from './strip-audit.js';
import { makeDocument } from '../http/data.js';

type Variant = 'rows' | 'records' | 'none';
const TURNS = Number(process.argv.slice(2).find((a) => a.startsWith('--turns='))?.slice(8) ?? 4);
const WRITERS = 16;
const ROUNDS = 7;
const PER_ROUND = 150;

async function measure(variant: Variant): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `silo-audit-storage-${variant}-`));
  const location = parseStoreUrl(`sqlite://${path.join(dir, 'silo.sqlite')}`);
  const stores = await openStores({ main: location, regions: Object.fromEntries(REGIONS.map((r) => [r, location])) as Record<(typeof REGIONS)[number], typeof location> });
  const adapter = stores.main.keyv.store as { atomic(batch: AtomicBatch): Promise<boolean> };
  // An own property shadows the store's getter: koa-silo then finds no audit log of its own.
  if (variant === 'records') Object.defineProperty(adapter, 'auditLog', { value: undefined });
  if (variant === 'none') stripAuditWrites(adapter);
  const silo = createSilo({
    store: stores.main.keyv,
    regionStores: Object.fromEntries(REGIONS.map((r) => [r, stores.regions[r].keyv])),
    plans: { default: { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 } },
    rateLimit: { store: 'memory' },
    sweepIntervalMs: 0,
    auditPruneIntervalMs: 0,
  });
  try {
    await silo.accounts.createAccount('bench');
    const uuids: string[] = [];
    for (let i = 0; i < WRITERS; i++) uuids.push((await silo.silos.create('bench', { file_name: `w${i}`, file_data: makeDocument(1024, i) })).file_uuid);
    const data = makeDocument(1024, 99);
    const writes = (n: number) => Promise.all(uuids.map(async (uuid) => { for (let i = 0; i < n; i++) await silo.silos.update('bench', uuid, { file_data: data }); }));
    await writes(100);
    const perWrite: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const before = process.cpuUsage();
      await writes(PER_ROUND);
      const used = process.cpuUsage(before);
      perWrite.push((used.user + used.system) / (PER_ROUND * WRITERS));
    }
    return perWrite;
  } finally {
    await silo.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const got: Record<Variant, number[]> = { rows: [], records: [], none: [] };
console.log(`audit entry, storage only: ${TURNS} turns of ${ROUNDS} rounds of ${PER_ROUND * WRITERS} writes per variant, ${WRITERS} writers, SQLite, ${os.cpus().length} cores, Node ${process.version}`);
for (let t = 0; t < TURNS; t++) {
  for (const variant of (t % 2 === 0 ? ['rows', 'records', 'none'] : ['none', 'records', 'rows']) as Variant[]) got[variant].push(...(await measure(variant)));
}
for (const variant of ['rows', 'records', 'none'] as const) {
  console.log(`${variant}: ${median(got[variant]).toFixed(1)} µs CPU per write (median), ${Math.min(...got[variant]).toFixed(1)} µs (lowest)`);
}
