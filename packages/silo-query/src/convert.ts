/**
 * Output conversions (contract §5, the `output` table). Each takes the selected value (never
 * `undefined`: an unresolved selection is `null` by then) and returns the converted value, or
 * `null` when the table has no row for the input.
 *
 * A `JsonNumber` is a number here, converted exactly from its text: `text` gives the text as
 * written, `int` the exact integer, `float` the `JsonNumber` itself (its JSON text is the
 * number), `bool` whether its exact value is non-zero.
 */
import { integerDigits, isZeroText, JsonNumber } from './json-number.js';
import { toJSON } from './json.js';
import { isIntegerString, isJsonNumber, trimAsciiWhitespace } from './numbers.js';

export type Output = 'json' | 'text' | 'int' | 'float' | 'bool';
export type Converter = (value: unknown) => unknown;

/** The outputs that work, in the order the error message lists them. */
export const OUTPUTS: readonly Output[] = ['json', 'text', 'int', 'float', 'bool'];
/** Outputs the hosted service names but does not support. */
export const UNSUPPORTED_OUTPUTS: readonly string[] = ['date', 'timestamp'];

/** `json`: the value with its own type. */
export const toJsonOutput: Converter = (v) => v;

/**
 * `text`: string → itself; finite number → its JSON text (`1.5` → `"1.5"`, `1e21` → `"1e+21"`;
 * a `JsonNumber`: its text as written, `1.0` → `"1.0"`); `true`/`false` → `"true"`/`"false"`;
 * object or array → its JSON text; `null` → `null`.
 */
export const toText: Converter = (v) => {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : null;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return null;
      return v instanceof JsonNumber ? v.text : toJSON(v);
    default:
      return null;
  }
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The integer a `[+-]?[0-9]+` string denotes: a number when it is a safe integer
 * (|n| ≤ 2^53 − 1), otherwise an exact `bigint` (never rounded). `-0` is `0`.
 */
export function integerFromDigits(s: string): number | bigint {
  // Up to 15 digits (plus a sign) is always safe and exact through Number().
  if (s.length <= 15) {
    const n = Number(s);
    return n === 0 ? 0 : n;
  }
  const big = BigInt(s);
  return big <= MAX_SAFE && big >= -MAX_SAFE ? Number(big) : big;
}

/**
 * `int`: integral number → itself; other finite number → truncated toward zero; string
 * matching `^[+-]?[0-9]+$` after trimming ASCII whitespace → that integer (a `bigint` beyond
 * the safe range, exact); `true`/`false` → `1`/`0`. Beyond the safe range a number becomes
 * the `bigint` its JSON text denotes (`1e+21` → 1000000000000000000000n). A `JsonNumber` is
 * truncated exactly from its text (`1.0` → 1, `1e2` → 100, `-0` → 0, `12345678901234567890.9` →
 * 12345678901234567890n, `1e400` → 10n ** 400n, `1e-400` → 0); `null` when the integer would
 * have more than max(4300, text length) digits (`1e5000`).
 */
export const toInt: Converter = (v) => {
  switch (typeof v) {
    case 'number': {
      if (!Number.isFinite(v)) return null;
      const t = Math.trunc(v);
      if (t <= Number.MAX_SAFE_INTEGER && t >= -Number.MAX_SAFE_INTEGER) return t === 0 ? 0 : t; // no -0
      // Past the safe range, the exact integer its JSON text denotes (`1e+23` is 10^23, which
      // the double itself is not), as a bigint.
      return integerFromDigits(integerDigits('' + v) as string);
    }
    case 'string': {
      const s = trimAsciiWhitespace(v);
      return isIntegerString(s) ? integerFromDigits(s) : null;
    }
    case 'boolean':
      return v ? 1 : 0;
    case 'object': {
      if (!(v instanceof JsonNumber)) return null;
      const digits = integerDigits(v.text);
      return digits === undefined ? null : integerFromDigits(digits);
    }
    default:
      return null;
  }
};

/**
 * `float`: number → itself (contract §5), a `JsonNumber` with its text unchanged, also past the
 * double range (`1e400`); string in JSON number grammar (optionally with one leading `+`) after
 * trimming ASCII whitespace, whose value is finite → that number (a double); `true`/`false` →
 * `1`/`0`.
 */
export const toFloat: Converter = (v) => {
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'string': {
      const s = trimAsciiWhitespace(v);
      const from = s.charCodeAt(0) === 0x2b ? 1 : 0; // one leading +, not followed by a sign
      if (!isJsonNumber(s, from) || (from === 1 && s.charCodeAt(1) === 0x2d)) return null;
      const n = Number(from === 1 ? s.slice(1) : s);
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      return v ? 1 : 0;
    case 'object':
      return v instanceof JsonNumber ? v : null;
    default:
      return null;
  }
};

/** `true` when `s` equals the lowercase ASCII word `word` ignoring ASCII case. */
function equalsAsciiIgnoreCase(s: string, word: string): boolean {
  if (s.length !== word.length) return false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * `bool`: boolean → itself; string `true`/`false` (any ASCII case), `1`/`0` → that boolean
 * (no trimming); number `0` → `false`, other finite number → `true`. A `JsonNumber` by its
 * exact value: `-0`, `0.0`, `0e5` → `false`; `1e-400`, `1e400` → `true`.
 */
export const toBool: Converter = (v) => {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      if (v === '1' || equalsAsciiIgnoreCase(v, 'true')) return true;
      if (v === '0' || equalsAsciiIgnoreCase(v, 'false')) return false;
      return null;
    case 'number':
      return Number.isFinite(v) ? v !== 0 : null;
    case 'object':
      return v instanceof JsonNumber ? !isZeroText(v.text) : null;
    default:
      return null;
  }
};

export const CONVERTERS: Readonly<Record<Output, Converter>> = {
  json: toJsonOutput,
  text: toText,
  int: toInt,
  float: toFloat,
  bool: toBool,
};
