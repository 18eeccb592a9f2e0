import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { query } from '../src/index.js';
import { smallestK, sortAll } from '../src/top-k.js';

/** A total order over indexes of `keys`: by key, then by index (what sort.ts builds). */
const orderOf = (keys: readonly number[], counter?: { n: number }) => (i: number, j: number): number => {
  if (counter) counter.n++;
  return keys[i]! - keys[j]! || i - j;
};

describe('smallestK (bounded heap)', () => {
  it('equals a full sort then a slice', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 60 }), fc.nat(70), (keys, k) => {
        const cmp = orderOf(keys);
        expect(smallestK(keys.length, k, cmp)).toStrictEqual(sortAll(keys.length, cmp).slice(0, k));
      }),
      { numRuns: 500 },
    );
  });

  it('k = 0 and empty inputs', () => {
    expect(smallestK(10, 0, orderOf(new Array<number>(10).fill(0)))).toStrictEqual([]);
    expect(smallestK(0, 5, orderOf([]))).toStrictEqual([]);
  });

  it('costs O(n log k) comparisons, not O(n log n)', () => {
    const n = 100_000;
    const keys = Array.from({ length: n }, (_, i) => (i * 7919) % 100_003);
    const counter = { n: 0 };
    smallestK(n, 20, orderOf(keys, counter));
    // One comparison with the top per element, and a sift of about 2·log2(20) for the few that
    // get in; a full sort needs about n·log2(n) ≈ 1.7 M.
    expect(counter.n).toBeLessThan(n * 1.5);
    const full = { n: 0 };
    sortAll(n, orderOf(keys, full));
    expect(full.n).toBeGreaterThan(10 * counter.n);
  });

  it('a limited sort over many elements is the top k of a full sort', () => {
    const data = Array.from({ length: 5000 }, (_, id) => ({ id, score: (id * 7919) % 101 }));
    const full = query(data, 'sort=-score') as unknown[];
    expect(query(data, 'sort=-score&limit=20')).toStrictEqual(full.slice(0, 20));
    expect(query(data, 'sort=-score&limit=20&offset=30')).toStrictEqual(full.slice(30, 50));
    expect(query(data, 'sort=-score&limit=4000')).toStrictEqual(full.slice(0, 4000));
  });
});
