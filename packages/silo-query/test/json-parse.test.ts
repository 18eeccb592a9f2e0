import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasInexactNumbers, JsonNumber, parseJson, toJSON } from '../src/index.js';
import { parseWithParser, parseWithPlaceholders } from '../src/json-parse.js';
import { anyJsonTextArb, exactJsonTextArb, numberTextArb, sameJson } from './arbitraries.js';

/** `v` with every JsonNumber replaced by its double: what JSON.parse gives for the same text. */
function toDoubles(v: unknown): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toDoubles);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      Object.defineProperty(out, k, { value: toDoubles((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

/** Every JsonNumber in `v`. */
function jsonNumbers(v: unknown, out: JsonNumber[] = []): JsonNumber[] {
  if (v instanceof JsonNumber) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => jsonNumbers(x, out));
  else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) jsonNumbers((v as Record<string, unknown>)[k], out);
  return out;
}

/** The number tokens of a JSON text (test-only regular expressions). */
function numberTokens(text: string): string[] {
  return [...text.matchAll(/"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*/g)].map((m) => m[0]).filter((t) => !t.startsWith('"'));
}

function outcome(f: () => unknown): { ok: true; value: unknown } | { ok: false; name: string } {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    return { ok: false, name: (e as Error).name };
  }
}

describe('parseJson', () => {
  it('keeps exactly the numbers a double would change', () => {
    expect(parseJson('[1, 1.5, -2, 1e+21, 1.0, 1e2, -0, 12345678901234567890, 1e400, 1e-400, 0.1000000000000000055511151231257827]')).toStrictEqual([
      1, 1.5, -2, 1e21,
      new JsonNumber('1.0'), new JsonNumber('1e2'), new JsonNumber('-0'), new JsonNumber('12345678901234567890'),
      new JsonNumber('1e400'), new JsonNumber('1e-400'), new JsonNumber('0.1000000000000000055511151231257827'),
    ]);
    expect(parseJson('1.0')).toStrictEqual(new JsonNumber('1.0'));
    expect(parseJson(' -0 ')).toStrictEqual(new JsonNumber('-0'));
    expect(parseJson('{"a":{"b":[{"c":1E2}]}}')).toStrictEqual({ a: { b: [{ c: new JsonNumber('1E2') }] } });
  });

  it('is JSON.parse itself when every number round-trips (numbers inside strings do not count)', () => {
    const text = '{"a": [1, 2.5, "1.0", "-0 12345678901234567890"], "b\\"1.0": {"c": null}}';
    expect(hasInexactNumbers(text)).toBe(false);
    expect(parseJson(text)).toStrictEqual(JSON.parse(text));
    expect(hasInexactNumbers('["\\\\", 1.0]')).toBe(true); // an escaped backslash ends the string
    expect(hasInexactNumbers('["\\"1.0"]')).toBe(false); // an escaped quote does not
  });

  it('makes __proto__ an own data property, never calling its setter, on every path', () => {
    for (const text of ['{"__proto__": {"polluted": 1.0}}', '{"__proto__": [1.0], "x": 1}', '{"a": "\\u0000", "__proto__": 1.0}', '{"__proto__": 1}']) {
      for (const parse of [parseJson, parseWithPlaceholders, parseWithParser]) {
        const v = parse(text) as Record<string, unknown>;
        expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
        expect(Object.hasOwn(v, '__proto__')).toBe(true);
        expect(Object.getOwnPropertyDescriptor(v, '__proto__')).toMatchObject({ enumerable: true, writable: true, configurable: true });
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      }
    }
  });

  it('keeps the last of repeated keys in the place of the first, as JSON.parse', () => {
    for (const text of ['{"a": 1.0, "b": 2, "a": 3}', '{"a": 1, "b": 2, "a": 1.0}', '{"__proto__": 1.0, "__proto__": 2}', '{"b": 1.0, "1": 2.0, "0": 3}']) {
      for (const parse of [parseJson, parseWithPlaceholders, parseWithParser]) {
        const v = parse(text) as Record<string, unknown>;
        expect(Object.keys(v)).toStrictEqual(Object.keys(JSON.parse(text) as object));
        expect(sameJson(toDoubles(v), JSON.parse(text))).toBe(true);
      }
    }
  });

  it('refuses invalid text with a SyntaxError, as JSON.parse, on every path', () => {
    const bad = [
      '', ' ', '[', ']', '{', '{"a"}', '{"a":}', '{"a":1.0,}', '[1.0,]', '[1.0', '01', '-', '-0.', '1.', '.5', '1.0e', '1e+', '+1', '[+1.0]',
      'tru', 'nul', '"abc', '"\\x"', '"\u0001"', '"\\u12"', '[1.0 2]', '{"a" 1.0}', '{1.0:2}', '{"a":1.0 "b":2}', 'NaN', 'Infinity',
      '1.0 2', '\ufeff1.0', '[1.0]x', '"\\', '[-]', '[1.0e]', '[01.0]', '[1.0.0]', '[1.0-1]', '[1e5e5]', '{"a":1.0}}', '["\\u0000", 1.0,]',
      '{"a":-}', '[--1]', '[1.0,,2]', '[1.0}', '{"a":[1.0}', '"\\u0000"1.0', '1.0"x"',
    ];
    for (const t of bad) {
      expect(() => JSON.parse(t), t).toThrow(SyntaxError);
      expect(() => parseJson(t), t).toThrow(SyntaxError);
      expect(() => parseWithParser(t), t).toThrow(SyntaxError);
    }
  });

  it('reads a text dense with inexact numbers (the parser) and a text with a few (placeholders) alike', () => {
    const dense = `{"a":[${Array(5000).fill('-0').join(',')}],"b":[1.0,2.50]}`;
    const sparse = `[${Array.from({ length: 5000 }, (_, i) => (i % 500 === 0 ? `{"n":${i}.0,"s":"x"}` : `{"n":${i},"s":"x"}`)).join(',')}]`;
    for (const text of [dense, sparse]) {
      expect(toJSON(parseJson(text))).toBe(text);
      expect(parseJson(text)).toStrictEqual(parseWithPlaceholders(text));
    }
  });

  it('handles any nesting depth without recursion', () => {
    const depth = 100_000;
    const v = parseJson(`${'['.repeat(depth)}1.0${']'.repeat(depth)}`);
    let cur: unknown = v;
    for (let i = 0; i < depth; i++) cur = (cur as unknown[])[0];
    expect(cur).toStrictEqual(new JsonNumber('1.0'));
    const o = parseWithParser(`${'{"a":'.repeat(depth)}1.0${'}'.repeat(depth)}`);
    expect(o).toBeTypeOf('object');
  });

  it('reads strings exactly as JSON.parse: escapes, lone surrogates, U+2028', () => {
    const text = '["a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud800\\udc00\\ud800", "\u2028\u00e9\ud83d\ude00", "\\u0000", 1.0]';
    const want = JSON.parse(text) as unknown[];
    for (const parse of [parseJson, parseWithPlaceholders, parseWithParser]) {
      const got = parse(text) as unknown[];
      expect(got.slice(0, 3)).toStrictEqual(want.slice(0, 3));
      expect(got[3]).toStrictEqual(new JsonNumber('1.0'));
    }
  });
});

describe('parseJson (property)', () => {
  it('toJSON(parseJson(text)) is the text without its whitespace: every number spelled as sent', () => {
    fc.assert(
      fc.property(exactJsonTextArb, ({ text, compact }) => {
        expect(toJSON(parseJson(text))).toBe(compact);
        expect(toJSON(parseWithPlaceholders(text))).toBe(compact);
        expect(toJSON(parseWithParser(text))).toBe(compact);
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with JSON.parse on structure, on any text (repeated keys, index keys, __proto__)', () => {
    fc.assert(
      fc.property(anyJsonTextArb, (text) => {
        const want = JSON.parse(text) as unknown;
        const got = parseJson(text);
        expect(sameJson(toDoubles(got), want)).toBe(true);
        expect(sameJson(parseWithParser(text), got)).toBe(true);
        expect(sameJson(parseWithPlaceholders(text), got)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('makes a JsonNumber exactly for the tokens JSON.parse + JSON.stringify would change', () => {
    fc.assert(
      fc.property(anyJsonTextArb, (text) => {
        const inexact = numberTokens(text).filter((t) => JSON.stringify(JSON.parse(t)) !== t);
        expect(hasInexactNumbers(text)).toBe(inexact.length > 0);
        const found = jsonNumbers(parseJson(text));
        for (const n of found) expect(JSON.stringify(JSON.parse(n.text))).not.toBe(n.text);
        // (repeated keys may drop some tokens, never add any)
        expect(found.length).toBeLessThanOrEqual(inexact.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('throws a SyntaxError exactly when JSON.parse does, on damaged texts', () => {
    const damage = fc.constantFrom('', ',', ']', '}', '[', '{', '"', ':', '-', '.', 'e', '+', '0', '1.0', '\\', ' ', 'x', '\u0000');
    fc.assert(
      fc.property(anyJsonTextArb, fc.nat(), fc.nat({ max: 3 }), damage, (text, at, cut, insert) => {
        const i = text.length === 0 ? 0 : at % (text.length + 1);
        const broken = text.slice(0, i) + insert + text.slice(Math.min(text.length, i + cut));
        const want = outcome(() => JSON.parse(broken));
        for (const parse of [parseJson, parseWithPlaceholders, parseWithParser]) {
          const got = outcome(() => parse(broken));
          expect(got.ok).toBe(want.ok);
          if (!got.ok) expect(got.name).toBe('SyntaxError');
          else if (want.ok) expect(sameJson(toDoubles(got.value), want.value)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('scans long texts with many tokens and strings in batches and repeated runs correctly', () => {
    fc.assert(
      fc.property(fc.array(numberTextArb, { minLength: 1, maxLength: 3000 }), fc.nat(), (tokens, seed) => {
        const items = tokens.map((t, i) => ((i + seed) % 3 === 0 ? `{"s":"${'\\"'.repeat(i % 70)}","n":${t}}` : t));
        const text = `[${items.join(',')}]`;
        const inexact = tokens.some((t) => JSON.stringify(JSON.parse(t)) !== t);
        expect(hasInexactNumbers(text)).toBe(inexact);
        expect(toJSON(parseJson(text))).toBe(text);
        expect(toJSON(parseWithPlaceholders(text))).toBe(text);
      }),
      { numRuns: 60 },
    );
  });
});
