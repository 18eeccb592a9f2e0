/**
 * The nesting bound of applyJsonPatch: what it costs. Measuring a value's depth walks it; that walk
 * is work of the patch (charged to its budget) and is not repeated for a container no write
 * changed since (moving a 3 000-member object back and forth 599 times walked it 599 times,
 * uncharged: 272 ms on the event loop for a 58 KB patch, 4.7 s with 20 000 members).
 */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, PatchTooCostlyError } from '../src/patch/index.js';

const wide = (members: number) => Object.fromEntries(Array.from({ length: members }, (_, i) => [`k${i}`, i]));

describe('applyJsonPatch with maxDepth', () => {
  it('charges the walk that measures a placed value to the work budget', () => {
    const patch = [{ op: 'add' as const, path: '/x', value: wide(10_000) }];
    expect(applyJsonPatch({}, patch, { maxDepth: 1000 })).toEqual({ x: wide(10_000) });
    expect(() => applyJsonPatch({}, patch, { maxDepth: 1000, maxWork: 5_000 })).toThrow(PatchTooCostlyError);
  });

  it('walks a container no write changed only once, however often it moves', () => {
    const document = { o: wide(3_000), p: {} };
    const moves = Array.from({ length: 599 }, (_, i) =>
      i % 2 === 0 ? { op: 'move' as const, from: '/o', path: '/p/o' } : { op: 'move' as const, from: '/p/o', path: '/o' },
    );
    // One walk of 3 001 steps and the moves' own steps fit in 10 000; 599 walks would not.
    const moved = applyJsonPatch(document, moves, { maxDepth: 1000, maxWork: 10_000 }) as { p: { o: unknown } };
    expect(moved.p.o).toEqual(wide(3_000));
  });

  it('measures again what a write changed: a container made deeper in place is not taken for its old depth', () => {
    const deepen = [
      { op: 'add' as const, path: '/c', value: { d: {} } },
      { op: 'add' as const, path: '/a', value: [[]] },
      { op: 'add' as const, path: '/a/0/-', value: [] }, // a is the patch's own now: [[[]]], 3 deep
      { op: 'move' as const, from: '/a', path: '/b' }, // measured: 3
      { op: 'add' as const, path: '/b/0/0/-', value: [[]] }, // written in place: 5 deep
    ];
    expect(applyJsonPatch({}, deepen, { maxDepth: 7 })).toEqual({ c: { d: {} }, b: [[[[[]]]]] });
    // Moved 3 levels down, b makes the document 8 deep (3 + 5); taken for its measured 3, it passed.
    expect(() => applyJsonPatch({}, [...deepen, { op: 'move' as const, from: '/b', path: '/c/d/e' }], { maxDepth: 7 })).toThrow(/deeper than 7/);
  });
});
