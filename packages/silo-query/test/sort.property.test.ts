/**
 * sort, limit and offset (contract §16) by property, against a comparator written here from the
 * contract's wording: numbers and numeric strings by exact value < other strings by code point
 * < false < true < objects and arrays (equal) < null < missing; descending the exact reverse;
 * ties in array order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber, parseJson, query, toJSON } from '../src/index.js';
import { codePointCompare, JSON_NUMBER, nearNumberTextArb, numberTextArb, numberTextOf, referenceCompare, referenceGet } from './arbitraries.js';

const runs = { numRuns: 300 };

const fieldValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 1.5, -2.5, '', '1', '1.0', ' 1', '01', 'a', 'B', 'b', '\uff61', '\u{1F600}', '\ue000', [], [1], {}, { a: 1 }),
  fc.integer({ min: -20, max: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 3 }),
  { weight: 2, arbitrary: numberTextArb.map((t) => JsonNumber.from(t)) },
  { weight: 2, arbitrary: nearNumberTextArb.map((t) => JsonNumber.from(t)) },
  nearNumberTextArb,
);
const keyNames = ['a', 'b', 'c', 'constructor', '__proto__'] as const;
const element = fc.oneof(
  { weight: 10, arbitrary: fc.dictionary(fc.constantFrom(...keyNames), fieldValue, { maxKeys: 3 }).map((o) => ({ ...o, n: { a: o['a'] } })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, 'a', null, [{ a: 1 }], true, new JsonNumber('1.0')) },
);
const dataArb = fc.array(element, { maxLength: 40 }).map((d) => parseJson(toJSON(d)) as unknown[]);
const sortKeyArb = fc.tuple(fc.constantFrom('a', 'b', 'c', 'n.a', 'missing', 'constructor', '__proto__', 'toString'), fc.boolean()).map(([p, desc]) => ({ path: p, desc }));
const sortArb = fc.array(sortKeyArb, { minLength: 1, maxLength: 3 });
const sortParam = (keys: ReadonlyArray<{ path: string; desc: boolean }>): string => keys.map((k) => (k.desc ? `-${k.path}` : k.path)).join(',');

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** The contract's rank of a value; numbers and numeric strings share rank 0. */
function rank(v: unknown): number {
  if (v === undefined) return 6;
  if (v === null) return 5;
  if (numberTextOf(v) !== undefined || (typeof v === 'string' && JSON_NUMBER.test(v))) return 0;
  if (typeof v === 'string') return 1;
  if (v === false) return 2;
  if (v === true) return 3;
  return 4;
}

/** Ascending order of two values, from the contract's wording. */
function compareValues(x: unknown, y: unknown): number {
  const rx = rank(x);
  const ry = rank(y);
  if (rx !== ry) return rx - ry;
  if (rx === 0) return referenceCompare(numberTextOf(x) ?? (x as string), numberTextOf(y) ?? (y as string));
  if (rx === 1) return codePointCompare(x as string, y as string);
  return 0;
}

