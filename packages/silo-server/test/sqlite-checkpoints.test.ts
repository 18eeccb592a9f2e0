import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { BACKSTOP_PAGES, CHECKPOINT_DELAY_MS, RETRY_AFTER_FAILURE_MS, WalCheckpoints } from '../src/sqlite-checkpoints.js';
import { sqliteTempStores } from './sqlite-temp-stores.js';

const { file: tmpFile, store: openStore } = sqliteTempStores('silo-checkpoints-');

const sizeOf = (file: string) => fs.statSync(file).size;

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('WAL checkpoints off the event loop', () => {
  it('copies a stream of writes into the database file soon after, far below the point SQLite would', async () => {
    const file = tmpFile();
    const store = openStore(file);
    const empty = sizeOf(file);
    // 150 rows of 2 KB, a commit each: some 450 WAL pages, below SQLite's own mark (1 000) and the backstop.
    for (let i = 0; i < 150; i++) await store.set(`row:${i}`, `${i}:`.padEnd(2000, 'x'));
    expect(BACKSTOP_PAGES).toBeGreaterThan(1000);
    // The pages reach the file only when something checkpoints: here the store's thread.
    expect(await waitFor(() => sizeOf(file) > empty + 150 * 2000, 20 * CHECKPOINT_DELAY_MS)).toBe(true);
    expect(await store.get(`row:149`)).toBe('149:'.padEnd(2000, 'x'));
  });

  it('checkpoints again for writes made while one ran, and every row reads back after reopening', async () => {
    const file = tmpFile();
    const store = openStore(file);
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 30 }, (_, i) => store.set(`r${round}:${i}`, 'y'.repeat(3000))));
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_DELAY_MS / 2));
    }
    // 150 rows of 3 KB, a page each, in the file: the last rounds' too, written after the first checkpoint ran.
    expect(await waitFor(() => sizeOf(file) > 150 * 3000, 20 * CHECKPOINT_DELAY_MS)).toBe(true);
    // Closed at once after a write, with a checkpoint asked for and not yet run: nothing is lost.
    await store.set('last', 'z');
    await store.disconnect();
    const again = openStore(file);
    expect(await again.get('last')).toBe('z');
    expect(await again.get('r4:29')).toBe('y'.repeat(3000));
  });

  it('leaves an in-memory store alone (it has no WAL and no thread)', async () => {
    const store = openStore(':memory:');
    await store.set('a', '1');
    expect(await store.get('a')).toBe('1');
  });

  it('asks a thread that fails no more than once per pause, while writes go on', async () => {
    vi.useFakeTimers();
    const db = new Database(':memory:');
    try {
      let asked = 0;
      const checkpoints = new WalCheckpoints(db, { checkpoint: () => (asked++, Promise.reject(new Error('the thread could not start'))) });
      for (let ms = 0; ms < RETRY_AFTER_FAILURE_MS; ms += 10) {
        checkpoints.wrote();
        await vi.advanceTimersByTimeAsync(10);
      }
      // One at the first write's delay; the next only once the pause is over.
      expect(asked).toBe(1);
      for (let ms = 0; ms < 2 * CHECKPOINT_DELAY_MS; ms += 10) {
        checkpoints.wrote();
        await vi.advanceTimersByTimeAsync(10);
      }
      expect(asked).toBe(2);
      checkpoints.close();
    } finally {
      db.close();
      vi.useRealTimers();
    }
  });

  it('asks a working thread again for the writes made while one ran', async () => {
    vi.useFakeTimers();
    const db = new Database(':memory:');
    try {
      let asked = 0;
      let finish!: () => void;
      const checkpoints = new WalCheckpoints(db, { checkpoint: () => (asked++, new Promise<void>((resolve) => (finish = resolve))) });
      checkpoints.wrote();
      await vi.advanceTimersByTimeAsync(CHECKPOINT_DELAY_MS);
      expect(asked).toBe(1);
      checkpoints.wrote(); // while the first runs
      await vi.advanceTimersByTimeAsync(10 * CHECKPOINT_DELAY_MS);
      expect(asked).toBe(1);
      finish();
      await vi.advanceTimersByTimeAsync(CHECKPOINT_DELAY_MS);
      expect(asked).toBe(2);
      checkpoints.close();
    } finally {
      db.close();
      vi.useRealTimers();
    }
  });
});
