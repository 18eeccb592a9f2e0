/**
 * `jsonEqual`: deep equality of JSON values with exact numbers.
 */
import { compareJsonNumbers, JsonNumber, numberText } from './json-number.js';

/**
 * `true` when `a` and `b` are the same JSON value:
 * - numbers (plain finite numbers, `JsonNumber`s, bigints) when their decimal values are
 *   mathematically equal: `1.0` = `1`, `1e2` = `100`, `-0` = `0`, `1e400` = `1E+400`, but
 *   `12345678901234567890` ≠ `12345678901234567891` (compared exactly on their texts);
 * - strings, booleans, `null` when identical;
 * - arrays when they have the same length and equal elements in order;
 * - objects (anything else of type `object`) when they have the same own enumerable string
 *   keys (in any order: JSON objects are unordered) with equal values.
 * Anything that is not JSON (`undefined`, `NaN`, `Infinity`, functions, symbols) equals only
 * itself (`Object.is`), and never a JSON value.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = numberText(a);
  if (ta !== undefined) {
    const tb = numberText(b);
    if (tb === undefined) return false;
    // Two plain numbers are equal exactly when they are the same double (`a === b` above).
    if (typeof a === 'number' && typeof b === 'number') return false;
    return compareJsonNumbers(ta, tb) === 0;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return Object.is(a, b);
  }
  if (b instanceof JsonNumber) return false;
  const arrA = Array.isArray(a);
  if (arrA !== Array.isArray(b)) return false;
  if (arrA) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
