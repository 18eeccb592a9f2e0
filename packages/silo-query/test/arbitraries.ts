/**
 * Shared fast-check arbitraries and small test-only reference implementations (written the
 * plain, obvious way, independent of the code under test).
 */
import fc from 'fast-check';
import { JsonNumber, parseJson } from '../src/index.js';

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

/** Every node of a JSON value with the segments that lead to it (arrays by index, objects by own key; a JsonNumber is a leaf). */
export function nodes(value: unknown, prefix: Array<string | number> = []): Array<{ segments: Array<string | number>; value: unknown }> {
  const out = [{ segments: prefix, value }];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...nodes(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null && !(value instanceof JsonNumber)) {
    for (const k of Object.keys(value)) out.push(...nodes((value as Record<string, unknown>)[k], [...prefix, k]));
  }
  return out;
}

/** A JSON number, by the RFC 8259 grammar (test-only regular expression). */
export const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * Exact comparison of two JSON number texts, the obvious way: both as integer × 10^exponent
 * with BigInt, scaled to the smaller exponent. (Exponents must stay small: 10n ** e is built.)
 */
export function referenceCompare(a: string, b: string): number {
  const read = (t: string): { m: bigint; e: number } => {
    const x = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(t);
    if (x === null) throw new Error(`not a JSON number: ${t}`);
    const frac = x[3] ?? '';
    const m = BigInt(x[2]! + frac);
    return { m: x[1] === '-' ? -m : m, e: Number(x[4] ?? '0') - frac.length };
  };
  const x = read(a);
  const y = read(b);
  const e = Math.min(x.e, y.e);
  const X = x.m * 10n ** BigInt(x.e - e);
  const Y = y.m * 10n ** BigInt(y.e - e);
  return X < Y ? -1 : X > Y ? 1 : 0;
}

/** The JSON text of a number-like field (a finite plain number or a JsonNumber), else undefined. */
export function numberTextOf(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : undefined;
  return v instanceof JsonNumber ? v.text : undefined;
}

const digit = fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9');
const digits = (minLength: number, maxLength: number): fc.Arbitrary<string> => fc.string({ unit: digit, minLength, maxLength });

/**
 * Number texts that doubles cannot tell apart (each group reads as one double) but that differ,
 * or are equal, exactly: comparisons between them separate exact from double semantics.
 */
export const nearNumberTextArb: fc.Arbitrary<string> = fc.constantFrom(
  '12345678901234567890', '12345678901234567891', '12345678901234567890.0', '1.2345678901234567890e19', '12345678901234567889.999',
  '9007199254740992', '9007199254740993', '9007199254740992.5', '9007199254740992.0', '-9007199254740993', '-9007199254740992',
  '0.1', '0.10', '1e-1', '0.1000000000000000055511151231257827', '0.1000000000000000055511151231257826',
  '1e400', '1E+400', '10e399', '2e400', '-1e400', '-2e400', '1e-400', '2e-400', '-1e-400', '0', '-0', '0.0', '0e7',
);

/**
 * JSON number texts in any spelling: the usual ones (what JSON.stringify writes), the ones a
 * double cannot keep (`1.0`, `1E+2`, `-0`, 20-digit integers, `1e400`, long decimals), and
 * random grammar-built ones (exponents of at most 4 digits, so that `referenceCompare` stays fast).
 */
export const numberTextArb: fc.Arbitrary<string> = fc.oneof(
  nearNumberTextArb,
  fc.constantFrom(
    '0', '-0', '0.0', '-0.0', '0e0', '0E-5', '1', '1.0', '1.00', '1e0', '1e2', '1E+2', '100', '10e1', '-1', '-1.0',
    '0.1', '0.10', '0.1000000000000000055511151231257827', '0.30000000000000004', '9007199254740992', '9007199254740993',
    '12345678901234567890', '12345678901234567891', '1e21', '1e+21', '1e20', '1.5e-7', '1.5e-07', '0.0000015',
    '1e400', '1E+400', '10e399', '-1e400', '1e-400', '-1e-400', '1.7976931348623157e308', '5e-324', '2e-324',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.integer().map(String),
  fc
    .record({
      minus: fc.boolean(),
      int: fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom('1', '2', '5', '9'), digits(0, 22)).map(([a, b]) => a + b)),
      frac: fc.option(digits(1, 22), { nil: undefined }),
      exp: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 4)), { nil: undefined }),
    })
    .map(({ minus, int, frac, exp }) => `${minus ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`),
);

/** A JSON tree for texts: leaves keep their exact spelling. */
type Tree =
  | { t: 'num'; text: string }
  | { t: 'str'; s: string }
  | { t: 'lit'; text: 'true' | 'false' | 'null' }
  | { t: 'arr'; items: Tree[] }
  | { t: 'obj'; entries: Array<[string, Tree]> };

const jsonWs = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r'), maxLength: 2 });

