/**
 * Exact JSON numbers.
 *
 * `JsonNumber` holds a number as its JSON source text, for the numbers a double cannot carry
 * exactly (`1.0`, `1e2`, `-0`, `12345678901234567890`, `1e400`, `0.1000000000000000055511151231257827`).
 * `parseJson` makes one only where `JSON.stringify(JSON.parse(text)) !== text` for the number's
 * text; every other number stays a plain JavaScript number.
 *
 * Comparisons are exact decimal comparisons on the texts (sign, significant digits, decimal
 * exponent), with no floating point: `1.0` = `1`, `1e2` = `100`, `-0` = `0`, `1e400` = `1E+400`,
 * `12345678901234567890` < `12345678901234567891`.
 */
import { isJsonNumber } from './numbers.js';

/**
 * What `JsonNumber.prototype.toJSON` throws: one shared instance, so that `toJSON`'s retries
 * (see json.ts) do not pay for a stack trace each time.
 */
const REFUSED = new TypeError('JSON.stringify cannot write a JsonNumber exactly; use toJSON from silo-query');

/**
 * A JSON number kept as its exact source text. `valueOf()` is the nearest double (so `+n`,
 * `n < 3` and arithmetic work, approximately); `toString()` is the text. silo-query's
 * `toJSON` writes the text as it is. `JSON.stringify` cannot write raw text on Node 20, so it
 * throws a `TypeError` rather than write a rounded number.
 *
 * (`JSON.rawJSON`, which Node 21+ has, could let `JSON.stringify` write the text; it is not
 * used, so that every Node version behaves alike. Node 20's experimental one, behind
 * `--harmony-json-parse-with-source`, garbles output that also holds non-Latin-1 strings.)
 */
export class JsonNumber {
  /** The number's JSON text, exactly as it was written (`1.0`, `-0`, `1E+400`). */
  readonly text: string;

  /** `text` must be a JSON number (RFC 8259 grammar); otherwise a `SyntaxError`. */
  constructor(text: string) {
    if (typeof text !== 'string' || !isJsonNumber(text)) {
      throw new SyntaxError(`Not a JSON number: ${JSON.stringify(String(text)).slice(0, 60)}`);
    }
    this.text = text;
    Object.freeze(this);
  }

  /**
   * The value of a JSON number text the way `parseJson` stores it: a plain number when the text
   * survives `JSON.parse` + `JSON.stringify` unchanged, otherwise a `JsonNumber`.
   */
  static from(text: string): number | JsonNumber {
    const n = Number(text);
    return '' + n === text && isJsonNumber(text) ? n : new JsonNumber(text);
  }

  /** The nearest double (`Infinity` for `1e400`, `0` for `1e-400`, `-0` for `-0`). */
  valueOf(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }

  /**
   * What `JSON.stringify` calls: a `TypeError`, never a rounded number (silo-query's `toJSON`
   * writes the text instead).
   */
  toJSON(): never {
    throw REFUSED;
  }
}

/**
 * Whether `value` is a number as `parseJson` gives numbers: a plain number, or a `JsonNumber` for
 * a text a double would change (`5.0`, `12.50`, `1E2`, a 20-digit integer), whose `typeof` is
 * `'object'`. `Number(value)` is then its nearest double.
 */
export function isNumber(value: unknown): value is number | JsonNumber {
  return typeof value === 'number' || value instanceof JsonNumber;
}

/**
 * `true` when the object `o` is a `JsonNumber`. For a plain object (the usual case in a search
 * loop) one prototype load and compare settle it, cheaper than `instanceof`.
 */
export function isJsonNumberObject(o: object): boolean {
  const p: unknown = Object.getPrototypeOf(o);
  return p !== Object.prototype && p !== null && o instanceof JsonNumber;
}

/** `tokenShape`: the token round-trips. */
export const EXACT = 1;
/** `tokenShape`: the token does not round-trip. */
export const INEXACT = 0;
/** `tokenShape`: only a conversion can tell. */
export const UNKNOWN = 2;

