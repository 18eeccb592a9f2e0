import { describe, expect, it } from 'vitest';
import { diffStats, lineDiff, type DiffLine } from '../app/src/lib/diff.js';

/** Applying a diff must give back both texts: the kept and removed lines are the old text, kept and added the new. */
function sides(lines: DiffLine[]): { before: string[]; after: string[] } {
  return {
    before: lines.filter((l) => l.op !== '+').map((l) => l.text),
    after: lines.filter((l) => l.op !== '-').map((l) => l.text),
  };
}

describe('lineDiff', () => {
  it('keeps equal texts as they are', () => {
    expect(lineDiff('a\nb\n', 'a\nb\n')).toEqual([
      { op: ' ', text: 'a' },
      { op: ' ', text: 'b' },
    ]);
  });

  it('shows a changed line as removed then added, between kept lines', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
    ]);
  });

  it('handles empty sides', () => {
    expect(lineDiff('', 'x\ny')).toEqual([
      { op: '+', text: 'x' },
      { op: '+', text: 'y' },
    ]);
    expect(lineDiff('x', '')).toEqual([{ op: '-', text: 'x' }]);
    expect(lineDiff('', '')).toEqual([]);
  });

  it('finds a shortest edit script (insertions and deletions inside)', () => {
    const d = lineDiff('a\nb\nc\na\nb\nb\na', 'c\nb\na\nb\na\nc');
    expect(sides(d)).toEqual({ before: 'a b c a b b a'.split(' '), after: 'c b a b a c'.split(' ') });
    expect(diffStats(d).added + diffStats(d).removed).toBe(5); // the classic Myers example: D = 5
  });

  it('reproduces both sides of random texts', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: rand(30) }, () => 'abcd'[rand(4)] ?? 'a');
      const b = Array.from({ length: rand(30) }, () => 'abcd'[rand(4)] ?? 'a');
      const d = lineDiff(a.join('\n'), b.join('\n'));
      expect(sides(d)).toEqual({ before: a, after: b });
    }
  });

  it('past the edit limit shows the middle removed then added, still both sides', () => {
    const a = Array.from({ length: 50 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 50 }, (_, i) => `new ${i}`);
    const d = lineDiff(['same', ...a, 'end'].join('\n'), ['same', ...b, 'end'].join('\n'), 10);
    expect(d[0]).toEqual({ op: ' ', text: 'same' });
    expect(d.at(-1)).toEqual({ op: ' ', text: 'end' });
    expect(diffStats(d)).toEqual({ added: 50, removed: 50 });
    expect(sides(d)).toEqual({ before: ['same', ...a, 'end'], after: ['same', ...b, 'end'] });
  });
});
