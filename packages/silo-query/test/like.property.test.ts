import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLike } from '../src/like.js';
import { iuEqual, referenceLike, swapAsciiCase } from './arbitraries.js';

const runs = { numRuns: 500 };

function like(text: string, pattern: string, ci = false): boolean {
  const r = compileLike(pattern, ci);
  if (!r.ok) throw new Error('invalid pattern');
  return r.match(text);
}

/** Escapes every code point, so the pattern is a pure literal. */
const escapeAll = (s: string): string => Array.from(s, (c) => `\\${c}`).join('');
/** Escapes only what LIKE gives meaning to. */
const escapeSpecial = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// Small alphabets make matches (and near misses) frequent.
const textChar = fc.constantFrom('a', 'b', 'A', 'B', '%', '_', '\\', 'é', 'É', 'ß', 'ſ', 's', 'S', '\u{1F600}', '\u212a', 'k', '\ud800', 'i', 'I', 'İ', 'ı', 'Σ', 'ς', 'σ', 'n', 'N');
const patternChar = fc.constantFrom('a', 'b', 'A', '%', '%', '%', '_', '\\%', '\\_', '\\\\', 'é', 'É', 's', 'S', 'ſ', '\u{1F600}', 'k', 'K', 'i', 'I', 'n', 'σ');
const textArb = fc.array(textChar, { maxLength: 9 }).map((a) => a.join(''));
const patternArb = fc.array(patternChar, { maxLength: 7 }).map((a) => a.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 20 });

describe('LIKE / ILIKE (property)', () => {
  it('% matches every string (lk and il)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(like(text, '%')).toBe(true);
        expect(like(text, '%', true)).toBe(true);
        expect(like(text, '%%%')).toBe(true);
      }),
      runs,
    );
  });

  it('a fully escaped literal pattern matches exactly itself', () => {
    fc.assert(
      fc.property(anyText, anyText, (s, other) => {
        expect(like(s, escapeAll(s))).toBe(true);
        expect(like(s, escapeSpecial(s))).toBe(true);
        expect(like(other, escapeAll(s))).toBe(other === s);
        expect(like(other, escapeSpecial(s))).toBe(other === s);
      }),
      runs,
    );
  });

  it('il is invariant under ASCII case swap of the text or the pattern', () => {
    fc.assert(
      fc.property(textArb, patternArb, (text, pattern) => {
        const r = like(text, pattern, true);
        expect(like(swapAsciiCase(text), pattern, true)).toBe(r);
        expect(like(text, swapAsciiCase(pattern), true)).toBe(r);
      }),
      runs,
    );
  });

  it('lk agrees with a naive backtracking matcher on short inputs', () => {
    fc.assert(
      fc.property(textArb, patternArb, (text, pattern) => {
        expect(like(text, pattern)).toBe(referenceLike(text, pattern, (t, p) => t === p));
      }),
      { numRuns: 2000 },
    );
  });

  it('il agrees with a naive matcher comparing code points by the engine\'s /iu', () => {
    fc.assert(
      fc.property(textArb, patternArb, (text, pattern) => {
        expect(like(text, pattern, true)).toBe(referenceLike(text, pattern, iuEqual));
      }),
      { numRuns: 2000 },
    );
  });

  it('a text matches the pattern made of its own code points with any of them replaced by _ (and runs by %)', () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.constantFrom('keep', 'one', 'run'), { maxLength: 20 }), (text, plan) => {
        const cps = Array.from(text);
        const pattern = cps
          .map((c, i) => {
            const how = plan[i % Math.max(plan.length, 1)] ?? 'keep';
            return how === 'one' ? '_' : how === 'run' ? '%' : escapeSpecial(c);
          })
          .join('');
        expect(like(text, pattern)).toBe(true);
      }),
      runs,
    );
  });
});
