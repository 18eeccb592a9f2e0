/**
 * The syntax of a LIKE pattern: `%` matches any run of code points (also none), `_` exactly one
 * code point, `\` makes the next code point literal (`\%`, `\_`, `\\`). A pattern that ends in
 * an unescaped `\` is invalid.
 */
import { foldCodePoint } from './casefold.js';

/** Token values besides code points (which are ≥ 0). */
export const ANY_ONE = -1;
export const ANY_RUN = -2;

/** Parses a pattern into tokens (code points, folded when `fold`; ANY_ONE; ANY_RUN, never two in a row). */
export function tokenize(pattern: string, fold: boolean): number[] | undefined {
  const tokens: number[] = [];
  const n = pattern.length;
  for (let i = 0; i < n;) {
    let c = pattern.codePointAt(i)!;
    i += c > 0xffff ? 2 : 1;
    if (c === 0x5c) { // backslash
      if (i >= n) return undefined;
      c = pattern.codePointAt(i)!;
      i += c > 0xffff ? 2 : 1;
      tokens.push(fold ? foldCodePoint(c) : c);
    } else if (c === 0x25) { // %
      if (tokens[tokens.length - 1] !== ANY_RUN) tokens.push(ANY_RUN);
    } else if (c === 0x5f) { // _
      tokens.push(ANY_ONE);
    } else {
      tokens.push(fold ? foldCodePoint(c) : c);
    }
  }
  return tokens;
}

/** The number of code points of `s` (a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}
