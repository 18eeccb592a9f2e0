import { describe, expect, it } from 'vitest';
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
