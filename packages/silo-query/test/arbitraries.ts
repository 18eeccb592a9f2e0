/**
 * Shared fast-check arbitraries and small test-only reference implementations (written the
 * plain, obvious way, independent of the code under test).
 */
import fc from 'fast-check';

/** Object keys: ordinary words, prototype names, numeric-looking keys, unicode, dots and empties. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'name', 'city', 'x y', 'Name', 'é', '😀', 'k-1', 'k_2') },
  { weight: 2, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'length', 'prototype') },
  { weight: 2, arbitrary: fc.constantFrom('0', '1', '01', '-1', '1.5', '10') },
  { weight: 1, arbitrary: fc.constantFrom('', 'a.b', '.', 'a..b') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
);

/** Keys that can be written in a dot path (no dot, not empty). */
export const pathKeyArb: fc.Arbitrary<string> = keyArb.filter((k) => k.length > 0 && !k.includes('.'));

/** Random JSON values, rebuilt through JSON.parse so that keys like `__proto__` are own data properties. */
export const jsonArb: fc.Arbitrary<unknown> = fc
  .letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(null, true, false, 0, -1, 1.5, 1e21, '', 'abc', '1', 'true', 'null'),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 5 }).map((entries) => {
        const o: Record<string, unknown> = {};
        for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        return o;
      }),
    ),
  }))
  .value.map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** Every node of a JSON value with the segments that lead to it (arrays by index, objects by own key). */
export function nodes(value: unknown, prefix: Array<string | number> = []): Array<{ segments: Array<string | number>; value: unknown }> {
  const out = [{ segments: prefix, value }];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...nodes(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) {
    for (const k of Object.keys(value)) out.push(...nodes((value as Record<string, unknown>)[k], [...prefix, k]));
  }
  return out;
}

/** A JSON number, by the RFC 8259 grammar (test-only regular expression). */
export const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Code point order, the obvious way. */
export function codePointCompare(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Reference field tests of the contract, written straight from its wording. */
export function referenceTest(op: 'eq' | 'ne' | 'gt' | 'lt', field: unknown, value: string): boolean {
  const valueNum = JSON_NUMBER.test(value) ? Number(value) : undefined;
  const eq = (): boolean => {
    if (typeof field === 'string') return field === value;
    if (typeof field === 'number') return valueNum !== undefined && field === valueNum;
    if (typeof field === 'boolean') return (value === 'true' && field) || (value === 'false' && !field);
    if (field === null) return value === 'null';
    return false; // missing, object, array
  };
  if (op === 'eq') return eq();
  if (op === 'ne') return !eq();
  const fieldNum = typeof field === 'number' ? field : typeof field === 'string' && JSON_NUMBER.test(field) ? Number(field) : undefined;
  if (fieldNum !== undefined && valueNum !== undefined) return op === 'gt' ? fieldNum > valueNum : fieldNum < valueNum;
  if (typeof field === 'string') {
    const c = codePointCompare(field, value);
    return op === 'gt' ? c > 0 : c < 0;
  }
  return false;
}

/** Reads a field the way the contract says (own keys, canonical indexes, never into strings). */
export function referenceGet(value: unknown, segments: readonly string[]): unknown {
  let cur = value;
  for (const s of segments) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(s) || Number(s) >= cur.length) return undefined;
      cur = cur[Number(s)];
    } else if (typeof cur === 'object' && cur !== null) {
      if (!Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
      cur = (cur as Record<string, unknown>)[s];
    } else return undefined;
  }
  return cur;
}

/**
 * Naive backtracking LIKE (exponential in the worst case; fine for short inputs): `eqChar`
 * decides whether a text code point matches a pattern literal.
 */
export function referenceLike(text: string, pattern: string, eqChar: (t: string, p: string) => boolean): boolean {
  const t = Array.from(text);
  const p: Array<{ kind: 'lit'; ch: string } | { kind: 'one' } | { kind: 'any' }> = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      i++;
      if (i >= chars.length) throw new Error('trailing escape');
      p.push({ kind: 'lit', ch: chars[i]! });
    } else if (c === '%') p.push({ kind: 'any' });
    else if (c === '_') p.push({ kind: 'one' });
    else p.push({ kind: 'lit', ch: c });
  }
  const go = (i: number, j: number): boolean => {
    if (j === p.length) return i === t.length;
    const tok = p[j]!;
    if (tok.kind === 'any') {
      for (let k = i; k <= t.length; k++) if (go(k, j + 1)) return true;
      return false;
    }
    if (i >= t.length) return false;
    if (tok.kind === 'one' || eqChar(t[i]!, tok.ch)) return go(i + 1, j + 1);
    return false;
  };
  return go(0, 0);
}

/** Case-insensitive equality of two code points per the engine's `/iu` (simple case folding). */
const iuCache = new Map<string, boolean>();
export function iuEqual(a: string, b: string): boolean {
  if (a === b) return true;
  const key = `${a}\u0000${b}`;
  let r = iuCache.get(key);
  if (r === undefined) {
    const cp = a.codePointAt(0)!.toString(16);
    r = new RegExp(`^[\\u{${cp}}]$`, 'iu').test(b);
    iuCache.set(key, r);
  }
  return r;
}

/** Swaps the case of ASCII letters only. */
export function swapAsciiCase(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c >= 0x41 && c <= 0x5a) out += String.fromCharCode(c + 32);
    else if (c >= 0x61 && c <= 0x7a) out += String.fromCharCode(c - 32);
    else out += ch;
  }
  return out;
}
