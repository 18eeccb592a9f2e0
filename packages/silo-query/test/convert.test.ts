import { describe, expect, it } from 'vitest';
import { integerFromDigits, toBool, toFloat, toInt, toText } from '../src/convert.js';

describe('conversions', () => {
  it('int never returns -0', () => {
    for (const v of [-0, -0.5, '-0', ' -000 ']) expect(Object.is(toInt(v), 0)).toBe(true);
  });

  it('int switches to bigint exactly past the safe range', () => {
    expect(integerFromDigits('9007199254740991')).toBe(9007199254740991);
    expect(integerFromDigits('-9007199254740991')).toBe(-9007199254740991);
    expect(integerFromDigits('9007199254740992')).toBe(9007199254740992n);
    expect(integerFromDigits('-9007199254740992')).toBe(-9007199254740992n);
    expect(integerFromDigits('+000000000000000000000001')).toBe(1);
  });

  it('non-finite numbers (not JSON, but possible in JavaScript data) are null', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect([toText(v), toInt(v), toFloat(v), toBool(v)]).toStrictEqual([null, null, null, null]);
    }
  });

  it('float keeps -0 from a number and from a string', () => {
    expect(Object.is(toFloat(-0), -0)).toBe(true);
    expect(Object.is(toFloat('-0'), -0)).toBe(true);
  });

  it('values JSON has no row for are null', () => {
    for (const v of [undefined, () => 1, Symbol('s'), 1n]) {
      expect([toText(v), toInt(v), toFloat(v), toBool(v)]).toStrictEqual([null, null, null, null]);
    }
  });
});
