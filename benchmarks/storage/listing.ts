/**
 * The listing index, measured: silo creates per second (and listing page reads per second) in one
 * account that already holds 0, 5 000 or 20 000 silos, through koa-silo's services, on the SQLite
 * store of silo-server (synchronous=NORMAL, the server's Keyv) and on in-memory Keyv, with the
 * JSON-array index ("json": one array per account, parsed and rewritten on every create: what
 * both stores used before) and with the sorted index each store uses now ("sorted": SqliteStore's
 * index table, an in-process sorted structure for a Map).
 *
 *   npx tsc -b && node --import tsx benchmarks/storage/listing.ts [--quick]
 *
 * The account is filled by writing its silos' metadata and a JSON index directly (the sorted
 * index takes the JSON index over on first use, before timing starts); the creates timed are
 * sequential, each one the whole create path (data, metadata, index entry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { createServices } from '../../packages/koa-silo/src/service/index.js';
import { createStorage, type SiloStorage } from '../../packages/koa-silo/src/storage/index.js';
import { JsonListIndex } from '../../packages/koa-silo/src/storage/json-list-index.js';
import { KeyvTextStore } from '../../packages/koa-silo/src/storage/keyv-text-store.js';
import { storageKeys } from '../../packages/koa-silo/src/storage/storage-keys.js';
import { SqliteStore, sqliteKeyv } from '../../packages/silo-server/src/sqlite-store.js';

const quick = process.argv.includes('--quick');
const SIZES = [0, 5_000, 20_000];
const CREATES = quick ? 100 : 400;
const READS = quick ? 100 : 400;
const ACCOUNT = 'acme';

type IndexKind = 'json' | 'sorted';

interface Row {
  store: string;
  index: IndexKind;
  silos: number;
  createsPerSec: number;
  createP50us: number;
  pagesPerSec: number;
}

function uuidOf(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

/** `silos` silos in the account: metadata records and the JSON index an earlier version kept. */
async function fill(storage: SiloStorage, keyv: Keyv, silos: number): Promise<void> {
  const base = Date.now() - silos - 1000;
  const rows: [number, string][] = [];
  for (let i = silos - 1; i >= 0; i--) {
    const at = new Date(base + i).toISOString();
    await storage.putMeta({
      file_uuid: uuidOf(i), file_name: `s${i}`, region_name: 'api', is_public: false, created_at: at, updated_at: at,
      account: ACCOUNT, version: 'v', size: 2,
    });
    rows.push([base + i, uuidOf(i)]);
  }
  if (silos > 0) await new KeyvTextStore(keyv, 0).set(storageKeys().index(ACCOUNT), JSON.stringify(rows));
}

async function measure(storeName: string, index: IndexKind, silos: number, keyv: Keyv): Promise<Row> {
  let storage = createStorage({ main: keyv });
  if (index === 'json') {
    storage = { ...storage, index: new JsonListIndex(new KeyvTextStore(keyv, 5000), storageKeys(), storage.locks) };
  }
  const { accounts, silos: service } = createServices(storage);
  await accounts.createAccount(ACCOUNT);
  await fill(storage, keyv, silos);
  const first = await service.list(ACCOUNT, 1, 25); // the sorted index takes the JSON index over here
  if (first.metadata.total_items !== silos) throw new Error(`${storeName}/${index}: ${first.metadata.total_items} listed, ${silos} filled`);

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
  if (last.metadata.total_items !== silos + CREATES) throw new Error(`${storeName}/${index}: lost entries`);
  await storage.close();
  times.sort((a, b) => a - b);
  return {
    store: storeName,
    index,
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
    for (const index of ['json', 'sorted'] as IndexKind[]) {
      await measure('memory (Map)', index, 1000, new Keyv());
      await measure('sqlite normal', index, 1000, sqliteKeyv(new SqliteStore({ path: path.join(dir, `warm-${index}.sqlite`), table: 'main' })));
    }
    for (const silos of SIZES) {
      for (const index of ['json', 'sorted'] as IndexKind[]) {
        rows.push(await measure('memory (Map)', index, silos, new Keyv()));
        const file = path.join(dir, `${++n}.sqlite`);
        rows.push(await measure('sqlite normal', index, silos, sqliteKeyv(new SqliteStore({ path: file, table: 'main' }))));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nNode ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${quick ? 'quick' : 'full'} run`);
  console.log(`${CREATES} sequential creates, then ${READS} page reads (25 per page, pages 1-4), per row\n`);
  console.log('| store | silos in the account | index | creates/s | create p50 µs | page reads/s |');
  console.log('|---|---:|---|---:|---:|---:|');
  const order = (r: Row) => `${r.store}|${String(r.silos).padStart(6, '0')}|${r.index}`;
  for (const r of [...rows].sort((a, b) => order(a).localeCompare(order(b)))) {
    console.log(
      `| ${r.store} | ${r.silos} | ${r.index} | ${r.createsPerSec.toFixed(0)} | ${r.createP50us.toFixed(0)} | ${r.pagesPerSec.toFixed(0)} |`,
    );
  }
}

await main();
