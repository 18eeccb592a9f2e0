import { describe, expect, it } from 'vitest';
import { query, toJSON } from '../src/index.js';

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
});
