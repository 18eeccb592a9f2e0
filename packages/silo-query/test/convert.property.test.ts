import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { query, toJSON } from '../src/index.js';
import { jsonArb } from './arbitraries.js';

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

  it('int of a finite number truncates toward zero', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const t = Math.trunc(x);
        expect(out(x, 'int')).toBe(t === 0 ? 0 : t);
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
        expect(float === null || Number.isFinite(float)).toBe(true);
        const bool = out(v, 'bool');
        expect(bool === null || typeof bool === 'boolean').toBe(true);
        if (typeof v === 'object' && v !== null) {
          expect([int, float, bool]).toStrictEqual([null, null, null]);
        }
      }),
      runs,
    );
  });
});
