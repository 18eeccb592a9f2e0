import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createStorage } from 'koa-silo';
// koa-silo does not export its services without the rest of createSilo (workers, bus, sweeper).
import { createServices } from '../../koa-silo/src/service/index.js';
import { storageContract } from 'koa-silo/testing';
import { createSqliteKeyv, SqliteStore, sqliteKeyv } from '../src/sqlite-store.js';
import { sqliteTempStores } from './sqlite-temp-stores.js';

const { root: tmpRoot, file: tmpFile, store } = sqliteTempStores('silo-sqlite-');

describe('SqliteStore as a Keyv adapter', () => {
  it('round-trips large and unicode values through Keyv', async () => {
    const keyv = new Keyv({ store: store() });
    const big = 'x'.repeat(2_000_000) + '🎉';
    const unicode = { s: 'héllo wörld ✓ 日本語 🎉 \u0000 nul, "quotes" \\ back', n: [1, 2.5, -7e300] };
    await keyv.set('big', big);
    await keyv.set('uni', unicode);
    await keyv.set('ключ 🔑', 'unicode key');
    expect(await keyv.get('big')).toBe(big);
    expect(await keyv.get('uni')).toEqual(unicode);
    expect(await keyv.get('ключ 🔑')).toBe('unicode key');
    expect(await keyv.get('missing')).toBeUndefined();
  });

  it('stores identity-serialized strings byte for byte (how koa-silo configures Keyv)', async () => {
    const keyv = new Keyv({ store: store() });
    keyv.serialize = (d) => d.value as string;
    keyv.deserialize = <V,>(t: string) => ({ value: t as V });
    const text = '{"a":[1,2,{"b":"🎉"}]}\n  trailing';
    await keyv.set('k', text);
    expect(await keyv.get('k')).toBe(text);
  });

  it('has, delete, getMany, setMany, deleteMany, hasMany', async () => {
    const s = store();
    const keyv = new Keyv({ store: s });
    await keyv.setMany([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ]);
    expect(await keyv.has('a')).toBe(true);
    expect(await keyv.has('z')).toBe(false);
    expect(await keyv.getMany(['c', 'z', 'a'])).toEqual([3, undefined, 1]);
    expect(await keyv.hasMany(['a', 'z'])).toEqual([true, false]);
    expect(await keyv.delete('a')).toBe(true);
    expect(await keyv.delete('a')).toBe(false);
    expect(await keyv.deleteMany(['b', 'c'])).toBe(true);
    expect(await keyv.getMany(['a', 'b', 'c'])).toEqual([undefined, undefined, undefined]);
  });

  it('honours TTLs and purges expired rows', async () => {
    const s = store();
    const keyv = new Keyv({ store: s });
    await keyv.set('short', 'v', 20);
    await keyv.set('long', 'v');
    expect(await keyv.get('short')).toBe('v');
    await new Promise((r) => setTimeout(r, 40));
    expect(await keyv.get('short')).toBeUndefined();
    await s.set('raw', 'v', 1);
    await new Promise((r) => setTimeout(r, 10));
    expect(await s.get('raw')).toBeUndefined();
    expect(s.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await keyv.get('long')).toBe('v');
  });

  it('iterates a namespace in key order across many pages, and only that namespace', async () => {
    const file = tmpFile();
    const s1 = store(file, { iterationLimit: 7 });
    const a = new Keyv({ store: s1, namespace: 'a' });
    const b = new Keyv({ store: store(file), namespace: 'b' });
    const keys = Array.from({ length: 50 }, (_, i) => `k:${String(i).padStart(3, '0')}`);
    for (const k of keys) await a.set(k, { k });
    await a.set('', 'empty key');
    await b.set('k:000', 'other namespace');
    const seen: Array<[string, unknown]> = [];
    for await (const [key, value] of a.iterator!(undefined)) seen.push([key as string, value]);
    expect(seen.map(([k]) => k)).toEqual(['', ...keys]);
    expect(seen[1]![1]).toEqual({ k: 'k:000' });
  });

  it('the iterator walks many rows in linear time (keyset pagination)', async () => {
    const s = store(tmpFile(), { iterationLimit: 100 });
    s.database.exec('BEGIN');
    const ins = s.database.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
    for (let i = 0; i < 50_000; i++) ins.run(`ns:${String(i).padStart(6, '0')}`, 'v');
    s.database.exec('COMMIT');
    const t0 = performance.now();
    let count = 0;
    for await (const _ of s.iterator('ns')) count++;
    const ms = performance.now() - t0;
    expect(count).toBe(50_000);
    // OFFSET paging would read ~12.5 million rows here; keyset paging reads each once.
    expect(ms).toBeLessThan(2000);
  });

  it('clear removes only its namespace, or everything without one', async () => {
    const file = tmpFile();
    const a = new Keyv({ store: store(file), namespace: 'a' });
    const b = new Keyv({ store: store(file), namespace: 'b' });
    await a.set('x', 1);
    await b.set('x', 2);
    await a.clear();
    expect(await a.get('x')).toBeUndefined();
    expect(await b.get('x')).toBe(2);
    const raw = store(file);
    await raw.clear();
    expect(await b.get('x')).toBeUndefined();
  });

  it('keeps data across close and reopen, in WAL mode', async () => {
    const file = tmpFile();
    const s = store(file);
    expect(s.walEnabled).toBe(true);
    expect(s.opts.dialect).toBe('sqlite');
    const keyv = new Keyv({ store: s });
    await keyv.set('persist', { ok: true });
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    await keyv.disconnect();
    const again = new Keyv({ store: store(file) });
    expect(await again.get('persist')).toEqual({ ok: true });
  });

  it('makes a new file readable by its owner only, in a directory open to all; an existing file keeps its mode', async () => {
    const dir = path.join(tmpRoot, 'open-dir');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'silo.sqlite');
    await new Keyv({ store: store(file) }).set('secret', 'hash');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect((fs.statSync(f).mode & 0o777).toString(8), f).toBe('600');
    const theirs = path.join(dir, 'theirs.sqlite');
    fs.writeFileSync(theirs, '', { mode: 0o640 });
    fs.chmodSync(theirs, 0o640);
    await new Keyv({ store: store(theirs) }).set('k', 'v');
    expect((fs.statSync(theirs).mode & 0o777).toString(8)).toBe('640');
  });

  it('separate tables in one file are separate stores', async () => {
    const file = tmpFile();
    const main = new Keyv({ store: store(file, { table: 'main' }) });
    const region = new Keyv({ store: store(file, { table: 'region_api' }) });
    await main.set('k', 'main');
    await region.set('k', 'region');
    expect(await main.get('k')).toBe('main');
    expect(await region.get('k')).toBe('region');
    expect(() => store(file, { table: 'bad"name' })).toThrow(/table name/);
  });

  it('two connections (two processes) see each other’s writes at once', async () => {
    const file = tmpFile();
    const one = new Keyv({ store: store(file) });
    const two = new Keyv({ store: store(file) });
    await one.set('k', 'v1');
    expect(await two.get('k')).toBe('v1');
    await two.delete('k');
    expect(await one.get('k')).toBeUndefined();
  });

  it('compareAndSwap sets, replaces and deletes only on a match', () => {
    const s = store();
    expect(s.compareAndSwap('lock', undefined, 'a')).toBe(true);
    expect(s.compareAndSwap('lock', undefined, 'b')).toBe(false);
    expect(s.compareAndSwap('lock', 'x', 'b')).toBe(false);
    expect(s.compareAndSwap('lock', 'a', 'b')).toBe(true);
    expect(s.compareAndSwap('lock', 'b', undefined)).toBe(true);
    expect(s.compareAndSwap('lock', 'b', undefined)).toBe(false);
    expect(s.compareAndSwap('lock', undefined, 'c')).toBe(true);
  });

  it('refuses values that are not strings (Keyv serializes first)', async () => {
    await expect(store().set('k', { not: 'serialized' })).rejects.toThrow(TypeError);
  });

  it('createSqliteKeyv throws storage errors instead of answering undefined', async () => {
    const keyv = createSqliteKeyv({ path: tmpFile() });
    await keyv.set('k', 'v');
    expect(await keyv.get('k')).toBe('v');
    await keyv.disconnect();
    await expect(keyv.get('k')).rejects.toThrow(/not open/);
  });

  it('the server’s Keyv finds keys that start like a namespace with get and getMany alike', async () => {
    const keyv = sqliteKeyv(store());
    await keyv.set('silo:meta:1', 'a');
    await keyv.set('keyv:x', 'b');
    expect(await keyv.get('silo:meta:1')).toBe('a');
    expect(await keyv.getMany(['silo:meta:1', 'keyv:x', 'nope'])).toEqual(['a', 'b', undefined]);
    const seen: unknown[] = [];
    for await (const [key] of keyv.iterator!(undefined)) seen.push(key);
    expect(seen).toEqual(['keyv:x', 'silo:meta:1']);
    await keyv.clear();
    expect(await keyv.get('silo:meta:1')).toBeUndefined();
  });

  it('supports :memory:', async () => {
    const keyv = new Keyv({ store: store(':memory:') });
    await keyv.set('k', 'v');
    expect(await keyv.get('k')).toBe('v');
  });
});

