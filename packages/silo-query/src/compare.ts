/**
 * Search comparisons `eq`, `ne`, `gt`, `lt` (contract §5). Each is compiled once from the
 * `value` parameter into a predicate over the field value (`undefined` = the field is missing),
 * with every reading of `value` (as a number, a boolean, `null`, a string) done at compile time.
 *
 * Numbers compare as IEEE-754 doubles, with `value` read the way `JSON.parse` reads a number
 * (so `1.0` equals `1`, and `9007199254740993` equals the stored `9007199254740992`, as the
 * stored JSON itself reads back).
 */
import { parseJsonNumber } from './numbers.js';
import { internalize } from './path.js';

/** A compiled field test; the argument is the field value, `undefined` when missing. */
export type Predicate = (field: unknown) => boolean;

/**
 * `eq`: a string field equals `value` exactly; a number field equals it when `value` is a JSON
 * number with the same value; a boolean field when `value` is `true`/`false`; a `null` field
 * when `value` is `null`. A missing, object or array field never equals.
 */
export function compileEq(raw: string): Predicate {
  const value = internalize(raw); // equal strings then often compare by pointer
  const num = parseJsonNumber(value);
  const hasNum = num !== undefined;
  const bool = value === 'true' ? true : value === 'false' ? false : undefined;
  const isNull = value === 'null';
  return (f) => {
    switch (typeof f) {
      case 'string':
        return f === value;
      case 'number':
        return hasNum && f === num;
      case 'boolean':
        return f === bool;
      case 'object':
        return f === null && isNull;
      default:
        return false;
    }
  };
}

/** `ne`: the exact complement of `eq` (a missing field is `ne` everything). */
export function compileNe(value: string): Predicate {
  const eq = compileEq(value);
  return (f) => !eq(f);
}

/**
 * Compares two strings by Unicode code point order (not UTF-16 code unit order, which is what
 * JavaScript's `<` does: it puts U+10000..U+10FFFF before U+E000..U+FFFF). Lone surrogates
 * count as the code points they are. Returns <0, 0 or >0.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  // When a low surrogate differs right after a (shared) high surrogate, the difference lies in
  // the code point that starts at the high surrogate; otherwise it starts at i.
  let start = i;
  if (i > 0) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff && ((a.charCodeAt(i) & 0xfc00) === 0xdc00 || (b.charCodeAt(i) & 0xfc00) === 0xdc00)) {
      start = i - 1;
    }
  }
  return (a.codePointAt(start) as number) - (b.codePointAt(start) as number);
}

/** `true` when `s` has a code unit ≥ U+D800, where UTF-16 order and code point order can differ. */
export function hasHighUnits(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xd800) return true;
  return false;
}

/**
 * `gt` (`sign` 1) or `lt` (`sign` -1): when the field (a number, or a string in JSON number
 * grammar) and `value` are both numeric, numerically; otherwise, when the field is a string,
 * by code point order; otherwise no match.
 */
function compileOrder(value: string, sign: 1 | -1): Predicate {
  const num = parseJsonNumber(value);
  // When `value` has no code unit ≥ U+D800, JavaScript's code unit order equals code point
  // order for every comparison against it (the first difference is then never a surrogate
  // against U+E000..U+FFFF), so the native operators are exact.
  const fast = !hasHighUnits(value);
  const strGt = fast ? (f: string) => f > value : (f: string) => compareCodePoints(f, value) > 0;
  const strLt = fast ? (f: string) => f < value : (f: string) => compareCodePoints(f, value) < 0;
  const strTest = sign === 1 ? strGt : strLt;
  if (num === undefined) {
    return (f) => typeof f === 'string' && strTest(f);
  }
  const n = num;
  if (sign === 1) {
    return (f) => {
      if (typeof f === 'number') return f > n;
      if (typeof f !== 'string') return false;
      const fn = parseJsonNumber(f);
      return fn !== undefined ? fn > n : strTest(f);
    };
  }
  return (f) => {
    if (typeof f === 'number') return f < n;
    if (typeof f !== 'string') return false;
    const fn = parseJsonNumber(f);
    return fn !== undefined ? fn < n : strTest(f);
  };
}

export function compileGt(value: string): Predicate {
  return compileOrder(value, 1);
}

export function compileLt(value: string): Predicate {
  return compileOrder(value, -1);
}
