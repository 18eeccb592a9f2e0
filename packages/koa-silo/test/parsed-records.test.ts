import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../src/limits/bounded-map.js';
import { ParsedRecords } from '../src/storage/parsed-records.js';

describe('ParsedRecords', () => {
  it('parses a text once, shares the value frozen, and parses a changed text anew', () => {
    const records = new ParsedRecords<{ version: number; tail?: string[] }>();
    const text = '{"version":1,"tail":["a"]}';
    const first = records.parse(text);
    expect(first).toEqual({ version: 1, tail: ['a'] });
    expect(records.parse(`{"version":1,"tail":["a"]}`)).toBe(first); // equal text made elsewhere
    expect(() => ((first as { version: number }).version = 2)).toThrow(TypeError);
    expect(() => (first.tail as string[]).push('b')).toThrow(TypeError);
    expect(records.parse('{"version":2}')).toEqual({ version: 2 });
  });

  it('keeps at most its limit of texts, dropping the oldest', () => {
    const records = new ParsedRecords<{ n: number }>(2);
    const one = records.parse('{"n":1}');
    records.parse('{"n":2}');
    records.parse('{"n":3}');
    expect(records.parse('{"n":1}')).not.toBe(one);
    expect(records.parse('{"n":1}')).toEqual(one);
  });
});

describe('BoundedMap', () => {
  it('holds at most its limit, dropping the oldest eighth when one more comes', () => {
    const map = new BoundedMap<number, string>(16);
    for (let i = 0; i < 16; i++) map.set(i, `v${i}`);
    map.set(3, 'again'); // an existing key replaces its value and drops nothing
    expect(map.size).toBe(16);
    map.set(16, 'v16');
    expect(map.size).toBe(15);
    expect([...map.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    expect(map.get(3)).toBe('again');
    const tiny = new BoundedMap<string, number>(2);
    tiny.set('a', 1).set('b', 2).set('c', 3);
    expect([...tiny]).toEqual([['b', 2], ['c', 3]]);
  });
});
