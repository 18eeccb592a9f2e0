/**
 * filter (contract §16) against §5's search, by property: a condition means exactly what the
 * search with the same path, value and op means, and the other words are what §16 builds from it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber, parseJson, query, SiloQueryError, toJSON } from '../src/index.js';
import { JSON_NUMBER, nearNumberTextArb, numberTextArb, referenceGet, referenceTest } from './arbitraries.js';

const runs = { numRuns: 400 };

const fieldValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 30, 1.5, -2.5, 1e21, '', '1', '1.0', '30', 'true', 'false', 'null', 'abc', 'ABC', 'b', ' 7', '1e2', '\uff61', '\u{1F600}', '\ue000', 'a"b', 'a\\b'),
  fc.integer({ min: -100, max: 100 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom([1], ['1'], [null], [], [[1]], [{ x: 1 }], ['abc', 30]),
  fc.constant({ x: 1 }),
  { weight: 3, arbitrary: numberTextArb.map((t) => JsonNumber.from(t)) },
  { weight: 2, arbitrary: nearNumberTextArb.map((t) => JsonNumber.from(t)) },
  numberTextArb,
);
const keys = ['f', 'g', 'constructor', '__proto__', '0', 'text', 'first name'] as const;
const element = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...keys), fieldValue, { maxKeys: 4 }).map((o) => ({ ...o, nested: { f: o['f'] } })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, 'f', null, [1], true, new JsonNumber('1.0'), new JsonNumber('12345678901234567890')) },
);
/** Data as Silo stores it: written and read back with exact numbers. */
const dataArb = fc.array(element, { maxLength: 14 }).map((d) => parseJson(toJSON(d)) as unknown[]);

/** Values: the strings a literal carries to §5 (a string literal's content, a literal's JSON text). */
const valueArb = fc.oneof(
  fc.constantFrom('', '1', '1.0', '30', '3e1', '-0', '+1', '01', 'true', 'false', 'null', 'True', 'abc', 'b', '\uff61', '\u{1F600}', '1e400', '%', 'a%', '_', '%b%', 'A_C', '"', '\\\\'),
  fc.integer({ min: -100, max: 100 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ unit: 'binary', maxLength: 4 }),
  numberTextArb,
  nearNumberTextArb,
);

/** Paths §5 can name (a q), with how a filter may write each segment. */
const pathArb = fc.constantFrom('f', 'g', 'constructor', '__proto__', '0', 'nested.f', 'missing', 'nested.f.x', 'text', 'f.text', 'f.0', 'first name');
type Op = 'eq' | 'ne' | 'gt' | 'lt' | 'lk' | 'il';
const seedOpArb = fc.constantFrom<Op>('eq', 'ne', 'gt', 'lt', 'lk', 'il');

const BARE = /^[A-Za-z0-9_$-]+$/;
/** A path in filter syntax: each segment bare when it can be, or quoted (randomly, also when it could be bare). */
function writePath(path: string, quoteAll: boolean): string {
  return path.split('.').map((s) => (BARE.test(s) && s !== 'not' && !quoteAll ? s : JSON.stringify(s))).join('.');
}
/** A literal whose §5 value is `v`: a JSON string, or the bare text when `v` is a number or a word. */
function writeLiteral(v: string, bare: boolean): string {
  return bare && (JSON_NUMBER.test(v) || v === 'true' || v === 'false' || v === 'null') ? v : JSON.stringify(v);
}
/** A LIKE pattern ending in an unescaped backslash is refused by both (tested in the case suite). */
const refusedLike = (op: string, v: string): boolean => (op === 'lk' || op === 'il') && /(^|[^\\])(\\\\)*\\$/.test(v);

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
const filter = (data: unknown, f: string): unknown[] => query(data, { filter: f }) as unknown[];
const search = (data: unknown, q: string, value: string, op: string): unknown[] => query(data, { q, value, op }) as unknown[];
/** The elements of `data` that are in any of `lists`, in array order (a union of subsequences). */
const union = (data: readonly unknown[], ...lists: unknown[][]): unknown[] => data.filter((el) => lists.some((l) => l.includes(el)));

