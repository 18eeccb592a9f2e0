import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber, jsonEqual, parseJson, query, toJSON } from '../src/index.js';
import { exactJsonArb, jsonArb, numberTextArb } from './arbitraries.js';

/** The integer part of a JSON number text, truncated toward zero, by BigInt arithmetic. */
function truncated(t: string): bigint {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(t)!;
  const frac = m[3] ?? '';
  const e = Number(m[4] ?? '0') - frac.length;
  const mant = BigInt(m[2]! + frac);
  const abs = e >= 0 ? mant * 10n ** BigInt(e) : mant / 10n ** BigInt(-e);
  return m[1] === '-' ? -abs : abs;
}

const runs = { numRuns: 500 };
const out = (v: unknown, output: string): unknown => query({ v }, { path: 'v', output });
const ws = fc.constantFrom('', ' ', '\t', '\n', '\r', '\f', '  \t');
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

describe('output conversions (property)', () => {
  it('int of a safe integer string (any ASCII whitespace, sign, leading zeros) is that number', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), ws, ws, fc.boolean(), fc.nat({ max: 3 }), (n, before, after, plus, zeros) => {
        const digits = String(Math.abs(n)).padStart(String(Math.abs(n)).length + zeros, '0');
        const sign = n < 0 ? '-' : plus ? '+' : '';
        const r = out(`${before}${sign}${digits}${after}`, 'int');
        expect(r).toBe(n === 0 ? 0 : n);
        expect(typeof r).toBe('number');
      }),
      runs,
    );
  });

  it('int of any integer digit string is exact: a bigint beyond the safe range, never rounded', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), (b) => {
        const r = out(b.toString(), 'int');
        if (b <= MAX && b >= -MAX) expect(r).toBe(Number(b));
        else expect(r).toBe(b);
        expect(toJSON(r)).toBe(b.toString());
      }),
      runs,
    );
  });

  it('int of a finite number truncates toward zero; past the safe range, the exact bigint of its JSON text', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const t = Math.trunc(x);
        if (Number.isSafeInteger(t)) expect(out(x, 'int')).toBe(t === 0 ? 0 : t);
        else expect(out(x, 'int')).toBe(truncated(JSON.stringify(x)));
      }),
      runs,
    );
  });

  it('float reads back the JSON text of any finite number, with or without + and whitespace', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), ws, fc.boolean(), (x, pad, plus) => {
        const text = JSON.stringify(x);
        expect(out(`${pad}${plus && x >= 0 ? '+' : ''}${text}${pad}`, 'float')).toBe(x === 0 ? 0 : x);
        expect(out(x, 'float')).toBe(x);
      }),
      runs,
    );
  });

  it('text of a non-string JSON value is its JSON text; of a string, itself; of null, null', () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        const r = out(v, 'text');
        if (v === null) expect(r).toBeNull();
        else if (typeof v === 'string') expect(r).toBe(v);
        else expect(r).toBe(JSON.stringify(v));
      }),
      runs,
    );
  });

  it('bool of a number is whether it is non-zero; of a boolean, itself', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), (x, b) => {
        expect(out(x, 'bool')).toBe(x !== 0);
        expect(out(b, 'bool')).toBe(b);
      }),
      runs,
    );
  });

  it('every conversion of every JSON value gives the type its table row says, or null', () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        expect(out(v, 'json')).toBe(v);
        const text = out(v, 'text');
        expect(text === null || typeof text === 'string').toBe(true);
        const int = out(v, 'int');
        expect(int === null || typeof int === 'bigint' || Number.isInteger(int)).toBe(true);
        const float = out(v, 'float');
        // A number, or a JsonNumber (a number kept as written, which may be past the double range).
        expect(float === null || Number.isFinite(float) || float instanceof JsonNumber).toBe(true);
        const bool = out(v, 'bool');
        expect(bool === null || typeof bool === 'boolean').toBe(true);
        if (typeof v === 'object' && v !== null) {
          expect([int, float, bool]).toStrictEqual([null, null, null]);
        }
      }),
      runs,
    );
  });

  it('numbers stored exactly convert exactly from their text, plain or JsonNumber', () => {
    fc.assert(
      fc.property(numberTextArb, (t) => {
        const v = parseJson(t);
        expect(out(v, 'json')).toBe(v);
        expect(out(v, 'text')).toBe(t);
        // int: the exact integer, truncated toward zero (null past 4300 digits from a shorter text).
        const int = out(v, 'int');
        const want = truncated(t);
        if (want.toString().replace('-', '').length > Math.max(4300, t.length)) expect(int).toBeNull();
        else {
          expect(toJSON(int)).toBe(want.toString());
          expect(jsonEqual(int, want)).toBe(true);
          const safe = want <= BigInt(Number.MAX_SAFE_INTEGER) && want >= -BigInt(Number.MAX_SAFE_INTEGER);
          if (v instanceof JsonNumber) expect(typeof int).toBe(safe ? 'number' : 'bigint');
          if (typeof int === 'number') expect(Object.is(int, -0)).toBe(false);
        }
        // float: the number itself, its text unchanged (contract §5: number → itself).
        const float = out(v, 'float');
        expect(float).toBe(v);
        expect(toJSON(float)).toBe(t);
        // bool: whether its exact value is not zero.
        expect(out(v, 'bool')).toBe(!/^-?0(?:\.0+)?(?:[eE][+-]?[0-9]+)?$/.test(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('every conversion of exact JSON data gives the type its row says, or null, and text writes numbers as stored', () => {
    fc.assert(
      fc.property(exactJsonArb, (v) => {
        expect(out(v, 'json')).toBe(v);
        const text = out(v, 'text');
        if (v === null) expect(text).toBeNull();
        else if (typeof v === 'string') expect(text).toBe(v);
        else expect(text).toBe(toJSON(v));
        const int = out(v, 'int');
        expect(int === null || typeof int === 'bigint' || Number.isInteger(int)).toBe(true);
        const float = out(v, 'float');
        expect(float === null || Number.isFinite(float) || float instanceof JsonNumber).toBe(true);
        const bool = out(v, 'bool');
        expect(bool === null || typeof bool === 'boolean').toBe(true);
        if (typeof v === 'object' && v !== null && !(v instanceof JsonNumber)) {
          expect([int, float, bool]).toStrictEqual([null, null, null]);
        }
      }),
      runs,
    );
  });
});

