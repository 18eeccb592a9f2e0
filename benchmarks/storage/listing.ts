/**
 * The listing index, measured: silo creates per second (and listing page reads per second) in one
 * account that already holds 0, 5 000 or 20 000 silos, through koa-silo's services, on the SQLite
 * store of silo-server (synchronous=NORMAL, the server's Keyv) and on in-memory Keyv, each with
 * its sorted index (SqliteStore's index table; an in-process sorted structure for a Map).
 * (The JSON-array index that earlier versions kept, one array per account rewritten on every
 * create, was 15-60x slower at 20 000 silos; it is gone since versioned storage.)
 *
 *   npx tsc -b && node --import tsx benchmarks/storage/listing.ts [--quick]
 *
 * The account is filled through the storage's own create (one commit per silo); the creates
 * timed are sequential, each one the whole create path (blob, head, version, index entry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { createServices } from '../../packages/koa-silo/src/service/index.js';
import { createStorage, type SiloStorage } from '../../packages/koa-silo/src/storage/index.js';
import { SqliteStore, sqliteKeyv } from '../../packages/silo-server/src/sqlite-store.js';

const quick = process.argv.includes('--quick');
const SIZES = [0, 5_000, 20_000];
const CREATES = quick ? 100 : 400;
const READS = quick ? 100 : 400;
const ACCOUNT = 'acme';

interface Row {
  store: string;
  silos: number;
  createsPerSec: number;
  createP50us: number;
  pagesPerSec: number;
}

function uuidOf(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

/** `silos` silos in the account, created oldest first. */
async function fill(storage: SiloStorage, silos: number): Promise<void> {
  const base = Date.now() - silos - 1000;
  for (let i = 0; i < silos; i++) {
    const at = new Date(base + i).toISOString();
    await storage.createSilo(
      { file_uuid: uuidOf(i), file_name: `s${i}`, region_name: 'api', is_public: false, created_at: at, updated_at: at, account: ACCOUNT, size: 2 },
      '{}',
    );
  }
}

async function measure(storeName: string, silos: number, keyv: Keyv): Promise<Row> {
  const storage = createStorage({ main: keyv });
  const { accounts, silos: service } = createServices(storage);
  await accounts.createAccount(ACCOUNT);
  await fill(storage, silos);
  const first = await service.list(ACCOUNT, 1, 25);
  if (first.metadata.total_items !== silos) throw new Error(`${storeName}: ${first.metadata.total_items} listed, ${silos} filled`);

  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < CREATES; i++) {
    const s = performance.now();
    await service.create(ACCOUNT, { file_name: `new ${i}`, file_data: { i } });
    times.push(performance.now() - s);
  }
  const createSecs = (performance.now() - t0) / 1000;
  const r0 = performance.now();
  for (let i = 0; i < READS; i++) await service.list(ACCOUNT, 1 + (i % 4), 25);
  const readSecs = (performance.now() - r0) / 1000;
  const last = await service.list(ACCOUNT, 1, 1);
  if (last.metadata.total_items !== silos + CREATES) throw new Error(`${storeName}: lost entries`);
  await storage.close();
  times.sort((a, b) => a - b);
  return {
    store: storeName,
    silos,
    createsPerSec: CREATES / createSecs,
    createP50us: times[Math.floor(times.length / 2)]! * 1000,
    pagesPerSec: READS / readSecs,
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-listing-'));
  const rows: Row[] = [];
  let n = 0;
  try {
    // Warm-up (JIT, SQLite page cache), not reported.
    await measure('memory (Map)', 1000, new Keyv());
    await measure('sqlite normal', 1000, sqliteKeyv(new SqliteStore({ path: path.join(dir, 'warm.sqlite'), table: 'main' })));
    for (const silos of SIZES) {
      rows.push(await measure('memory (Map)', silos, new Keyv()));
      const file = path.join(dir, `${++n}.sqlite`);
      rows.push(await measure('sqlite normal', silos, sqliteKeyv(new SqliteStore({ path: file, table: 'main' }))));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nNode ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${quick ? 'quick' : 'full'} run`);
  console.log(`${CREATES} sequential creates, then ${READS} page reads (25 per page, pages 1-4), per row\n`);
  console.log('| store | silos in the account | creates/s | create p50 µs | page reads/s |');
  console.log('|---|---:|---:|---:|---:|');
  const order = (r: Row) => `${r.store}|${String(r.silos).padStart(6, '0')}`;
  for (const r of [...rows].sort((a, b) => order(a).localeCompare(order(b)))) {
    console.log(
      `| ${r.store} | ${r.silos} | ${r.createsPerSec.toFixed(0)} | ${r.createP50us.toFixed(0)} | ${r.pagesPerSec.toFixed(0)} |`,
    );
  }
}

await main();
