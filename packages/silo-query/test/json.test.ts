import { describe, expect, it } from 'vitest';
import { JsonNumber, parseJson, query, toJSON } from '../src/index.js';

describe('toJSON', () => {
  it('writes a bigint as its exact digits', () => {
    expect(toJSON(12345678901234567890123n)).toBe('12345678901234567890123');
    expect(toJSON(-9007199254740993n)).toBe('-9007199254740993');
    expect(toJSON(query({ v: '9007199254740993' }, 'path=v&output=int'))).toBe('9007199254740993');
  });

  it('writes nested bigints exactly and everything else like JSON.stringify', () => {
    const v = { a: [1n, 2, 'x'], b: { c: 99999999999999999999n, d: null, u: undefined }, s: '\u0000"', n: 1.5 };
    expect(toJSON(v)).toBe('{"a":[1,2,"x"],"b":{"c":99999999999999999999,"d":null},"s":"\\u0000\\"","n":1.5}');
    expect(toJSON([undefined, () => 1])).toBe('[null,null]');
  });

  it('is JSON.stringify for JSON values', () => {
    for (const v of [null, true, 0, -0, 1e21, 'é', [], {}, { a: [{ b: null }] }]) expect(toJSON(v)).toBe(JSON.stringify(v));
  });

  it('writes undefined as null and refuses cycles with a TypeError', () => {
    expect(toJSON(undefined)).toBe('null');
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic['self'] = cyclic;
    expect(() => toJSON(cyclic)).toThrow(TypeError);
  });

  it('writes a JsonNumber as its exact text, at the top and nested, next to bigints', () => {
    expect(toJSON(new JsonNumber('1.0'))).toBe('1.0');
    expect(toJSON(new JsonNumber('-0'))).toBe('-0');
    expect(toJSON([new JsonNumber('1e400'), 2n, { a: new JsonNumber('12345678901234567890'), b: 'x', c: [null, true] }])).toBe(
      '[1e400,2,{"a":12345678901234567890,"b":"x","c":[null,true]}]',
    );
    expect(toJSON({ u: undefined, f: () => 1, n: new JsonNumber('0.10') })).toBe('{"n":0.10}');
  });

  it('writes large values with a few JsonNumbers exactly, whichever members JSON.stringify can take', () => {
    const rows = Array.from({ length: 300 }, (_, i) => `{"i":${i},"p":${i % 7 === 0 ? `${i}.50` : i},"t":[${i % 11 === 0 ? '1e400' : '"x"'}],"o":{"d":{"e":${i % 13 === 0 ? '-0' : 0}}}}`);
    const text = `[${rows.join(',')}]`;
    expect(toJSON(parseJson(text))).toBe(text);
    expect(toJSON({ a: parseJson(text), b: [parseJson(text)] })).toBe(`{"a":${text},"b":[${text}]}`);
  });

  it('still refuses cycles that hold a JsonNumber', () => {
    const cyclic: Record<string, unknown> = { n: new JsonNumber('1.0'), inner: { m: [1] } };
    (cyclic['inner'] as Record<string, unknown>)['back'] = cyclic;
    expect(() => toJSON(cyclic)).toThrow(TypeError);
    const deep: Record<string, unknown> = { n: new JsonNumber('1.0'), a: { b: { c: { d: { e: { f: {} } } } } } };
    ((((((deep['a'] as any).b as any).c as any).d as any).e as any).f as Record<string, unknown>)['loop'] = deep['a'];
    expect(() => toJSON(deep)).toThrow(TypeError);
  });
});