function compareBy(keys: ReadonlyArray<{ path: string; desc: boolean }>) {
  return (x: object, y: object): number => {
    for (const k of keys) {
      const c = compareValues(referenceGet(x, k.path.split('.')), referenceGet(y, k.path.split('.')));
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  };
}

describe('sort (property)', () => {
  it('the result is a permutation of the object elements, sorted, with ties in array order', () => {
    fc.assert(
      fc.property(dataArb, sortArb, (data, keys) => {
        const result = query(data, { sort: sortParam(keys) }) as object[];
        const objects = data.filter(isObject);
        expect(result.length).toBe(objects.length);
        expect(new Set(result).size).toBe(new Set(objects).size);
        for (const el of result) expect(objects.includes(el)).toBe(true);
        const cmp = compareBy(keys);
        for (let i = 1; i < result.length; i++) {
          const c = cmp(result[i - 1]!, result[i]!);
          expect(c).toBeLessThanOrEqual(0);
          // Stable: equal keys keep array order.
          if (c === 0) expect(objects.indexOf(result[i - 1]!)).toBeLessThan(objects.lastIndexOf(result[i]!));
        }
      }),
      runs,
    );
  });

  it('equals a stable sort with the contract\'s comparator', () => {
    fc.assert(
      fc.property(dataArb, sortArb, (data, keys) => {
        // Array.prototype.sort is stable (ES2019).
        const expected = data.filter(isObject).sort(compareBy(keys));
        expect(query(data, { sort: sortParam(keys) })).toStrictEqual(expected);
      }),
      runs,
    );
  });

  it('descending is the exact reverse of ascending, ties still in array order', () => {
    fc.assert(
      fc.property(dataArb, fc.constantFrom('a', 'b', 'n.a'), (data, path) => {
        const up = query(data, { sort: path }) as object[];
        const down = query(data, { sort: `-${path}` }) as object[];
        // Group both by equal keys: the groups come in reverse order, each group in array order.
        const groups = (list: object[]): object[][] => {
          const out: object[][] = [];
          for (const el of list) {
            const last = out[out.length - 1];
            if (last !== undefined && compareValues(referenceGet(last[0]!, path.split('.')), referenceGet(el, path.split('.'))) === 0) last.push(el);
            else out.push([el]);
          }
          return out;
        };
        expect(groups(down)).toStrictEqual(groups(up).reverse());
      }),
      runs,
    );
  });

  it('offset and limit slice the sorted result; with a limit (the bounded heap) the same as a full sort then a slice', () => {
    fc.assert(
      fc.property(dataArb, sortArb, fc.nat(45), fc.nat(45), (data, keys, offset, limit) => {
        const sort = sortParam(keys);
        const all = query(data, { sort }) as unknown[];
        expect(query(data, { sort, limit: String(limit) })).toStrictEqual(all.slice(0, limit));
        expect(query(data, { sort, offset: String(offset) })).toStrictEqual(all.slice(offset));
        expect(query(data, { sort, offset: String(offset), limit: String(limit) })).toStrictEqual(all.slice(offset, offset + limit));
      }),
      runs,
    );
  });

  it('a path sorted by again decides nothing more, and equal numbers written differently tie exactly (an attacker sorted 2 000 of them by v eight times)', () => {
    const data = [{ v: '1.00' }, { v: '1.0' }, { v: 1 }, { v: '0.99' }, { v: new JsonNumber('1e0') }, { v: '1.0000000000000001' }];
    const order = (sort: string) => (query(data, { sort }) as { v: unknown }[]).map((e) => data.indexOf(e as (typeof data)[number]));
    expect(order('v')).toEqual([3, 0, 1, 2, 4, 5]);
    expect(order('v,v,v,v,v,v,v,v')).toEqual(order('v'));
    expect(order('v,-v')).toEqual(order('v'));
    expect(order('-v,v')).toEqual([5, 0, 1, 2, 4, 3]);
  });

  it('the top k of many ties is the first k in array order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 20 }), fc.boolean(), (groups, k, desc) => {
        const data = groups.map((g, id) => ({ g, id }));
        const expected = [...data].sort((x, y) => (desc ? y.g - x.g : x.g - y.g)).slice(0, k);
        expect(query(data, { sort: desc ? '-g' : 'g', limit: String(k) })).toStrictEqual(expected);
      }),
      runs,
    );
  });

  it('without a sort, offset and limit slice the matches in array order; the count is before them', () => {
    fc.assert(
      fc.property(dataArb, fc.nat(45), fc.nat(45), (data, offset, limit) => {
        const objects = data.filter(isObject);
        expect(query(data, { offset: String(offset), limit: String(limit) })).toStrictEqual(objects.slice(offset, offset + limit));
      }),
      runs,
    );
  });
});
