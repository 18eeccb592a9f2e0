import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareJsonNumbers, JsonNumber, jsonEqual, parseJson } from '../src/index.js';
import { anyJsonTextArb, exactJsonArb, exactJsonTextArb, numberTextArb } from './arbitraries.js';

const n = (t: string): JsonNumber => new JsonNumber(t);

describe('jsonEqual', () => {
  it('compares numbers by exact value, whatever their form', () => {
    const equal: Array<[unknown, unknown]> = [
      [n('1.0'), 1], [n('1e2'), 100], [n('-0'), 0], [-0, 0], [n('-0'), n('0.0')], [n('1e400'), n('1E+400')],
      [n('12345678901234567890'), 12345678901234567890n], [9007199254740993n, n('9007199254740993')], [1, 1n], [n('1'), 1],
    ];
    for (const [a, b] of equal) {
      expect(jsonEqual(a, b), `${String(a)} = ${String(b)}`).toBe(true);
      expect(jsonEqual(b, a), `${String(b)} = ${String(a)}`).toBe(true);
    }
    const different: Array<[unknown, unknown]> = [
      [n('12345678901234567890'), n('12345678901234567891')], [n('9007199254740993'), 9007199254740992], [n('0.1000000000000000055511151231257827'), 0.1],
      [n('1e400'), Number.POSITIVE_INFINITY], [n('1e-400'), 0], [1, '1'], [n('1.0'), '1.0'], [0, false], [0, null], [n('1.0'), { text: '1.0' }], [n('1.0'), [1]],
    ];
    for (const [a, b] of different) {
      expect(jsonEqual(a, b), `${String(a)} ≠ ${String(b)}`).toBe(false);
      expect(jsonEqual(b, a), `${String(b)} ≠ ${String(a)}`).toBe(false);
    }
  });

  it('compares containers deeply: arrays in order, objects in any key order', () => {
    expect(jsonEqual(parseJson('{"a": [1.0, {"b": 1e2}], "c": null}'), parseJson('{"c": null, "a": [1, {"b": 100}]}'))).toBe(true);
    expect(jsonEqual(parseJson('[1.0, 2]'), parseJson('[2, 1.0]'))).toBe(false);
    expect(jsonEqual(parseJson('{"a": 1}'), parseJson('{"a": 1, "b": 2}'))).toBe(false);
    expect(jsonEqual(parseJson('{"a": 1, "c": 2}'), parseJson('{"a": 1, "b": 2}'))).toBe(false);
    expect(jsonEqual(parseJson('{"__proto__": 1.0}'), parseJson('{"__proto__": 1}'))).toBe(true);
    expect(jsonEqual(parseJson('{"__proto__": 1.0}'), {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ a: undefined }, {})).toBe(false);
  });

  it('values that are not JSON equal only themselves', () => {
    expect(jsonEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(jsonEqual(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY)).toBe(true);
    expect(jsonEqual(Number.NaN, null)).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
    expect(jsonEqual(undefined, undefined)).toBe(true);
  });
});

describe('jsonEqual (property)', () => {
  it('of two numbers is compareJsonNumbers === 0, for plain numbers and JsonNumbers alike', () => {
    fc.assert(
      fc.property(numberTextArb, numberTextArb, (a, b) => {
        const c = compareJsonNumbers(a, b);
        expect(jsonEqual(JsonNumber.from(a), JsonNumber.from(b))).toBe(c === 0);
        expect(jsonEqual(new JsonNumber(a), new JsonNumber(b))).toBe(c === 0);
        expect(jsonEqual([{ x: new JsonNumber(a) }], [{ x: JsonNumber.from(b) }])).toBe(c === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('is reflexive, symmetric, and blind to whitespace and number spelling', () => {
    fc.assert(
      fc.property(exactJsonTextArb, anyJsonTextArb, ({ text, compact }, other) => {
        const a = parseJson(text);
        expect(jsonEqual(a, a)).toBe(true);
        expect(jsonEqual(a, parseJson(compact))).toBe(true);
        const b = parseJson(other);
        expect(jsonEqual(a, b)).toBe(jsonEqual(b, a));
      }),
      { numRuns: 500 },
    );
  });

  it('on plain JSON data, agrees with deep equality', () => {
    fc.assert(
      fc.property(exactJsonArb, exactJsonArb, (a, b) => {
        // Respelling every number as the JSON text of its exact value keeps jsonEqual true.
        const respell = (v: unknown): unknown => {
          if (v instanceof JsonNumber) return parseJson(`${v.text}`);
          if (Array.isArray(v)) return v.map(respell);
          if (typeof v === 'object' && v !== null) {
            const o: Record<string, unknown> = {};
            for (const k of Object.keys(v).reverse()) Object.defineProperty(o, k, { value: respell((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
            return o;
          }
          return v;
        };
        expect(jsonEqual(a, respell(a))).toBe(true);
        if (jsonEqual(a, b)) expect(jsonEqual(b, a)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