/**
 * Whether the JSON number token `text[start..end)` (valid, the caller checked) is written
 * exactly as `JSON.stringify` writes its double, judged by its spelling alone where that
 * suffices. `EXACT`: an integer of at most 15 digits (not `-0`); a decimal without exponent,
 * with at most 15 significant digits, no trailing zero and at most five zeros after `0.`.
 * `INEXACT`: `-0`; a trailing zero after the point (`1.0`); an integer of more than 21 digits;
 * an `E`, or an `e` without sign (JavaScript writes `1e+21`). `UNKNOWN`: the rest (16 and 17
 * digit decimals, `e+`/`e-` exponents, tiny decimals).
 */
export function tokenShape(text: string, start: number, end: number): 0 | 1 | 2 {
  let i = start;
  let c = text.charCodeAt(i);
  if (c === 0x2d) c = text.charCodeAt(++i);
  const intStart = i;
  while (i < end && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
  const intLen = i - intStart;
  const zeroInt = intLen === 1 && text.charCodeAt(intStart) === 0x30;
  if (i === end) {
    if (intLen <= 15) return zeroInt && intStart > start ? INEXACT : EXACT; // -0
    return intLen > 21 ? INEXACT : UNKNOWN;
  }
  if (c === 0x2e) {
    const fracStart = ++i;
    while (i < end && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
    if (text.charCodeAt(i - 1) === 0x30) return INEXACT; // 1.0, 1.50, 1.0e5
    if (i === end) {
      if (zeroInt) {
        let z = fracStart;
        while (text.charCodeAt(z) === 0x30) z++;
        if (z - fracStart <= 5 && end - z <= 15) return EXACT;
      } else if (intLen + (end - fracStart) <= 15) return EXACT;
      return UNKNOWN;
    }
  }
  // An exponent: JavaScript writes `e+` or `e-`.
  if (c === 0x45) return INEXACT;
  const s = text.charCodeAt(i + 1);
  return s === 0x2b || s === 0x2d ? UNKNOWN : INEXACT;
}

/**
 * `true` when the JSON number token `text[start..end)` (valid: the caller checked) is written
 * exactly as `JSON.stringify` writes its double, i.e. when `JSON.parse` keeps it exactly.
 */
export function roundTrips(text: string, start: number, end: number): boolean {
  const shape = tokenShape(text, start, end);
  if (shape !== UNKNOWN) return shape === EXACT;
  const token = text.slice(start, end);
  return '' + Number(token) === token;
}

/**
 * A JSON number text as an exact decimal: `sign × 0.digits × 10^order`, where `digits` has no
 * leading or trailing zero. Zero is `{sign: 0, digits: '', order: 0}` (so `-0` is zero).
 * `order` is a `bigint` only when the exponent is too long for a safe integer.
 */
export interface Decimal {
  readonly sign: -1 | 0 | 1;
  readonly digits: string;
  readonly order: number | bigint;
}

const ZERO: Decimal = { sign: 0, digits: '', order: 0 };

/**
 * The exact decimal a JSON number text denotes. Throws a `SyntaxError` when `text` is not a
 * JSON number.
 */
export function toDecimal(text: string): Decimal {
  if (!isJsonNumber(text)) throw new SyntaxError(`Not a JSON number: ${JSON.stringify(text).slice(0, 60)}`);
  const n = text.length;
  let i = 0;
  const negative = text.charCodeAt(0) === 0x2d;
  if (negative) i++;
  const intStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (i < n && text.charCodeAt(i) === 0x2e) {
    fracStart = ++i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    fracEnd = i;
  }
  // The significant digits: the first and last non-zero digit over int part then fraction.
  let first = -1;
  let firstInInt = true;
  for (let k = intStart; k < intEnd; k++) {
    if (text.charCodeAt(k) !== 0x30) {
      first = k;
      break;
    }
  }
  if (first < 0) {
    firstInInt = false;
    for (let k = fracStart; k < fracEnd; k++) {
      if (text.charCodeAt(k) !== 0x30) {
        first = k;
        break;
      }
    }
  }
  if (first < 0) return ZERO;
  let last = -1;
  for (let k = fracEnd - 1; k >= fracStart; k--) {
    if (text.charCodeAt(k) !== 0x30) {
      last = k;
      break;
    }
  }
  if (last < 0) {
    for (let k = intEnd - 1; k >= intStart; k--) {
      if (text.charCodeAt(k) !== 0x30) {
        last = k;
        break;
      }
    }
  }
  let digits: string;
  if (firstInInt) {
    digits = last < intEnd ? text.slice(first, last + 1) : text.slice(first, intEnd) + text.slice(fracStart, last + 1);
  } else {
    digits = text.slice(first, last + 1);
  }
  // 0.digits × 10^order: the first significant digit sits `order` places left of the point.
  const pointShift = firstInInt ? intEnd - first : -(first - fracStart);
  let order: number | bigint = pointShift;
  if (i < n) {
    // Exponent: [eE][+-]?[0-9]+
    i++;
    let expNegative = false;
    const s = text.charCodeAt(i);
    if (s === 0x2b || s === 0x2d) {
      expNegative = s === 0x2d;
      i++;
    }
    while (i < n - 1 && text.charCodeAt(i) === 0x30) i++; // leading zeros
    const expDigits = text.slice(i);
    if (expDigits.length <= 15) {
      const e = Number(expDigits);
      order = pointShift + (expNegative ? -e : e);
    } else {
      const e = BigInt(expDigits);
      order = BigInt(pointShift) + (expNegative ? -e : e);
    }
  }
  return { sign: negative ? -1 : 1, digits, order };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Compares two exact decimals: -1, 0 or 1. */
export function compareDecimals(a: Decimal, b: Decimal): -1 | 0 | 1 {
  if (a.sign !== b.sign) return a.sign < b.sign ? -1 : 1;
  if (a.sign === 0) return 0;
  let m: -1 | 0 | 1;
  // `<` and `>` compare a number with a bigint exactly.
  if (a.order > b.order) m = 1;
  else if (a.order < b.order) m = -1;
  else m = a.digits > b.digits ? 1 : a.digits < b.digits ? -1 : 0; // a prefix is the smaller
  return a.sign === 1 ? m : m === 0 ? 0 : m === 1 ? -1 : 1;
}

/**
 * Compares two JSON number texts by their exact decimal values: a negative number when `a` <
 * `b`, `0` when they are equal (`1.0` and `1`, `-0` and `0`, `1e400` and `1E+400`), a positive
 * number when `a` > `b`. No floating point. Throws a `SyntaxError` when either is not a JSON
 * number.
 */
export function compareJsonNumbers(a: string, b: string): number {
  return compareDecimals(toDecimal(a), toDecimal(b));
}

/**
 * The JSON text of a number-like value: a `JsonNumber`'s text, a finite number's
 * `JSON.stringify` text, a bigint's digits; otherwise `undefined`.
 */
export function numberText(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? '' + v : undefined;
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'bigint') return v.toString();
  return undefined;
}

/** The longest integer (in digits) that `output=int` computes from a number's exponent. */
export const MAX_INT_DIGITS = 4300;

/**
 * The integer part (truncated toward zero) of a JSON number text, as a signed digit string
 * without leading zeros (`'0'` for zero and for |n| < 1; never `-0`). `undefined` when the
 * integer would have more than max(`MAX_INT_DIGITS`, `text.length`) digits (`1e5000`): an
 * exponent must not blow a short text up into a huge one.
 */
export function integerDigits(text: string): string | undefined {
  const d = toDecimal(text);
  if (d.sign === 0 || d.order <= 0) return '0';
  const len = d.order; // digits of the integer part
  if (len > Math.max(MAX_INT_DIGITS, text.length)) return undefined;
  const k = Number(len);
  const body = k <= d.digits.length ? d.digits.slice(0, k) : d.digits + '0'.repeat(k - d.digits.length);
  return d.sign < 0 ? '-' + body : body;
}

/** `true` when a JSON number text denotes zero (`0`, `-0`, `0.000`, `0e99`). */
export function isZeroText(text: string): boolean {
  return toDecimal(text).sign === 0;
}
