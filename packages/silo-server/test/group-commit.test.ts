import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AtomicBatch } from 'koa-silo';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { OFF_THREAD_CHARS } from '../src/sqlite-large-rows.js';
import { SqliteStore } from '../src/sqlite-store.js';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-group-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
const tmpFile = () => path.join(tmpRoot, `g${++n}.sqlite`);

const open: { close(): unknown }[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
function store(file: string, busyTimeoutMs = 5000): SqliteStore {
  const s = new SqliteStore({ path: file, table: 'main', busyTimeoutMs });
  open.push({ close: () => s.disconnect() });
  return s;
}
/** Another connection to the same file, as another process would have. */
function observer(file: string): Database.Database {
  const db = new Database(file);
  open.push(db);
  return db;
}
/** The length of a stored text (undefined when there is none). */
const lengthOf = (value: unknown) => (typeof value === 'string' ? value.length : undefined);
const rows = (db: Database.Database) => db.prepare('SELECT key, value FROM main ORDER BY key').all();

const put = (key: string, value: string, expect: [string, string | undefined][] = []): AtomicBatch => ({
  expect,
  set: [[key, value]],
  delete: [],
  indexAdd: [],
  indexRemove: [],
});

describe('SQLite group commit', () => {
  it('commits the batches handed in together, each judged on its own expectations', async () => {
    const file = tmpFile();
    const s = store(file);
    await s.atomic(put('head', 'v1'));
    const outcomes = await Promise.all([
      s.atomic(put('a', '1')),
      s.atomic(put('head', 'v2', [['head', 'v1']])),
      s.atomic(put('head', 'v3', [['head', 'v1']])), // sees v2, written by the batch before it in the group
      s.atomic(put('b', '2', [['missing', undefined]])),
    ]);
    expect(outcomes).toEqual([true, true, false, true]);
    expect(rows(observer(file))).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
      { key: 'head', value: 'v2' },
    ]);
  });

  it('acknowledges nothing before it is committed: another connection sees a batch once its promise settles', async () => {
    const file = tmpFile();
    const s = store(file);
    const other = observer(file);
    const written = s.atomic(put('k', 'v'));
    expect(rows(other)).toEqual([]);
    await written;
    expect(rows(other)).toEqual([{ key: 'k', value: 'v' }]);
  });

  it('a batch that fails alone rolls back alone; the rest of its group commits', async () => {
    const file = tmpFile();
    const s = store(file);
    const elsewhere = store(tmpFile());
    const broken: AtomicBatch = { ...put('x', 'half'), joined: [{ store: elsewhere, set: [['y', 'y']], delete: [] }] };
    const [first, bad, last] = await Promise.allSettled([s.atomic(put('a', '1')), s.atomic(broken), s.atomic(put('b', '2'))]);
    expect(first).toEqual({ status: 'fulfilled', value: true });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/another SQLite connection/) } });
    expect(last).toEqual({ status: 'fulfilled', value: true });
    expect(rows(observer(file))).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
  });

  it('when the commit cannot happen (another process holds the write lock), every batch of the group fails and none is written', async () => {
    const file = tmpFile();
    const s = store(file, 50);
    const other = observer(file);
    other.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([s.atomic(put('a', '1')), s.atomic(put('b', '2'))]);
    other.exec('COMMIT');
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(outcomes[0]).toMatchObject({ reason: { code: 'SQLITE_BUSY' } });
    expect(rows(other)).toEqual([]);
    // The connection is usable again: the next group commits.
    expect(await s.atomic(put('c', '3'))).toBe(true);
    expect(rows(other)).toEqual([{ key: 'c', value: '3' }]);
  });
});