describe('the sorted index (the listing index of koa-silo)', () => {
  const tables = (s: SqliteStore) =>
    (s.database.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[]);

  it('orders by score, ties by member; counts; pages; re-scores; removes', () => {
    const s = store();
    const index = s.sortedIndex;
    index.add('k', -3000, 'c');
    index.add('k', -1000, 'z');
    index.add('k', -3000, 'a');
    index.add('k', -2000, 'm');
    index.add('other', 0, 'x');
    expect(index.range('k', 0, 10)).toEqual(['a', 'c', 'm', 'z']);
    expect(index.range('k', 1, 2)).toEqual(['c', 'm']);
    expect(index.range('k', 4, 2)).toEqual([]);
    expect(index.count('k')).toBe(4);
    index.add('k', -5000, 'z');
    index.add('k', -5000, 'z');
    expect(index.range('k', 0, 2)).toEqual(['z', 'a']);
    expect(index.count('k')).toBe(4);
    index.remove('k', 'a');
    index.remove('k', 'a');
    expect(index.count('k')).toBe(3);
    index.addMany('k', [[-1, 'n1'], [-1, 'n0'], [-5000, 'z']]);
    expect(index.range('k', 0, 10)).toEqual(['z', 'c', 'm', 'n0', 'n1']);
    expect(index.count('k')).toBe(5);
    for (const m of ['z', 'c', 'm', 'n0', 'n1']) index.remove('k', m);
    expect(index.count('k')).toBe(0);
    expect(s.database.prepare('SELECT count(*) FROM keyv_index_count').pluck().get()).toBe(1); // only "other"
    expect(index.count('missing')).toBe(0);
    expect(() => index.add('k', 1.5, 'x')).toThrow(TypeError);
  });

  it('makes its tables on first use only, and clear() empties them with the namespace', async () => {
    const file = tmpFile();
    const region = store(file, { table: 'region_api' });
    await region.set('k', 'v');
    const main = store(file, { table: 'main' });
    expect(tables(main)).toEqual(['main', 'region_api']);
    main.sortedIndex.add('a:idx', 1, 'm');
    main.sortedIndex.add('b:idx', 1, 'm');
    expect(tables(main)).toEqual(['main', 'main_index', 'main_index_count', 'region_api']);
    const a = new Keyv({ store: store(file, { table: 'main' }), namespace: 'a' });
    await a.clear();
    expect(main.sortedIndex.count('a:idx')).toBe(0);
    expect(main.sortedIndex.count('b:idx')).toBe(1);
    await main.clear();
    expect(main.sortedIndex.count('b:idx')).toBe(0);
  });

  it('koa-silo uses it: rows in main_index, no JSON index record', async () => {
    const file = tmpFile();
    const s = store(file, { table: 'main' });
    const storage = createStorage({ main: sqliteKeyv(s) });
    expect(storage.coordination).toBe('store');
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const made = await Promise.all(Array.from({ length: 30 }, (_, i) => silos.create('acme', { file_name: `f${i}`, file_data: {} })));
    expect(await s.get('silo:index:acme')).toBeUndefined();
    expect(s.database.prepare(`SELECT count(*) FROM main WHERE key LIKE '%:index:%'`).pluck().get()).toBe(0);
    expect(s.database.prepare(`SELECT count(*) FROM main_index WHERE index_key = 'silo:index:acme'`).pluck().get()).toBe(30);
    expect(s.sortedIndex.count('silo:index:acme')).toBe(30);
    const page = await silos.list('acme', 2, 20);
    expect(page.metadata.total_items).toBe(30);
    expect(page.silos).toHaveLength(10);
    await silos.delete('acme', made[0]!.file_uuid);
    expect(s.sortedIndex.count('silo:index:acme')).toBe(29);
  });

  it('commits an atomic batch only when every expected value holds, index included', async () => {
    const s = store(tmpFile(), { table: 'main' });
    const batch = { expect: [['head', undefined]] as [string, string | undefined][], set: [['head', 'v1'], ['ver', 'e1']] as [string, string][], delete: [], indexAdd: [['idx', -5, 'm']] as [string, number, string][], indexRemove: [] };
    expect(await s.atomic(batch)).toBe(true);
    expect(await s.atomic(batch)).toBe(false); // head is there now: nothing of the batch applies
    expect(s.sortedIndex.count('idx')).toBe(1);
    expect(await s.atomic({ expect: [['head', 'v1']], set: [['head', 'v2']], delete: ['ver'], indexAdd: [], indexRemove: [['idx', 'm']] })).toBe(true);
    expect(s.database.prepare('SELECT key, value FROM main ORDER BY key').all()).toEqual([{ key: 'head', value: 'v2' }]);
    expect(s.sortedIndex.count('idx')).toBe(0);
    expect(s.keysWithPrefix('he')).toEqual(['head']);
    expect(s.keysWithPrefix('x')).toEqual([]);
  });

  it('two SqliteStores on one file, creating at once, all land in the listing', async () => {
    const file = tmpFile();
    const [one, two] = [store(file, { table: 'main' }), store(file, { table: 'main' })];
    const first = createServices(createStorage({ main: sqliteKeyv(one) }));
    const second = createServices(createStorage({ main: sqliteKeyv(two) }));
    await first.accounts.createAccount('acme');
    const made = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? first : second).silos.create('acme', { file_name: `c${i}`, file_data: {} })),
    );
    for (const services of [first, second]) {
      const pages = await Promise.all([1, 2].map((p) => services.silos.list('acme', p, 100)));
      expect(pages[0]!.metadata.total_items).toBe(200);
      expect(new Set(pages.flatMap((p) => p.silos.map((x) => x.file_uuid)))).toEqual(new Set(made.map((r) => r.file_uuid)));
    }
  });

  it('two processes on one file, creating at once, all land in the listing', async () => {
    const file = tmpFile();
    const setupStore = store(file, { table: 'main' });
    await createServices(createStorage({ main: sqliteKeyv(setupStore) })).accounts.createAccount('acme');
    const go = path.join(path.dirname(file), 'go');
    const url = (rel: string) => JSON.stringify(new URL(rel, import.meta.url).href);
    const script = (tag: string) => `
      const { SqliteStore, sqliteKeyv } = await import(${url('../src/sqlite-store.ts')});
      const { createStorage } = await import(${url('../../koa-silo/src/storage/index.ts')});
      const { createServices } = await import(${url('../../koa-silo/src/service/index.ts')});
      const fs = await import('node:fs');
      const storage = createStorage({ main: sqliteKeyv(new SqliteStore({ path: ${JSON.stringify(file)}, table: 'main' })) });
      const { silos } = createServices(storage);
      process.stdout.write('ready\\n');
      while (!fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 2));
      const made = await Promise.all(Array.from({ length: 150 }, (_, i) => silos.create('acme', { file_name: '${tag}' + i, file_data: { i } })));
      await storage.close();
      process.stdout.write(JSON.stringify(made.map((r) => r.file_uuid)) + '\\n');
    `;
    const run = (tag: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(tag)], {
        cwd: path.dirname(fileURLToPath(import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const ready = new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('ready\n')) resolve();
        });
      });
      const done = new Promise<string[]>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) reject(new Error(`child ${tag} exited with ${code}`));
          else resolve(JSON.parse(out.split('\n').filter(Boolean).pop()!) as string[]);
        });
      });
      return { ready, done };
    };
    const children = [run('p'), run('q')];
    await Promise.all(children.map((c) => c.ready));
    fs.writeFileSync(go, '');
    const made = (await Promise.all(children.map((c) => c.done))).flat();
    expect(made).toHaveLength(300);
    const { silos } = createServices(createStorage({ main: sqliteKeyv(store(file, { table: 'main' })) }));
    const pages = await Promise.all([1, 2, 3, 4].map((p) => silos.list('acme', p, 100)));
    expect(pages[0]!.metadata.total_items).toBe(300);
    expect(pages[3]!.silos).toEqual([]);
    const listed = pages.flatMap((p) => p.silos.map((x) => x.file_uuid));
    expect(new Set(listed)).toEqual(new Set(made));
    expect(listed).toHaveLength(300);
  }, 60_000);
});

