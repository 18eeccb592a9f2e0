/**
 * The heap estimate that the parsed-data cache and the memory budget charge, against V8 itself:
 * for each shape of data, the heap that the parsed value really holds (measured after full
 * collections, with the value alive) is within the estimate's stated error: never more than a
 * little above it, at most a few times below it.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { parseJson } from 'silo-query';
import { describe, expect, it } from 'vitest';
import { estimateParsedBytes, WORST_BYTES_PER_CHAR } from '../src/limits/heap-estimate.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
v8.setFlagsFromString('--no-expose-gc');

/**
 * Heap held by the value parseJson makes of `text`: the least of three measurements, since what
 * else the process allocates meanwhile (the test runner's messages) only ever adds to one (a busy
 * machine once pushed a measurement of 1 MB of long strings past the noise allowed).
 */
function measured(text: string): number {
  return Math.min(measuredOnce(text), measuredOnce(text), measuredOnce(text));
}

function measuredOnce(text: string): number {
  gc();
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  const value = parseJson(text);
  gc();
  gc();
  const held = v8.getHeapStatistics().used_heap_size - before;
  expect(value).toBeDefined(); // keeps the value alive until here
  return held;
}

/** What else the process may allocate while a measurement runs (the test runner's own work). */
const NOISE = 256 * 1024;

/** About 1 MB of `count` items made by `item`, as a JSON array. */
const array = (count: number, item: (i: number) => string) => `[${Array.from({ length: count }, (_, i) => item(i)).join(',')}]`;

/** A repeatable pseudo-random sequence in [0, 1) (a linear congruential generator). */
function randoms(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/** An object of the keys k0..k<n-1> in an order, or a subset, that `pick` makes. */
function keyed(keys: number, pick: (names: string[]) => string[]): string {
  const names = Array.from({ length: keys }, (_, k) => `k${k}`);
  return `{${pick(names).map((name) => `"${name}":1`).join(',')}}`;
}

/** The names in an order of `random`'s (Fisher-Yates). */
function shuffle(names: string[], random: () => number): string[] {
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  return names;
}

const orders = randoms(7);
const presence = randoms(11);

const SHAPES: Record<string, string> = {
  // V8 makes a hidden class for every distinct prefix of a key order: the key-only model charged
  // 12 MB for 124 MB of heap (an attacker's silo of 20 shuffled keys).
  'keys in shuffled orders': array(8_000, () => keyed(20, (names) => shuffle(names, orders))),
  'optional keys (varying subsets)': array(15_000, () => keyed(20, (names) => names.filter(() => presence() < 0.5))),
  'empty objects (the densest silo)': array(330_000, () => '{}'),
  'arrays in objects': array(100_000, (i) => `{"a":[${i % 10},${i % 7}]}`),
  'records with repeated keys': array(30_000, (i) => JSON.stringify({ id: i, name: `name ${i}`, ok: i % 2 === 0 })),
  'records with doubles': array(40_000, (i) => JSON.stringify({ x: i + 0.5, y: i / 3 })),
  'a distinct key in every object': array(70_000, (i) => `{"k${i}":1}`),
  'one object with many keys': `{${Array.from({ length: 70_000 }, (_, i) => `"key${i}":${i}`).join(',')}}`,
  'numbers kept as written': array(100_000, (i) => `{"n":${i}.0}`),
  'minus zeros (kept as written)': array(330_000, () => '-0'),
  'decimals under 1e-6 (kept as written)': array(100_000, (i) => `0.000000${(i % 9) + 1}`),
  'long strings': array(10, () => JSON.stringify({ s: 'x'.repeat(100_000) })),
  'long non-Latin-1 strings': array(10, () => JSON.stringify({ s: '中'.repeat(30_000) })),
  'short unique strings': array(70_000, (i) => JSON.stringify({ s: i.toString(36) })),
};

describe('estimateParsedBytes', () => {
  for (const [shape, text] of Object.entries(SHAPES)) {
    it(`charges ${shape} what V8 holds, within the stated error`, () => {
      const heap = measured(text);
      const estimate = estimateParsedBytes(text);
      expect(estimate, `${shape}: ${heap} bytes measured, ${estimate} estimated`).toBeGreaterThanOrEqual(heap * 0.9 - NOISE);
      expect(estimate, `${shape}: ${heap} bytes measured, ${estimate} estimated`).toBeLessThanOrEqual(heap * 5);
      expect(estimate).toBeLessThanOrEqual(text.length * WORST_BYTES_PER_CHAR);
    });
  }

  it('charges dense data many times its text and long strings about their text', () => {
    const dense = SHAPES['empty objects (the densest silo)']!;
    const strings = SHAPES['long strings']!;
    expect(estimateParsedBytes(dense) / dense.length).toBeGreaterThan(20);
    expect(estimateParsedBytes(strings) / strings.length).toBeLessThan(1.1);
  });

  it('stays within the worst case for the shapes that hold most per character', () => {
    for (const text of [array(200_000, () => '[{}]'), array(200_000, () => '[0]'), array(200_000, () => '[]')]) {
      const heap = measured(text);
      expect(heap).toBeLessThanOrEqual(text.length * WORST_BYTES_PER_CHAR + NOISE);
      expect(estimateParsedBytes(text)).toBeGreaterThanOrEqual(heap * 0.9 - NOISE);
    }
  });
});
