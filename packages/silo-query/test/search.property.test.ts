import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, JsonNumber, parseJson, query, SiloQueryError, toJSON } from '../src/index.js';
import { compilePredicate } from '../src/search.js';
import { iuEqual, nearNumberTextArb, numberTextArb, referenceGet, referenceLike, referenceTest } from './arbitraries.js';

const runs = { numRuns: 300 };

const fieldValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 30, 1.5, -2.5, 1e21, '', '1', '1.0', '30', 'true', 'null', 'abc', 'ABC', 'b', ' 7', '1e2', '\uff61', '\u{1F600}', '\ue000'),
  fc.integer({ min: -100, max: 100 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constant([1]),
  fc.constant({ x: 1 }),
  // Numbers stored exactly (a JsonNumber where a double would change them), and numeric strings.
  { weight: 3, arbitrary: numberTextArb.map((t) => JsonNumber.from(t)) },
  { weight: 3, arbitrary: nearNumberTextArb.map((t) => JsonNumber.from(t)) },
  numberTextArb,
);
const keys = ['f', 'g', 'constructor', '__proto__', '0', 'text'] as const;
const element = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...keys), fieldValue, { maxKeys: 3 }).map((o) => ({ ...o, nested: { f: o['f'] } })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, 'f', null, [1], true, new JsonNumber('1.0'), new JsonNumber('12345678901234567890')) },
);
// Written and read back the way Silo stores data: numbers exactly as written.
const dataArb = fc.array(element, { maxLength: 12 }).map((d) => parseJson(toJSON(d)) as unknown[]);
const valueArb = fc.oneof(
  fc.constantFrom('', '1', '1.0', '30', '3e1', '-0', '+1', '01', 'true', 'false', 'null', 'True', 'abc', 'b', '\uff61', '\u{1F600}', '1e400'),
  fc.integer({ min: -100, max: 100 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ unit: 'binary', maxLength: 4 }),
  numberTextArb,
  { weight: 3, arbitrary: nearNumberTextArb },
);
const qArb = fc.constantFrom('f', 'g', 'constructor', '__proto__', '0', 'nested.f', 'missing', 'nested.f.x', 'text', 'f.text');
const opArb = fc.constantFrom('eq', 'ne', 'gt', 'lt') as fc.Arbitrary<'eq' | 'ne' | 'gt' | 'lt'>;
const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

describe('search (property)', () => {
  it('eq, ne, gt, lt agree with a reference written from the contract', () => {
    fc.assert(
      fc.property(dataArb, qArb, valueArb, opArb, (data, q, value, op) => {
        const expected = data.filter((el) => isObject(el) && referenceTest(op, referenceGet(el, q.split('.')), value));
        expect(query(data, { q, value, op })).toStrictEqual(expected);
      }),
      runs,
    );
  });

  it('a field test agrees with the reference, on single fields (the compiled predicate, many runs)', () => {
    fc.assert(
      fc.property(fieldValue.map((f) => parseJson(toJSON([f]))), valueArb, opArb, (wrapped, value, op) => {
        const field = (wrapped as unknown[])[0];
        expect(compilePredicate(op, value)(field)).toBe(referenceTest(op, field, value));
      }),
      { numRuns: 5000 },
    );
  });

  it('a one-segment q (the inlined loops) and a deeper q (the compiled predicate) select alike', () => {
    fc.assert(
      fc.property(dataArb, valueArb, fc.constantFrom('eq', 'ne', 'gt', 'lt', 'lk', 'il'), (data, value, op) => {
        if ((op === 'lk' || op === 'il') && value.endsWith('\\')) return;
        expect(query(data, { q: 'f', value, op })).toStrictEqual(query(data, { q: 'nested.f', value, op }));
      }),
      { numRuns: 1000 },
    );
  });

  it('ne is the exact complement of eq over object elements; non-objects are in neither', () => {
    fc.assert(
      fc.property(dataArb, qArb, valueArb, (data, q, value) => {
        const eq = query(data, { q, value, op: 'eq' }) as unknown[];
        const ne = query(data, { q, value, op: 'ne' }) as unknown[];
        const objects = data.filter(isObject);
        expect(eq.length + ne.length).toBe(objects.length);
        for (const el of objects) expect(eq.includes(el) !== ne.includes(el)).toBe(true);
      }),
      runs,
    );
  });

  it('results are an in-order subsequence of the input (the same elements)', () => {
    fc.assert(
      fc.property(dataArb, qArb, valueArb, fc.constantFrom('eq', 'ne', 'gt', 'lt', 'lk', 'il'), (data, q, value, op) => {
        let result: unknown[];
        try {
          result = compile({ q, value, op })(data) as unknown[];
        } catch (e) {
          // Only a LIKE pattern ending in a backslash is refused.
          expect(e).toBeInstanceOf(SiloQueryError);
          expect((e as SiloQueryError).detail[0]!.type).toBe('like_pattern_invalid');
          return;
        }
        let at = 0;
        for (const r of result) {
          while (at < data.length && data[at] !== r) at++;
          expect(at).toBeLessThan(data.length);
          expect(isObject(data[at])).toBe(true);
          at++;
        }
      }),
      runs,
    );
  });

  it('search + path equals path mapped over the search result (null where it does not resolve)', () => {
    fc.assert(
      fc.property(
        dataArb,
        qArb,
        valueArb.filter((v) => !v.endsWith('\\')),
        fc.constantFrom('eq', 'ne', 'gt', 'lt', 'lk', 'il'),
        fc.constantFrom('f', 'g', 'nested', 'nested.f', 'missing', '0', '__proto__', 'text', 'f.text'),
        (data, q, value, op, path) => {
          const matches = query(data, { q, value, op }) as unknown[];
          const mapped = matches.map((m) => query(m, { path }));
          expect(query(data, { q, value, op, path })).toStrictEqual(mapped);
        },
      ),
      runs,
    );
  });

  it('lk and il keep exactly the elements whose string field matches the pattern', () => {
    const pattern = fc.array(fc.constantFrom('a', 'A', 'b', '1', '%', '_', '\\%', 'é', '\u{1F600}'), { maxLength: 4 }).map((a) => a.join(''));
    fc.assert(
      fc.property(dataArb, qArb, pattern, fc.constantFrom('lk', 'il'), (data, q, value, op) => {
        const eqChar = op === 'il' ? iuEqual : (t: string, p: string) => t === p;
        const expected = data.filter((el) => {
          if (!isObject(el)) return false;
          const f = referenceGet(el, q.split('.'));
          return typeof f === 'string' && referenceLike(f, value, eqChar);
        });
        expect(query(data, { q, value, op })).toStrictEqual(expected);
      }),
      runs,
    );
  });
});
