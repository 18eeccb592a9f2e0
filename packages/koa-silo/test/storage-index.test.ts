/**
 * The listing index's in-process sorted implementation for Keyv's Map store, and how storages over
 * one Map share it. (Ordering, totals and concurrency through the services are the storage
 * contract's.)
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createServices } from '../src/service/index.js';
import { MemorySortedIndex } from '../src/storage/memory-sorted-index.js';
import { SortedListIndex } from '../src/storage/sorted-list-index.js';
import { createStorage } from '../src/storage/index.js';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('MemorySortedIndex', () => {
  it('orders by score ascending, ties by member, like a Redis sorted set', () => {
    const index = new MemorySortedIndex();
    index.add('k', 3, 'c');
    index.add('k', 1, 'z');
    index.add('k', 1, 'a');
    index.add('k', 2, 'm');
    index.add('k', 3, 'b');
    index.add('other', 0, 'x');
    expect(index.range('k', 0, 10)).toEqual(['a', 'z', 'm', 'b', 'c']);
    expect(index.range('k', 1, 2)).toEqual(['z', 'm']);
    expect(index.range('k', 5, 2)).toEqual([]);
    expect(index.count('k')).toBe(5);
    index.add('k', 0, 'c'); // a new score moves the member
    index.add('k', 0, 'c');
    expect(index.range('k', 0, 2)).toEqual(['c', 'a']);
    expect(index.count('k')).toBe(5);
    index.remove('k', 'z');
    index.remove('k', 'nope');
    expect(index.range('k', 0, 10)).toEqual(['c', 'a', 'm', 'b']);
    expect(index.count('missing')).toBe(0);
    expect(index.range('missing', 0, 10)).toEqual([]);
  });

  it('agrees with a full sort over thousands of random adds and removes', () => {
    const next = random(7);
    const index = new MemorySortedIndex();
    const truth = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const member = `m${Math.floor(next() * 800)}`;
      if (next() < 0.3) {
        index.remove('k', member);
        truth.delete(member);
      } else {
        const score = -Math.floor(next() * 50); // many ties
        index.add('k', score, member);
        truth.set(member, score);
      }
    }
    const expected = [...truth.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([member]) => member);
    expect(index.count('k')).toBe(expected.length);
    expect(index.range('k', 0, expected.length + 5)).toEqual(expected);
    expect(index.range('k', 17, 25)).toEqual(expected.slice(17, 42));
  });
});

describe('listing index choice', () => {
  it('in-memory Keyv: a sorted index beside the Map, no JSON array in it', async () => {
    const map = new Map<string, unknown>();
    const storage = createStorage({ main: new Keyv({ store: map }) });
    expect(storage.index).toBeInstanceOf(SortedListIndex);
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('acme');
    const created = await silos.create('acme', { file_name: 'f', file_data: {} });
    expect([...map.keys()].filter((key) => key.includes(':index:'))).toEqual([]);
    expect((await silos.list('acme', 1, 10)).silos.map((s) => s.file_uuid)).toEqual([created.file_uuid]);
  });

  it('storages over one Map share its index (and prefixes keep them apart)', async () => {
    const map = new Map<string, unknown>();
    const one = createServices(createStorage({ main: new Keyv({ store: map }) }));
    const two = createServices(createStorage({ main: new Keyv({ store: map }) }));
    const other = createServices(createStorage({ main: new Keyv({ store: map }), prefix: 'other' }));
    await one.accounts.createAccount('acme');
    await other.accounts.createAccount('acme');
    const a = await one.silos.create('acme', { file_name: 'a', file_data: {} });
    const b = await two.silos.create('acme', { file_name: 'b', file_data: {} });
    expect((await one.silos.list('acme', 1, 10)).metadata.total_items).toBe(2);
    expect(new Set((await two.silos.list('acme', 1, 10)).silos.map((s) => s.file_uuid))).toEqual(new Set([a.file_uuid, b.file_uuid]));
    expect((await other.silos.list('acme', 1, 10)).metadata.total_items).toBe(0);
  });
});