describe('large rows, written and read off the event loop', () => {
  it("are written by another connection while this one's commits wait their turn, and the event loop goes on", async () => {
    const file = tmpFile();
    const s = store(file);
    const other = observer(file);
    // 40 MB: SQLite's insert of it takes tens of milliseconds, which the event loop used to wait out.
    const large = 'x'.repeat(40 * 1024 * 1024);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const blob = s.set('blob', large);
      // Handed in while the large row is being written: committed after it, not in SQLite's busy handler.
      await new Promise((resolve) => setImmediate(resolve));
      const after = s.atomic(put('after', '2'));
      const small = s.set('small', 'y');
      let blobDone = false;
      await Promise.all([blob.then(() => (blobDone = true)), after, small]);
      expect(blobDone).toBe(true);
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(ticker);
    }
    expect(lengthOf(await s.get<string>('blob'))).toBe(large.length);
    const order = (other.prepare('SELECT key FROM main ORDER BY rowid').all() as { key: string }[]).map((r) => r.key);
    expect(order.indexOf('blob')).toBeLessThan(order.indexOf('after'));
    expect(order.indexOf('blob')).toBeLessThan(order.indexOf('small'));
    // Smaller rows are written on this connection, as before.
    expect(OFF_THREAD_CHARS).toBe(256 * 1024);
  });

  it('are read by another thread when the reader says they are large, the event loop going on', async () => {
    const file = tmpFile();
    const s = store(file);
    const large = 'z'.repeat(40 * 1024 * 1024);
    await s.set('blob', large);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      expect(lengthOf(await s.getLarge('blob'))).toBe(large.length);
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(ticker);
    }
    expect(await s.getLarge('missing')).toBeUndefined();
    // A small row asked for as large is read the same way, and found.
    await s.set('small', 'y');
    expect(await s.getLarge('small')).toBe('y');
  });

  it('keeps the order writes were handed in, around a large one, whatever kind of write (a reviewer found two reordered)', async () => {
    const file = tmpFile();
    const s = store(file);
    const large = 'L'.repeat(OFF_THREAD_CHARS);
    // A group still gathering goes before the large write handed in after it.
    const first = s.atomic(put('k1', 'small, first'));
    await Promise.all([first, s.set('k1', large)]);
    expect(await s.get('k1')).toBe(large);
    // A plain set, a setMany, a delete and a compare-and-swap after it take their turns after it.
    const writes = [s.set('k2', large), s.setMany([{ key: 'k2', value: 'many, later' }])];
    await Promise.all(writes);
    expect(await s.get('k2')).toBe('many, later');
    const cas = await Promise.all([s.set('k3', large), s.compareAndSwap('k3', undefined, 'swapped')]);
    expect(cas[1]).toBe(false); // the key was no longer absent: the large write came first
    await Promise.all([s.set('k4', large), s.delete('k4')]);
    expect(await s.get('k4')).toBeUndefined();
  });

  it('does not keep a small write waiting while large ones follow each other', async () => {
    const file = tmpFile();
    const s = store(file);
    const large = 'L'.repeat(2 * 1024 * 1024);
    let writing = true;
    const uploads = Array.from({ length: 2 }, async (_, i) => {
      for (let n = 0; writing; n++) await s.set(`big${i}-${n}`, large);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const small = s.set('small', 'y');
    const lates = [...Array(10)].map((_, i) => s.set(`late${i}`, large));
    await small;
    writing = false;
    await Promise.all([...uploads, ...lates]);
    expect(await s.get('small')).toBe('y');
  });

  it('writes nothing after the store is closed; what was under way is committed or refused, never half', async () => {
    const file = tmpFile();
    const s = new SqliteStore({ path: file, table: 'main' });
    const large = 'L'.repeat(OFF_THREAD_CHARS);
    const a = s.set('a', large).then(() => 'written', () => 'refused');
    const b = s.set('b', large).then(() => 'written', () => 'refused');
    await s.disconnect();
    const outcomes = await Promise.all([a, b]);
    const keys = (observer(file).prepare('SELECT key FROM main ORDER BY key').all() as { key: string }[]).map((r) => r.key);
    // What each caller heard is what the file holds.
    expect(keys).toEqual(['a', 'b'].filter((_, i) => outcomes[i] === 'written'));
    await expect(s.set('c', large)).rejects.toThrow(/closed/);
  });

  it('fails with the write lock held elsewhere past the busy timeout, as any write does, and the next one goes on', async () => {
    const file = tmpFile();
    const s = store(file, 200);
    const blocker = observer(file);
    blocker.exec('BEGIN IMMEDIATE');
    await expect(s.set('blob', 'x'.repeat(OFF_THREAD_CHARS))).rejects.toThrow(/locked|busy/i);
    blocker.exec('COMMIT');
    await s.set('blob', 'y'.repeat(OFF_THREAD_CHARS));
    expect(lengthOf(await s.get<string>('blob'))).toBe(OFF_THREAD_CHARS);
    expect(await s.atomic(put('k', 'v'))).toBe(true);
  });
});
