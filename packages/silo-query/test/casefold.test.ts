import { describe, expect, it } from 'vitest';
import { foldCodePoint, foldText } from '../src/casefold.js';
import { UNICODE_VERSION } from '../src/casefold-data.js';
import { deriveFoldMap } from './tools/casefold-derive.js';

const cp = (c: number): string => String.fromCodePoint(c);

describe('simple case folding table', () => {
  it('folds the classic cases', () => {
    expect(foldCodePoint(0x41)).toBe(0x61); // A
    expect(foldCodePoint(0x212a)).toBe(0x6b); // Kelvin sign → k
    expect(foldCodePoint(0x17f)).toBe(0x73); // long s → s
    expect(foldCodePoint(0x3a3)).toBe(foldCodePoint(0x3c2)); // Σ and ς
    expect(foldCodePoint(0xb5)).toBe(0x3bc); // micro → mu
    expect(foldCodePoint(0x1e9e)).toBe(0xdf); // ẞ → ß
    expect(foldCodePoint(0x130)).toBe(0x130); // İ has no simple folding
    expect(foldCodePoint(0x131)).toBe(0x131); // ı neither
    expect(foldCodePoint(0xab70)).toBe(foldCodePoint(0x13a0)); // Cherokee
    expect(foldCodePoint(0x10400)).toBe(0x10428); // Deseret
  });

  it('puts every code point in the class the engine\'s /iu puts it (both ways)', () => {
    // Every mapping is a /iu equivalence, and folding is idempotent.
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const f = foldCodePoint(c);
      if (f === c) continue;
      expect(foldCodePoint(f)).toBe(f);
      expect(new RegExp(`^[\\u{${c.toString(16)}}]$`, 'iu').test(cp(f)), `U+${c.toString(16)}`).toBe(true);
    }
    // Every /iu class of the running engine folds to one code point (checked exhaustively when
    // the engine's Unicode version is the table's; a newer engine may know more characters).
    if (process.versions.unicode === UNICODE_VERSION) {
      const derived = deriveFoldMap();
      for (const [c, rep] of derived) expect(foldCodePoint(c), `U+${c.toString(16)}`).toBe(rep);
      for (let c = 0x80; c <= 0x10ffff; c++) {
        if ((c >= 0xd800 && c <= 0xdfff) || derived.has(c)) continue;
        if (foldCodePoint(c) !== c) throw new Error(`U+${c.toString(16)} folds but the engine says it is alone`);
      }
    }
  }, 30_000);

  it('foldText keeps the UTF-16 length and folds code point by code point', () => {
    const s = 'AbÉ\u{10400}\ud800ΣİK';
    const f = foldText(s);
    expect(f.length).toBe(s.length);
    expect(f).toBe(Array.from(s, (ch) => cp(foldCodePoint(ch.codePointAt(0)!))).join(''));
    expect(foldText('PLAIN ascii')).toBe('plain ascii');
    const long = 'É'.repeat(10_000);
    expect(foldText(long)).toBe('é'.repeat(10_000));
  });

  it('the only non-ASCII code points that lowercase or fold to ASCII are U+0130, U+017F and U+212A (like.ts relies on it)', () => {
    const toAscii: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const lower = cp(c).toLowerCase();
      if ([...lower].some((ch) => ch.charCodeAt(0) < 0x80) || foldCodePoint(c) < 0x80) toAscii.push(c.toString(16));
    }
    expect(toAscii).toStrictEqual(['130', '17f', '212a']);
  }, 30_000);
});