function treeArb(keys: fc.Arbitrary<string>, uniqueKeys: boolean): fc.Arbitrary<Tree> {
  return fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      numberTextArb.map((text): Tree => ({ t: 'num', text })),
      fc.oneof(fc.string({ unit: 'binary', maxLength: 5 }), fc.constantFrom('1.0', '-0', '"', '\\', '\u0000x', '\u2028')).map((s): Tree => ({ t: 'str', s })),
      fc.constantFrom('true', 'false', 'null').map((text): Tree => ({ t: 'lit', text })),
      fc.array(tie('tree'), { maxLength: 4 }).map((items): Tree => ({ t: 'arr', items })),
      (uniqueKeys
        ? fc.uniqueArray(fc.tuple(keys, tie('tree')), { maxLength: 4, selector: ([k]) => k })
        : fc.array(fc.tuple(keys, tie('tree')), { maxLength: 4 })
      ).map((entries): Tree => ({ t: 'obj', entries })),
    ),
  })).tree;
}

/** Writes a tree; `ws` (when given) supplies the whitespace put around every token. */
function writeTree(tree: Tree, ws: (() => string) | undefined): string {
  const w = ws ?? (() => '');
  switch (tree.t) {
    case 'num':
      return tree.text;
    case 'lit':
      return tree.text;
    case 'str':
      return JSON.stringify(tree.s);
    case 'arr':
      return `[${w()}${tree.items.map((x) => writeTree(x, ws)).join(`${w()},${w()}`)}${w()}]`;
    case 'obj':
      return `{${w()}${tree.entries.map(([k, v]) => `${JSON.stringify(k)}${w()}:${w()}${writeTree(v, ws)}`).join(`${w()},${w()}`)}${w()}}`;
  }
}

/** Keys whose order a JavaScript object keeps as written (none is an array index). */
const orderedKeyArb = fc.oneof(
  fc.constantFrom('a', 'b', 'text', 'n', '__proto__', 'constructor', 'toString', 'valueOf', '01', '-1', '1.5', ''),
  fc.string({ unit: 'binary', maxLength: 3 }).filter((k) => !/^(0|[1-9][0-9]*)$/.test(k)),
);

/**
 * JSON texts with numbers in every spelling and JSON whitespace between the tokens: `text`,
 * and `compact`, the same without whitespace, with keys unique and never array indexes, so that
 * `compact` is exactly what `toJSON(parseJson(text))` must write.
 */
export const exactJsonTextArb: fc.Arbitrary<{ text: string; compact: string }> = fc
  .tuple(treeArb(orderedKeyArb, true), fc.array(jsonWs, { minLength: 1, maxLength: 16 }))
  .map(([tree, spaces]) => {
    let k = 0;
    const ws = (): string => spaces[k++ % spaces.length]!;
    return { text: `${ws()}${writeTree(tree, ws)}${ws()}`, compact: writeTree(tree, undefined) };
  });

/** Any JSON text (repeated keys, index keys, escapes, every number spelling, whitespace). */
export const anyJsonTextArb: fc.Arbitrary<string> = fc
  .tuple(treeArb(fc.oneof(orderedKeyArb, fc.constantFrom('0', '1', '10', '4294967295', 'a', 'a')), false), fc.array(jsonWs, { minLength: 1, maxLength: 16 }))
  .map(([tree, spaces]) => {
    let k = 0;
    return writeTree(tree, () => spaces[k++ % spaces.length]!);
  });

/**
 * Strict deep sameness of two parsed JSON values: the same kinds, `JsonNumber`s with the same
 * text, numbers by `Object.is`, arrays element by element, objects with the same prototype and
 * the same own keys in the same order. (vitest's toStrictEqual also compares `a.constructor`
 * by identity, which an own key `constructor` holding an object defeats.)
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a instanceof JsonNumber || b instanceof JsonNumber) return a instanceof JsonNumber && b instanceof JsonNumber && a.text === b.text;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Object.is(a, b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Random JSON values as `parseJson` reads them: numbers exact (`JsonNumber` where a double would change them). */
export const exactJsonArb: fc.Arbitrary<unknown> = exactJsonTextArb.map(({ text }) => parseJson(text));

/** Code point order, the obvious way. */
export function codePointCompare(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/**
 * Reference field tests of the contract, written straight from its wording, numbers compared
 * exactly (as the decimal values of their JSON texts).
 */
export function referenceTest(op: 'eq' | 'ne' | 'gt' | 'lt', field: unknown, value: string): boolean {
  const valueNum = JSON_NUMBER.test(value) ? value : undefined;
  const fieldNum = numberTextOf(field);
  const eq = (): boolean => {
    if (typeof field === 'string') return field === value;
    if (fieldNum !== undefined) return valueNum !== undefined && referenceCompare(fieldNum, valueNum) === 0;
    if (typeof field === 'boolean') return (value === 'true' && field) || (value === 'false' && !field);
    if (field === null) return value === 'null';
    return false; // missing, object, array
  };
  if (op === 'eq') return eq();
  if (op === 'ne') return !eq();
  const fieldOrdered = fieldNum ?? (typeof field === 'string' && JSON_NUMBER.test(field) ? field : undefined);
  if (fieldOrdered !== undefined && valueNum !== undefined) {
    const c = referenceCompare(fieldOrdered, valueNum);
    return op === 'gt' ? c > 0 : c < 0;
  }
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
    } else if (typeof cur === 'object' && cur !== null && !(cur instanceof JsonNumber)) {
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
