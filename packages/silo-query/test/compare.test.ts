import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, compileGt, compileLt } from '../src/compare.js';
import { codePointCompare } from './arbitraries.js';

const sign = (n: number): number => Math.sign(n);

describe('compareCodePoints', () => {
  it('orders astral code points after U+E000..U+FFFF (unlike <)', () => {
    expect('\u{1F600}' < '\uff61').toBe(true); // what JavaScript does
    expect(compareCodePoints('\u{1F600}', '\uff61')).toBeGreaterThan(0);
    expect(compareCodePoints('\ue000', '\u{10000}')).toBeLessThan(0);
    expect(compareCodePoints('a\u{1F600}', 'a\u{1F601}')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'ab')).toBe(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
  });

  it('lone surrogates count as their own code points', () => {
    expect(compareCodePoints('\ud800', '\ue000')).toBeLessThan(0);
    expect(compareCodePoints('\ud800x', '\u{10000}')).toBeLessThan(0);
    expect(compareCodePoints('\udc00', '\ud800')).toBeGreaterThan(0);
  });

  it('agrees with the obvious code point comparison on any strings', () => {
    const s = fc.string({ unit: fc.constantFrom('a', 'b', '\ud800', '\udc00', '\ue000', '\uffff', '\u{10000}', '\u{1F600}', '\u{10FFFF}'), maxLength: 6 });
    fc.assert(
      fc.property(s, s, (a, b) => {
        expect(sign(compareCodePoints(a, b))).toBe(sign(codePointCompare(a, b)));
        // gt/lt on string fields use the same order, with or without high code units in the value.
        // (No digits in this alphabet, so no string here is numeric.)
        expect(compileGt(b)(a)).toBe(codePointCompare(a, b) > 0);
        expect(compileLt(b)(a)).toBe(codePointCompare(a, b) < 0);
      }),
      { numRuns: 2000 },
    );
  });
});
