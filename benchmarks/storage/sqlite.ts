/**
 * The embedded store, measured: set and get of 1 KB and 1 MB values through Keyv (configured as
 * koa-silo configures it: identity serializer on strings), for the SQLite adapter of silo-server
 * with synchronous=NORMAL and FULL, and an in-process Map as the floor. With Redis reachable
 * (SILO_TEST_REDIS_URL, default redis://127.0.0.1:6379, db 9, cleaned after), @keyv/redis too.
 *
 *   npx tsc -b && node --import tsx benchmarks/storage/sqlite.ts [--quick]
 *
 * @keyv/sqlite is not a dependency (it needs the sqlite3 package, a second native SQLite binding);
 * it was measured once beside this adapter in a scratch install: packages/silo-server/README.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import KeyvRedis, { createClient } from '@keyv/redis';
import { SqliteStore, type SqliteSynchronous } from '../../packages/silo-server/src/sqlite-store.js';

const quick = process.argv.includes('--quick');
const SIZES = [
  { label: '1 KB', bytes: 1024, ops: quick ? 500 : 5000 },
  { label: '1 MB', bytes: 1024 * 1024, ops: quick ? 20 : 200 },
];

function textOf(bytes: number): string {
  // JSON-like text, as silo data is stored.
  const unit = '{"id":12345,"name":"héllo","tags":["a","b"]},';
  return `[${unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes - 2)}]`;
}

function identity(keyv: Keyv): Keyv {
  keyv.serialize = (d) => d.value as string;
  keyv.deserialize = <V,>(t: string) => ({ value: t as V });
  return keyv;
}

interface Row {
  store: string;
  size: string;
  op: string;
  opsPerSec: number;
  p50us: number;
  p99us: number;
  mbPerSec: number;
}

async function measure(store: string, keyv: Keyv, size: (typeof SIZES)[number]): Promise<Row[]> {
  const value = textOf(size.bytes);
  const rows: Row[] = [];
  for (const op of ['set', 'get'] as const) {
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < size.ops; i++) {
      const key = `bench:${size.bytes}:${i % 100}`;
      const s = performance.now();
      if (op === 'set') await keyv.set(key, value);
      else if ((await keyv.get(key)) === undefined) throw new Error(`${store}: lost ${key}`);
      times.push(performance.now() - s);
    }
    const total = (performance.now() - t0) / 1000;
    times.sort((a, b) => a - b);
    rows.push({
      store,
      size: size.label,
      op,
      opsPerSec: size.ops / total,
      p50us: times[Math.floor(times.length * 0.5)]! * 1000,
      p99us: times[Math.floor(times.length * 0.99)]! * 1000,
      mbPerSec: (size.ops * size.bytes) / total / 1e6,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-sqlite-'));
  const rows: Row[] = [];
  try {
    rows.push(...(await runAll('memory (Map)', () => identity(new Keyv()))));
    for (const sync of ['normal', 'full'] as SqliteSynchronous[]) {
      rows.push(
        ...(await runAll(`sqlite ${sync}`, () =>
          identity(new Keyv({ store: new SqliteStore({ path: path.join(dir, `${sync}.sqlite`), synchronous: sync }) })),
        )),
      );
    }
    const redisUrl = `${process.env.SILO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/9`;
    const client = createClient({ url: redisUrl, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    client.on('error', () => {});
    const up = await client.connect().then(() => true, () => false);
    if (up) {
      const keyv = identity(new Keyv(new KeyvRedis(client as never, { namespace: 'bench' }), { useKeyPrefix: false }));
      for (const size of SIZES) rows.push(...(await measure('redis (@keyv/redis)', keyv, size)));
      await keyv.clear();
      await client.close();
    } else {
      console.log(`(Redis at ${redisUrl} unreachable: not measured)`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nNode ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${quick ? 'quick' : 'full'} run\n`);
  console.log('| store | value | op | ops/s | p50 µs | p99 µs | MB/s |');
  console.log('|---|---|---|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.store} | ${r.size} | ${r.op} | ${r.opsPerSec.toFixed(0)} | ${r.p50us.toFixed(0)} | ${r.p99us.toFixed(0)} | ${r.mbPerSec.toFixed(1)} |`,
    );
  }
}

async function runAll(store: string, make: () => Keyv): Promise<Row[]> {
  const keyv = make();
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(...(await measure(store, keyv, size)));
  await keyv.disconnect();
  return rows;
}

await main();
