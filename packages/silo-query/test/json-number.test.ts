import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareJsonNumbers, isNumber, JsonNumber, jsonEqual, parseJson, toJSON } from '../src/index.js';
import { EXACT, INEXACT, integerDigits, isZeroText, roundTrips, tokenShape, toDecimal } from '../src/json-number.js';
import { numberTextArb, referenceCompare } from './arbitraries.js';

describe('JsonNumber', () => {
  it('keeps its text and reads as its nearest double', () => {
    const n = new JsonNumber('12345678901234567890');
    expect(n.text).toBe('12345678901234567890');
    expect(n.valueOf()).toBe(12345678901234567000);
    expect(+n).toBe(12345678901234567000);
    expect(String(n)).toBe('12345678901234567890');
    expect(`${n}`).toBe('12345678901234567890');
    expect(new JsonNumber('1e400').valueOf()).toBe(Number.POSITIVE_INFINITY);
    expect(Object.is(new JsonNumber('-0').valueOf(), -0)).toBe(true);
    expect(new JsonNumber('1.0') < new JsonNumber('2.5')).toBe(true);
  });

  it('isNumber tells every number parseJson gives (a JsonNumber included) from the rest', () => {
    const { a, b, c, d } = parseJson('{"a":5.0,"b":12.5,"c":"5","d":12345678901234567890}') as Record<string, unknown>;
    expect([a, b, c, d].map(isNumber)).toEqual([true, true, false, true]);
    expect([typeof a, Number(a) + 1]).toEqual(['object', 6]);
    expect([null, undefined, {}, [], true, 1n].some(isNumber)).toBe(false);
  });

  it('is frozen: its text cannot change', () => {
    const n = new JsonNumber('1.0');
    expect(Object.isFrozen(n)).toBe(true);
    expect(() => {
      (n as { text: string }).text = '2';
    }).toThrow(TypeError);
    expect(Object.keys(n)).toStrictEqual(['text']);
  });

  it('refuses anything but a JSON number with a SyntaxError', () => {
    for (const t of ['', ' 1', '1 ', '+1', '01', '1.', '.5', '1e', '1e+', 'NaN', 'Infinity', '-', '0x10', '1_000', '١']) {
      expect(() => new JsonNumber(t), t).toThrow(SyntaxError);
    }
    expect(() => new JsonNumber(1 as unknown as string)).toThrow(SyntaxError);
  });

  it('from() gives a plain number exactly when the text round-trips', () => {
    expect(JsonNumber.from('1.5')).toBe(1.5);
    expect(JsonNumber.from('1e+21')).toBe(1e21);
    expect(JsonNumber.from('1.0')).toStrictEqual(new JsonNumber('1.0'));
    expect(JsonNumber.from('-0')).toStrictEqual(new JsonNumber('-0'));
    expect(() => JsonNumber.from('Infinity')).toThrow(SyntaxError);
    expect(() => JsonNumber.from(' 1')).toThrow(SyntaxError);
  });

  it('JSON.stringify never writes it rounded: a TypeError; toJSON writes it exactly', () => {
    const v = { a: new JsonNumber('12345678901234567890') };
    expect(() => JSON.stringify(v)).toThrow(TypeError);
    expect(() => JSON.stringify(new JsonNumber('1.0'))).toThrow(/use toJSON/);
    expect(toJSON(v)).toBe('{"a":12345678901234567890}');
  });
});