describe('the audit log (koa-silo’s AuditLogAdapter)', () => {
  it('keeps an entry as one row of main_audit, committed with its action: no record, no index row', async () => {
    const s = store(tmpFile(), { table: 'main' });
    const storage = createStorage({ main: sqliteKeyv(s) });
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const actor = { actor: { type: 'manage' as const, name: 'ci' }, address: null };
    const made = await silos.create('acme', { file_name: 'f', file_data: [] }, actor);
    await Promise.all(Array.from({ length: 10 }, (_, i) => silos.patch('acme', made.file_uuid, { type: 'merge', text: JSON.stringify({ file_name: `g${i}` }) }, undefined, actor)));
    const count = (sql: string) => s.database.prepare(sql).pluck().get();
    expect(count(`SELECT count(*) FROM main_audit WHERE log = 'silo:audit:acme'`)).toBe(11);
    expect(count(`SELECT count(*) FROM main WHERE key LIKE 'silo:audit%'`)).toBe(0);
    expect(count(`SELECT count(*) FROM main_index WHERE index_key LIKE 'silo:audit%'`)).toBe(0);
    expect(count(`SELECT count(*) FROM main_index_count WHERE index_key LIKE 'silo:audit%'`)).toBe(0);
    const listed = await storage.listAudit('acme', { offset: 0, limit: 3, actor: 'ci', silo: made.file_uuid });
    expect([listed.total, listed.entries.map((e) => e.version)]).toEqual([11, [11, 10, 9]]);
  });

  it('fails only the batch that inserts an entry twice; clear() empties the log with the namespace', async () => {
    const file = tmpFile();
    const s = store(file, { table: 'main' });
    const row = (log: string, id: string) => ({ log, time: 1000, id, actor: 'a', entry: JSON.stringify({ id }) });
    const batch = (rows: ReturnType<typeof row>[], set: [string, string][] = []) => ({ expect: [], set, delete: [], indexAdd: [], indexRemove: [], auditAdd: rows });
    expect(await s.atomic(batch([row('a:log', 'x1'), row('b:log', 'x1')]))).toBe(true);
    const [dup, other] = await Promise.allSettled([s.atomic(batch([row('a:log', 'x2'), row('a:log', 'x1')], [['k', 'v']])), s.atomic(batch([row('a:log', 'x3')]))]);
    expect(dup.status).toBe('rejected');
    expect(other).toEqual({ status: 'fulfilled', value: true });
    expect(await s.get('k')).toBeUndefined();
    // One millisecond: ascending ids (newAuditId's fall within one, so that is newest first).
    expect(s.auditLog.list('a:log', {}, 0, 10)).toEqual(['{"id":"x1"}', '{"id":"x3"}']);
    await new Keyv({ store: store(file, { table: 'main' }), namespace: 'a' }).clear();
    expect([s.auditLog.count('a:log', {}), s.auditLog.count('b:log', {})]).toEqual([0, 1]);
  });
});

