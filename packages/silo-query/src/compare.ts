/**
 * Search comparisons `eq`, `ne`, `gt`, `lt` (contract §5). Each is compiled once from the
 * `value` parameter into a predicate over the field value (`undefined` = the field is missing),
 * with every reading of `value` (as a number, a boolean, `null`, a string) done at compile time.
 *
 * Numbers compare exactly, as the decimal values their JSON texts denote: `value` is read as a
 * decimal, never rounded to a double, and so is the field: a `JsonNumber` by its text, a plain
 * number by its JSON text (what `toJSON` writes for it), a numeric string (gt/lt) by itself.
 * So `1.0` eq `1`, `1e2` eq `100`, `-0` eq `0`, but `9007199254740993` does not equal a
 * stored `9007199254740992`. Doubles settle almost every comparison (rounding to the nearest
 * double never reverses an order), and the exact decimal comparison runs only on a tie.
 */
import { compareDecimals, JsonNumber, toDecimal, type Decimal } from './json-number.js';
import { isJsonNumber } from './numbers.js';
import { internalize } from './path.js';

/** A compiled field test; the argument is the field value, `undefined` when missing. */
export type Predicate = (field: unknown) => boolean;

/** A search `value` that is a JSON number, read for exact comparisons. */
export interface NumericValue {
  /** `Number(value)`: the nearest double (may be infinite or zero for huge or tiny values). */
  readonly double: number;
  /** The exact decimal `value` denotes. */
  readonly decimal: Decimal;
  /**
   * The sign of (the decimal of `double`'s JSON text) − `value`: what a plain number equal to
   * `double` compares as. `NaN` when `double` is not finite (no plain JSON number equals it).
   */
  readonly tie: number;
  /** The plain number that equals `value`, if one does (`value` `1.0` → `1`); else `NaN`. */
  readonly eqDouble: number;
}

/** `value` read as a JSON number, or `undefined` when it is not one. */
export function readNumericValue(value: string): NumericValue | undefined {
  if (!isJsonNumber(value)) return undefined;
  const double = Number(value);
  const decimal = toDecimal(value);
  const tie = Number.isFinite(double) ? compareDecimals(toDecimal('' + double), decimal) : Number.NaN;
  return { double, decimal, tie, eqDouble: tie === 0 ? double : Number.NaN };
}

/** A string field in JSON number grammar against `value`, exactly. */
export function compareNumericString(f: string, v: NumericValue): number {
  const fd = Number(f);
  const d = v.double;
  // Rounding to the nearest double is monotonic: different doubles mean the same order.
  return fd > d ? 1 : fd < d ? -1 : compareDecimals(toDecimal(f), v.decimal);
}

/** A `JsonNumber` field against `value`, exactly. */
export function compareJsonNumberField(f: JsonNumber, v: NumericValue): number {
  return compareDecimals(toDecimal(f.text), v.decimal);
}

/**
 * `eq`: a string field equals `value` exactly; a number field (plain or `JsonNumber`) equals
 * it when `value` is a JSON number with the same exact value; a boolean field when `value` is
 * `true`/`false`; a `null` field when `value` is `null`. A missing, object or array field
 * never equals.
 */
export function compileEq(raw: string): Predicate {
  const value = internalize(raw); // equal strings then often compare by pointer
  const num = readNumericValue(value);
  const eqDouble = num === undefined ? Number.NaN : num.eqDouble; // NaN never equals
  const bool = value === 'true' ? true : value === 'false' ? false : undefined;
  const isNull = value === 'null';
  return (f) => {
    switch (typeof f) {
      case 'string':
        return f === value;
      case 'number':
        return f === eqDouble;
      case 'boolean':
        return f === bool;
      case 'object':
        if (f === null) return isNull;
        return num !== undefined && f instanceof JsonNumber && compareJsonNumberField(f, num) === 0;
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
 * grammar) and `value` are both numeric, numerically (exactly); otherwise, when the field is
 * a string, by code point order; otherwise no match.
 */
function compileOrder(value: string, sign: 1 | -1): Predicate {
  const num = readNumericValue(value);
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
  const v = num;
  const d = v.double;
  const tie = v.tie;
  // A numeric string compares by its double first; only a tie needs the exact comparison.
  if (sign === 1) {
    return (f) => {
      if (typeof f === 'number') return f > d || (f === d && tie > 0);
      if (typeof f === 'string') {
        if (!isJsonNumber(f)) return strTest(f);
        const fd = Number(f);
        return fd > d || (fd === d && compareNumericString(f, v) > 0);
      }
      return f instanceof JsonNumber && compareJsonNumberField(f, v) > 0;
    };
  }
  return (f) => {
    if (typeof f === 'number') return f < d || (f === d && tie < 0);
    if (typeof f === 'string') {
      if (!isJsonNumber(f)) return strTest(f);
      const fd = Number(f);
      return fd < d || (fd === d && compareNumericString(f, v) < 0);
    }
    return f instanceof JsonNumber && compareJsonNumberField(f, v) < 0;
  };
}

export function compileGt(value: string): Predicate {
  return compileOrder(value, 1);
}

export function compileLt(value: string): Predicate {
  return compileOrder(value, -1);
}