describe('filter (property)', () => {
  it('a single condition with a §5 operator is exactly §5\'s search (every operator, field and value)', () => {
    fc.assert(
      fc.property(dataArb, pathArb, valueArb, seedOpArb, fc.boolean(), fc.boolean(), (data, path, v, op, quote, bare) => {
        if (refusedLike(op, v)) return;
        const expected = search(data, path, v, op);
        expect(filter(data, `${writePath(path, quote)} ${op} ${writeLiteral(v, bare)}`)).toStrictEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('ge is gt or eq, le is lt or eq', () => {
    fc.assert(
      fc.property(dataArb, pathArb, valueArb, fc.boolean(), (data, path, v, bare) => {
        const lit = writeLiteral(v, bare);
        const p = writePath(path, false);
        expect(filter(data, `${p} ge ${lit}`)).toStrictEqual(union(data, search(data, path, v, 'gt'), search(data, path, v, 'eq')));
        expect(filter(data, `${p} le ${lit}`)).toStrictEqual(union(data, search(data, path, v, 'lt'), search(data, path, v, 'eq')));
      }),
      runs,
    );
  });

  it('in (a, b, …) is eq a or eq b or …', () => {
    fc.assert(
      fc.property(dataArb, pathArb, fc.array(fc.tuple(valueArb, fc.boolean()), { minLength: 1, maxLength: 5 }), (data, path, values) => {
        const list = values.map(([v, bare]) => writeLiteral(v, bare)).join(', ');
        const expected = union(data, ...values.map(([v]) => search(data, path, v, 'eq')));
        expect(filter(data, `${writePath(path, false)} in (${list})`)).toStrictEqual(expected);
      }),
      runs,
    );
  });

  it('has matches an array field holding an element that eq matches; exists matches a path that resolves', () => {
    fc.assert(
      fc.property(dataArb, pathArb, valueArb, (data, path, v) => {
        const segments = path.split('.');
        const has = data.filter((el) => {
          if (!isObject(el)) return false;
          const f = referenceGet(el, segments);
          return Array.isArray(f) && f.some((x) => referenceTest('eq', x, v));
        });
        expect(filter(data, `${writePath(path, false)} has ${JSON.stringify(v)}`)).toStrictEqual(has);
        const exists = data.filter((el) => isObject(el) && referenceGet(el, segments) !== undefined);
        expect(filter(data, `${writePath(path, true)} exists`)).toStrictEqual(exists);
      }),
      runs,
    );
  });

  it('not is the complement over object elements', () => {
    fc.assert(
      fc.property(dataArb, pathArb, valueArb, seedOpArb, (data, path, v, op) => {
        if (refusedLike(op, v)) return;
        const cond = `${writePath(path, false)} ${op} ${JSON.stringify(v)}`;
        const yes = filter(data, cond);
        const no = filter(data, `not ${cond}`);
        const objects = data.filter(isObject);
        expect(yes.length + no.length).toBe(objects.length);
        expect(no).toStrictEqual(objects.filter((el) => !yes.includes(el)));
        expect(filter(data, `not not ${cond}`)).toStrictEqual(yes);
      }),
      runs,
    );
  });

  it('and is the intersection and or the union of their parts, in array order', () => {
    const cond = fc.tuple(pathArb, seedOpArb, valueArb).filter(([, op, v]) => !refusedLike(op, v))
      .map(([p, op, v]) => `${writePath(p, false)} ${op} ${JSON.stringify(v)}`);
    fc.assert(
      fc.property(dataArb, fc.array(cond, { minLength: 2, maxLength: 4 }), (data, conds) => {
        const parts = conds.map((c) => filter(data, c));
        expect(filter(data, conds.join(' and '))).toStrictEqual(data.filter((el) => parts.every((p) => p.includes(el))));
        expect(filter(data, conds.join(' or '))).toStrictEqual(union(data, ...parts));
        // Grouping does not change an and of ands (and the order of evaluation never shows).
        expect(filter(data, `(${conds[0]!}) and (${conds.slice(1).join(' and ')})`)).toStrictEqual(filter(data, [...conds].reverse().join(' and ')));
      }),
      runs,
    );
  });

  it('the seed search and filter together are the intersection of both', () => {
    fc.assert(
      fc.property(dataArb, pathArb, valueArb, seedOpArb, pathArb, valueArb, (data, q, v, op, p2, v2) => {
        if (refusedLike(op, v)) return;
        const seeded = search(data, q, v, op);
        const filtered = filter(data, `${writePath(p2, false)} eq ${JSON.stringify(v2)}`);
        const both = query(data, { q, value: v, op, filter: `${writePath(p2, false)} eq ${JSON.stringify(v2)}` });
        expect(both).toStrictEqual(data.filter((el) => seeded.includes(el) && filtered.includes(el)));
      }),
      runs,
    );
  });

  it('a refused LIKE pattern is refused by filter as by search', () => {
    fc.assert(
      fc.property(valueArb.map((v) => `${v}\\`).filter((v) => refusedLike('lk', v)), fc.constantFrom('lk', 'il'), (v, op) => {
        let filterError: unknown;
        try {
          filter([], `f ${op} ${JSON.stringify(v)}`);
        } catch (e) {
          filterError = e;
        }
        expect(filterError).toBeInstanceOf(SiloQueryError);
        expect((filterError as SiloQueryError).detail[0]).toMatchObject({ loc: ['query', 'filter'], type: 'like_pattern_invalid', ctx: { position: 5 } });
        expect(() => search([], 'f', v, op)).toThrow(SiloQueryError);
      }),
      { numRuns: 100 },
    );
  });
});