describe('durability', () => {
  it('every acknowledged write survives kill -9 of the writing process', async () => {
    const file = tmpFile();
    const moduleUrl = new URL('../src/sqlite-store.ts', import.meta.url).href;
    // A child writes numbered keys and reports each one after set() resolved; we kill it mid-stream.
    const script = `
      const { SqliteStore } = await import(${JSON.stringify(moduleUrl)});
      const s = new SqliteStore({ path: ${JSON.stringify(file)} });
      for (let i = 0; ; i++) {
        await s.set('k' + i, 'value-' + i + '-' + 'x'.repeat(1000));
        process.stdout.write(i + '\\n');
      }
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.dirname(fileURLToPath(import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = -1;
    let buf = '';
    await new Promise<void>((resolve, reject) => {
      // Its start (tsx compiling the store) can take long on a loaded machine; a writer that never
      // got going is killed either way, never left to keep the test run from exiting.
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the writer did not reach 300 acknowledged writes in 40 s (last: ${acked})`));
      }, 40_000);
      child.stdout.on('data', (chunk: Buffer) => {
        buf += chunk.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const line of lines) acked = Number(line);
        if (acked >= 300) {
          child.kill('SIGKILL');
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('error', reject);
    });
    await new Promise((r) => child.once('exit', r));
    const s = store(file);
    for (let i = 0; i <= acked; i++) {
      expect(await s.get(`k${i}`)).toBe(`value-${i}-${'x'.repeat(1000)}`);
    }
  }, 60_000);
});

// koa-silo's storage contract, through its own facade and services, on the Keyv exactly as the
// server configures it (no Keyv prefix), and on a plain `new Keyv({ store })` (prefix `keyv:`). Every Keyv is a connection of
// its own to one file (in one process they share one connection, as the server's stores do): multiInstance runs the tests of
// several processes sharing the store (atomic through its transactions).
const contractFile = path.join(tmpRoot, 'contract', 'silo.sqlite');
const contractStores: SqliteStore[] = [];
storageContract(
  'SQLite (silo-server SqliteStore, the server’s Keyv)',
  () => {
    const s = new SqliteStore({ path: contractFile, table: 'main' });
    contractStores.push(s);
    return sqliteKeyv(s);
  },
  { multiInstance: true },
);
storageContract(
  'SQLite (silo-server SqliteStore, plain Keyv)',
  () => {
    const s = new SqliteStore({ path: contractFile, table: 'plain' });
    contractStores.push(s);
    return new Keyv({ store: s });
  },
  {
    multiInstance: true,
    cleanup: async () => {
      for (const s of contractStores.splice(0)) await s.disconnect();
    },
  },
);
