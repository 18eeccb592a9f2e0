/**
 * Temporary SQLite stores for a test file: files in a directory of their own (removed after the
 * file's tests), and the stores opened through `store`, disconnected after each test (a store the
 * test disconnected itself is left as it is: disconnecting twice does nothing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { SqliteStore, type SqliteStoreOptions } from '../src/sqlite-store.js';

export function sqliteTempStores(prefix: string): {
  /** The directory the files are made in. */
  root: string;
  /** A new file's path (its directory not made yet: the store makes it). */
  file(): string;
  store(file?: string, extra?: Partial<SqliteStoreOptions>): SqliteStore;
} {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const open: SqliteStore[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.disconnect();
  });
  let n = 0;
  const file = () => path.join(root, `t${++n}`, 'store.sqlite');
  return {
    root,
    file,
    store(at = file(), extra = {}) {
      const s = new SqliteStore({ path: at, ...extra });
      open.push(s);
      return s;
    },
  };
}
