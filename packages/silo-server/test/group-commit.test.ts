import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AtomicBatch } from 'koa-silo';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
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