describe('tokenShape and roundTrips', () => {
  it('settle the usual spellings without converting', () => {
    for (const t of ['0', '7', '-7', '123456789012345', '1.5', '-0.25', '0.000001', '123456.789012345']) expect(tokenShape(t, 0, t.length), t).toBe(EXACT);
    for (const t of ['-0', '1.0', '1.50', '0.0', '1e5', '1E+5', '1.0e+30', '1234567890123456789012']) expect(tokenShape(t, 0, t.length), t).toBe(INEXACT);
  });

  it('agree with JSON.stringify(JSON.parse(token)) === token for any spelling', () => {
    fc.assert(
      fc.property(numberTextArb, fc.string({ maxLength: 3 }), (t, pad) => {
        const truth = JSON.stringify(JSON.parse(t)) === t;
        expect(roundTrips(t, 0, t.length)).toBe(truth);
        // Also inside a longer text.
        const s = `${pad}${t}${pad}`;
        expect(roundTrips(s, pad.length, pad.length + t.length)).toBe(truth);
        const shape = tokenShape(t, 0, t.length);
        if (shape !== 2) expect(shape === EXACT).toBe(truth);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('compareJsonNumbers', () => {
  it('compares exact decimal values', () => {
    const eq = [['1.0', '1'], ['1e2', '100'], ['-0', '0'], ['0.0', '-0e10'], ['1e400', '1E+400'], ['10e399', '1e400'], ['0.10', '0.1'], ['123.4500e-2', '1.2345'], ['1e0000000000000000000001', '10']];
    for (const [a, b] of eq) {
      expect(compareJsonNumbers(a!, b!), `${a} = ${b}`).toBe(0);
      expect(compareJsonNumbers(b!, a!), `${b} = ${a}`).toBe(0);
    }
    const lt = [
      ['12345678901234567890', '12345678901234567891'],
      ['9007199254740992', '9007199254740993'],
      ['0.1', '0.1000000000000000055511151231257827'],
      ['-1e400', '-1e399'],
      ['0', '1e-400'],
      ['-1e-400', '-0'],
      ['1e399', '1e400'],
      ['-12', '-11.99999999999999999999'],
      ['1e99999999999999999999', '1e100000000000000000000'],
      ['1e-100000000000000000000', '1e-99999999999999999999'],
      ['-1e100000000000000000000', '1'],
      ['99', '1e2'],
    ];
    for (const [a, b] of lt) {
      expect(compareJsonNumbers(a!, b!), `${a} < ${b}`).toBeLessThan(0);
      expect(compareJsonNumbers(b!, a!), `${b} > ${a}`).toBeGreaterThan(0);
    }
  });

  it('refuses texts that are not JSON numbers', () => {
    expect(() => compareJsonNumbers('1', '+1')).toThrow(SyntaxError);
    expect(() => compareJsonNumbers('x', '1')).toThrow(SyntaxError);
  });

  it('agrees with an exact BigInt reference, and with doubles wherever the doubles differ', () => {
    fc.assert(
      fc.property(numberTextArb, numberTextArb, (a, b) => {
        const c = compareJsonNumbers(a, b);
        expect(Math.sign(c)).toBe(referenceCompare(a, b));
        expect(Math.sign(compareJsonNumbers(b, a)) + Math.sign(c)).toBe(0);
        // Rounding to the nearest double never reverses an order.
        if (Number(a) < Number(b)) expect(c).toBeLessThan(0);
        if (Number(a) > Number(b)) expect(c).toBeGreaterThan(0);
        // jsonEqual on the parsed values is exactly compareJsonNumbers === 0.
        expect(jsonEqual(parseJson(a), parseJson(b))).toBe(c === 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(numberTextArb, numberTextArb, numberTextArb, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareJsonNumbers);
        expect(compareJsonNumbers(x!, z!)).toBeLessThanOrEqual(0);
        if (compareJsonNumbers(x!, y!) === 0 && compareJsonNumbers(y!, z!) === 0) expect(compareJsonNumbers(x!, z!)).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('exact decimals and integers', () => {
  it('normalise sign, digits and exponent', () => {
    expect(toDecimal('-0.00')).toStrictEqual({ sign: 0, digits: '', order: 0 });
    expect(toDecimal('123.4500e-2')).toStrictEqual({ sign: 1, digits: '12345', order: 1 });
    expect(toDecimal('-0.00120')).toStrictEqual({ sign: -1, digits: '12', order: -2 });
    expect(toDecimal('1000')).toStrictEqual({ sign: 1, digits: '1', order: 4 });
    expect(toDecimal('1e99999999999999999999')).toStrictEqual({ sign: 1, digits: '1', order: 100000000000000000000n });
  });

  it('integerDigits truncates toward zero exactly and bounds the size', () => {
    const cases: Array<[string, string | undefined]> = [
      ['0', '0'], ['-0', '0'], ['-0.9', '0'], ['1.0', '1'], ['1e2', '100'], ['1.5e1', '15'], ['-1.5e1', '-15'],
      ['123.456e1', '1234'], ['12345678901234567890.999', '12345678901234567890'], ['1e-400', '0'],
      ['-12345678901234567890.5e-10', '-1234567890'], ['1e4299', `1${'0'.repeat(4299)}`], ['1e4300', undefined],
      ['1e99999999999999999999', undefined], ['0e99999999999999999999', '0'], ['1e-99999999999999999999', '0'],
    ];
    for (const [t, want] of cases) expect(integerDigits(t), t).toBe(want);
    // No amplification limit for digits written out in full.
    const long = `9${'0'.repeat(5000)}`;
    expect(integerDigits(long)).toBe(long);
    expect(integerDigits(`${long}.5`)).toBe(long);
  });

  it('integerDigits agrees with BigInt arithmetic', () => {
    fc.assert(
      fc.property(numberTextArb, (t) => {
        const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(t)!;
        const frac = m[3] ?? '';
        const e = Number(m[4] ?? '0') - frac.length;
        const mant = BigInt(m[2]! + frac);
        const abs = e >= 0 ? mant * 10n ** BigInt(e) : mant / 10n ** BigInt(-e);
        const want = m[1] === '-' && abs !== 0n ? `-${abs}` : `${abs}`;
        const got = integerDigits(t);
        if (abs.toString().length > Math.max(4300, t.length)) expect(got).toBeUndefined();
        else expect(got).toBe(want);
        expect(isZeroText(t)).toBe(mant === 0n);
      }),
      { numRuns: 2000 },
    );
  });
});
