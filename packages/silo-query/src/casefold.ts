/**
 * Simple case folding, code point by code point (what `il` compares by). Two code points match
 * case-insensitively iff they fold to the same code point. The table (`casefold-data.ts`) is
 * derived from the JavaScript engine's own simple case folding (the `/iu` Canonicalize of
 * ECMAScript, from Unicode's CaseFolding.txt, status C + S); see test/tools/casefold-derive.ts.
 */
import { FOLD_RUNS } from './casefold-data.js';

/** BMP fold targets (0 = folds to itself; U+0000 folds to itself anyway). */
const BMP = new Uint16Array(0x10000);
/** Astral fold targets. */
const ASTRAL = new Map<number, number>();

for (let r = 0; r < FOLD_RUNS.length; r += 4) {
  const start = FOLD_RUNS[r]!;
  const count = FOLD_RUNS[r + 1]!;
  const stride = FOLD_RUNS[r + 2]!;
  const delta = FOLD_RUNS[r + 3]!;
  for (let k = 0; k < count; k++) {
    const c = start + k * stride;
    const t = c + delta;
    if (c < 0x10000 && t < 0x10000) BMP[c] = t;
    else ASTRAL.set(c, t);
  }
}

/** The simple case fold of code point `c`. */
export function foldCodePoint(c: number): number {
  if (c < 0x80) return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
  if (c < 0x10000) {
    const t = BMP[c]!;
    return t === 0 ? c : t;
  }
  return ASTRAL.get(c) ?? c;
}

/** Matches any code unit outside ASCII (a fixed pattern; never built from input). */
const NON_ASCII = /[^\u0000-\u007f]/;

/** Reads a Uint16Array of well-formed UTF-16 into a string natively (little-endian machines only: the array's byte order). */
const UTF16 = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? new TextDecoder('utf-16le', { ignoreBOM: true }) : undefined;

/**
 * `s` with every code point folded; same length in UTF-16 units, code point for code point
 * (lone surrogates stay as they are). ASCII text takes the engine's `toLowerCase`, which is
 * exactly simple case folding there (A-Z to a-z).
 */
export function foldText(s: string): string {
  if (!NON_ASCII.test(s)) return s.toLowerCase();
  const n = s.length;
  let i = 0;
  // Skip the prefix that folds to itself.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) break;
    if (foldCodePoint(c) !== c) break;
  }
  if (i === n) return s;
  // A typed array, not number[]: 10 M units folded in 60-140 ms instead of 0.6-1.4 s.
  const units = new Uint16Array(n);
  for (let j = 0; j < i; j++) units[j] = s.charCodeAt(j);
  let wellFormed = true;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const f = foldCodePoint(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) - 0x10000;
        units[i] = 0xd800 + (f >> 10);
        units[i + 1] = 0xdc00 + (f & 0x3ff);
        i += 2;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) wellFormed = false; // a lone surrogate (pairs went above)
    units[i] = foldCodePoint(c);
    i++;
  }
  // apply takes the typed array as it is (spreading it goes through its iterator: 3× slower).
  if (n <= 8192) return String.fromCharCode.apply(null, units as unknown as number[]);
  // Long text: the native decoder is 1.5× faster, but it would replace a lone surrogate.
  if (wellFormed && UTF16 !== undefined) return UTF16.decode(units);
  const parts: string[] = [];
  for (let k = 0; k < n; k += 8192) parts.push(String.fromCharCode.apply(null, units.subarray(k, k + 8192) as unknown as number[]));
  return parts.join('');
}
