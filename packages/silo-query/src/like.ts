/**
 * SQL LIKE (`lk`) and ILIKE (`il`) over code points, with loops only (no regular expression).
 *
 * Pattern: `%` matches any run of code points (also none), `_` exactly one code point (so one
 * emoji, even though it is two UTF-16 units), `\` makes the next code point literal (`\%`,
 * `\_`, `\\`); the pattern must match the whole text. `il` compares code points after simple
 * case folding. A pattern that ends in an unescaped `\` is invalid.
 *
 * The general matcher is the two-pointer wildcard algorithm: on a mismatch it backtracks only
 * to the most recent `%`, which is exact for `%`/`_` patterns and runs in
 * O(text × pattern) time at worst (linear for `%a%a%a%a%b`).
 */
import { foldCodePoint, foldText } from './casefold.js';

/** Token values besides code points (which are ≥ 0). */
const ANY_ONE = -1;
const ANY_RUN = -2;

export type LikeMatcher = (text: string) => boolean;

export type LikeCompileResult =
  | { ok: true; match: LikeMatcher }
  | { ok: false; reason: 'trailing_escape' };

/** Parses a pattern into tokens (code points, folded when `fold`; ANY_ONE; ANY_RUN, never two in a row). */
function tokenize(pattern: string, fold: boolean): number[] | undefined {
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

/** The general matcher over tokens (code points compared exactly). */
function matchTokens(tokens: Int32Array, text: string): boolean {
  const n = text.length;
  const m = tokens.length;
  let t = 0; // position in text (UTF-16 units, always at a code point boundary)
  let p = 0; // position in tokens
  let starP = -1; // token after the most recent %, or -1
  let starT = 0; // text position that % run currently ends at
  while (t < n) {
    if (p < m) {
      const tok = tokens[p]!;
      if (tok === ANY_RUN) {
        starP = ++p;
        starT = t;
        continue;
      }
      let c = text.charCodeAt(t);
      let w = 1;
      if (c >= 0xd800 && c <= 0xdbff && t + 1 < n) {
        const d = text.charCodeAt(t + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
          w = 2;
        }
      }
      if (tok === ANY_ONE) {
        p++;
        t += w;
        continue;
      }
      if (tok === c) {
        p++;
        t += w;
        continue;
      }
    }
    if (starP < 0) return false;
    // Let the last % swallow one more code point and retry from there.
    const c = text.charCodeAt(starT);
    starT += c >= 0xd800 && c <= 0xdbff && starT + 1 < n && (text.charCodeAt(starT + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    t = starT;
    p = starP;
  }
  while (p < m && tokens[p] === ANY_RUN) p++;
  return p === m;
}

/** `true` when `s` has no lone surrogate (so code unit matching is code point matching). */
function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      if (i + 1 >= s.length || (s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

/**
 * Case-sensitive matcher for patterns made of literals and `%` only, on native string search:
 * the first and last literal are anchored, the ones between are found leftmost-first (greedy
 * leftmost is exact when the only wildcard is `%`). Only used when every literal is well-formed
 * UTF-16, where a code unit match always starts and ends on code point boundaries.
 */
function percentOnlyMatcher(parts: string[]): LikeMatcher {
  if (parts.length === 1) {
    const lit = parts[0]!;
    return (text) => text === lit;
  }
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((s) => s.length > 0);
  const fixed = first.length + last.length;
  if (middle.length === 0) {
    if (first.length === 0 && last.length === 0) return () => true;
    if (last.length === 0) return (text) => text.startsWith(first);
    if (first.length === 0) return (text) => text.endsWith(last);
    return (text) => text.length >= fixed && text.startsWith(first) && text.endsWith(last);
  }
  if (middle.length === 1 && fixed === 0) {
    const lit = middle[0]!;
    return (text) => text.includes(lit);
  }
  return (text) => {
    if (text.length < fixed || !text.startsWith(first) || !text.endsWith(last)) return false;
    const end = text.length - last.length;
    let pos = first.length;
    for (let i = 0; i < middle.length; i++) {
      const part = middle[i]!;
      const at = text.indexOf(part, pos);
      if (at < 0 || at + part.length > end) return false;
      pos = at + part.length;
    }
    return true;
  };
}

/** The case-sensitive matcher of a token list. */
function exactMatcher(tokens: number[]): LikeMatcher {
  if (!tokens.includes(ANY_ONE)) {
    const parts: string[] = [''];
    for (const tok of tokens) {
      if (tok === ANY_RUN) parts.push('');
      else parts[parts.length - 1] += String.fromCodePoint(tok);
    }
    if (parts.every(isWellFormed)) return percentOnlyMatcher(parts);
  }
  const compiled = Int32Array.from(tokens);
  return (text) => matchTokens(compiled, text);
}

/**
 * `true` when the engine's `toLowerCase` gives the same ILIKE answer as simple case folding,
 * so the text can skip the fold table: the pattern has no `_` and its literals are ASCII other
 * than `i`, `k`, `s` (folded). Then only ASCII text characters can match a literal, and both
 * mappings treat ASCII alike (A-Z to a-z). Outside ASCII they differ only in ways no such
 * literal can see: the code points that fold or lowercase to ASCII are U+212A KELVIN SIGN (k),
 * U+017F LONG S (s) and U+0130 (lowercases to i + U+0307, which also changes the length, harmless
 * without `_`: `%` absorbs it and it matches no literal either way).
 */
function lowerCaseIsEnough(tokens: readonly number[]): boolean {
  for (const t of tokens) {
    if (t === ANY_RUN) continue;
    if (t === ANY_ONE || t >= 0x80 || t === 0x69 || t === 0x6b || t === 0x73) return false;
  }
  return true;
}

/**
 * Compiles a LIKE pattern. `caseInsensitive` gives ILIKE, which is LIKE of the case-folded
 * text against the case-folded pattern: simple case folding maps each code point to one code
 * point of the same UTF-16 length, so folding first changes nothing but the case. The result
 * takes a string; callers decide what happens to non-strings (search: never a match).
 */
export function compileLike(pattern: string, caseInsensitive: boolean): LikeCompileResult {
  const tokens = tokenize(pattern, caseInsensitive);
  if (tokens === undefined) return { ok: false, reason: 'trailing_escape' };
  const exact = exactMatcher(tokens);
  if (!caseInsensitive || (tokens.length === 1 && tokens[0] === ANY_RUN)) return { ok: true, match: exact };
  if (lowerCaseIsEnough(tokens)) return { ok: true, match: (text) => exact(text.toLowerCase()) };
  return { ok: true, match: (text) => exact(foldText(text)) };
}

/** Convenience: does `text` match `pattern`? Throws a plain Error for an invalid pattern. */
export function like(text: string, pattern: string, caseInsensitive = false): boolean {
  const r = compileLike(pattern, caseInsensitive);
  if (!r.ok) throw new Error('LIKE pattern ends with an unescaped backslash');
  return r.match(text);
}
