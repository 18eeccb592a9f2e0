/**
 * The SQLite store's read cache: a row read once is served from memory only while it is proven
 * current. Writes through the store are seen by the very next read; a commit by another connection
 * (another process) by the first read of the next event-loop turn, whatever was cached.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteReadCache } from '../src/sqlite-read-cache.js';
import { SqliteStore } from '../src/sqlite-store.js';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-read-cache-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
const tmpFile = () => path.join(tmpRoot, `c${++n}.sqlite`);

const open: { close(): unknown }[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
function store(file: string, table = 'main'): SqliteStore {
  const s = new SqliteStore({ path: file, table });
  open.push({ close: () => s.disconnect() });
  return s;
}
/** Another connection to the same file, as another process would have. */
function otherProcess(file: string): Database.Database {
  const db = new Database(file);
  open.push(db);
  return db;
}
const batch = (set: [string, string][], del: string[] = []) => ({ expect: [], set, delete: del, indexAdd: [], indexRemove: [] });

describe('SqliteStore read cache', () => {
  it('sees another connection’s commit at the next turn, and its own writes at once', async () => {
    const file = tmpFile();
    const s = store(file);
    await s.set('k', 'one');
    expect(await s.get('k')).toBe('one');
    expect(await s.get('absent')).toBeUndefined();

    const other = otherProcess(file);
    other.prepare('UPDATE main SET value = ? WHERE key = ?').run('two', 'k');
    other.prepare('INSERT INTO main (key, value) VALUES (?, ?)').run('absent', 'now here');
    await nextTurn();
    expect(await s.get('k')).toBe('two');
    expect(await s.get('absent')).toBe('now here');
    expect(await s.getMany(['k', 'absent', 'nothing'])).toEqual(['two', 'now here', undefined]);

    // Its own writes, every path: set, delete, an atomic batch, deleteMany, in the same turn as the cached reads.
    await s.set('k', 'three');
    expect(await s.get('k')).toBe('three');
    expect(await s.atomic(batch([['k', 'four']], ['absent']))).toBe(true);
    expect(await s.getMany(['k', 'absent'])).toEqual(['four', undefined]);
    await s.delete('k');
    expect(await s.get('k')).toBeUndefined();
    await s.setMany([{ key: 'a', value: '1' }, { key: 'b', value: '2' }]);
    expect(await s.getMany(['a', 'b'])).toEqual(['1', '2']);
    await s.deleteMany(['a']);
    expect(await s.getMany(['a', 'b'])).toEqual([undefined, '2']);
    await s.clear();
    expect(await s.get('b')).toBeUndefined();
  });

  it('forgets rows that a joined write sets in another table of the connection', async () => {
    const file = tmpFile();
    const main = store(file, 'main');
    const region = store(file, 'region_x');
    await region.set('blob', 'old');
    expect(await region.get('blob')).toBe('old');
    expect(await main.atomic({ ...batch([['head', 'h']]), joined: [{ store: region, set: [['blob', 'new']], delete: [] }] })).toBe(true);
    expect(await region.get('blob')).toBe('new');
  });

  it('answers `cached` with what it holds while proven current: a value, null for known absent, undefined to read', async () => {
    const file = tmpFile();
    const s = store(file);
    await s.set('k', 'one');
    expect(s.cached('k')).toBeUndefined();
    expect(await s.get('k')).toBe('one');
    expect(await s.get('absent')).toBeUndefined();
    expect([s.cached('k'), s.cached('absent')]).toEqual(['one', null]);
    // Its own write: forgotten at once.
    await s.set('k', 'two');
    expect(s.cached('k')).toBeUndefined();
    expect(await s.get('k')).toBe('two');
    // Another connection's commit: nothing held from the next turn on.
    otherProcess(file).prepare('UPDATE main SET value = ? WHERE key = ?').run('three', 'k');
    await nextTurn();
    expect([s.cached('k'), s.cached('absent')]).toEqual([undefined, undefined]);
    expect(await s.get('k')).toBe('three');
    expect(s.cached('k')).toBe('three');
    // A value past its expiry is absent.
    await s.set('session', 'v', 40);
    expect(await s.get('session')).toBe('v');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(s.cached('session')).toBeNull();
  });

  it('keeps a value that expires only until it does', async () => {
    const s = store(tmpFile());
    await s.set('session', 'v', 40);
    expect(await s.get('session')).toBe('v');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await s.get('session')).toBeUndefined();
  });
});

describe('SqliteReadCache', () => {
  it('checks data_version once per turn and drops everything when it moved', async () => {
    let version = 1;
    let checks = 0;
    const cache = new SqliteReadCache(() => (checks++, version), { budgetBytes: 1 << 20, maxValueChars: 100 });
    expect(cache.get('a')).toBeUndefined();
    cache.remember('a', { value: 'x', expires: null });
    expect(cache.get('a')).toEqual({ value: 'x', expires: null });
    expect(checks).toBe(1);
    await nextTurn();
    expect(cache.get('a')).toEqual({ value: 'x', expires: null });
    expect(checks).toBe(2);
    version = 2;
    await nextTurn();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps small values within its budget, oldest out first, and never a large one', () => {
    const entry = 96 + 2 + 20;
    const cache = new SqliteReadCache(() => 1, { budgetBytes: 4 * entry, maxValueChars: 10 });
    cache.get('warm');
    for (const key of ['a', 'b', 'c', 'd']) cache.remember(key, { value: 'x'.repeat(10), expires: null });
    expect(cache.size).toBe(4);
    // Over the budget: the oldest go until a quarter of it is free.
    cache.remember('e', { value: 'x'.repeat(10), expires: null });
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => cache.get(key) !== undefined)).toEqual([false, false, true, true, true]);
    expect(cache.size).toBe(3);
    cache.remember('big', { value: 'x'.repeat(11), expires: null });
    expect(cache.get('big')).toBeUndefined();
  });
});
