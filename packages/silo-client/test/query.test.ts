/**
 * The query builder writes what the server's parser (silo-query, the same code) reads, with the
 * meaning it was built with: each built filter is run by silo-query against a hand-written
 * predicate over sample data.
 */
import fc from 'fast-check';
import { compile } from 'silo-query';
import { describe, expect, it } from 'vitest';
import { and, JsonNumber, literal, not, or, pathText, queryString, where, type Filter } from '../src/index.js';

const people = [
  { name: 'Ada', age: 36, tags: ['math'], 'first name': 'Ada', address: { city: 'London' }, and: 1 },
  { name: 'Linus', age: 28, tags: ['kernel'], address: { city: 'Helsinki' } },
  { name: 'Grace', age: 45, tags: ['navy', 'math'], address: { city: 'Arlington' }, big: new JsonNumber('12345678901234567890') },
  { name: 'anon', age: null, tags: [] },
];

const run = (filter: Filter) => compile(`filter=${encodeURIComponent(String(filter))}`).run(people).items ?? [];

describe('the filter builder', () => {
  it('writes conditions, and/or/not with parentheses only where they are needed', () => {
    expect(String(where('age').gt(30))).toBe('age gt 30');
    expect(String(where('a').eq(1).and(where('b').eq(2)).or(where('c').eq(3)))).toBe('a eq 1 and b eq 2 or c eq 3');
    expect(String(where('a').eq(1).and(where('b').eq(2).or(where('c').eq(3))))).toBe('a eq 1 and (b eq 2 or c eq 3)');
    expect(String(not(where('a').eq(1).or(where('b').eq(2))))).toBe('not (a eq 1 or b eq 2)');
    expect(String(where('a').exists().not())).toBe('not a exists');
    expect(String(or(and(where('a').eq(1), where('b').eq(2)), where('c').in('x', 2, null)))).toBe('a eq 1 and b eq 2 or c in ("x", 2, null)');
  });

  it('quotes path segments that are not bare words, and words of the language', () => {
    expect(pathText('address.city')).toBe('address.city');
    expect(pathText(['first name', 'and', 'tags', '0'])).toBe('"first name"."and".tags."0"');
    expect(() => pathText('a..b')).toThrow(RangeError);
  });

  it('writes literals exactly: bigint and JsonNumber as their digits, strings as JSON', () => {
    expect(literal(12345678901234567890n)).toBe('12345678901234567890');
    expect(literal(new JsonNumber('1.0'))).toBe('1.0');
    expect(literal('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
    expect(literal(-0)).toBe('-0');
    expect(() => literal(Number.NaN)).toThrow(RangeError);
  });

  it('means what it says: each built filter selects what its predicate selects', () => {
    const cases: [Filter, string[]][] = [
      [where('age').gt(30), ['Ada', 'Grace']],
      [where('tags').has('math').and(where('age').lt(40)), ['Ada']],
      [where('age').le(28).or(where(['address', 'city']).eq('Arlington')), ['Linus', 'Grace']],
      [not(where('age').exists()), []],
      [where('age').eq(null), ['anon']],
      [where('name').ilike('%a'), ['Ada']],
      [where('name').like('_inus'), ['Linus']],
      [where(['first name']).eq('Ada'), ['Ada']],
      [where(['and']).eq(1), ['Ada']],
      [where('big').eq(12345678901234567890n), ['Grace']],
      [where('name').in('Ada', 'Linus').and(not(where('age').ge(30))), ['Linus']],
    ];
    for (const [filter, names] of cases) expect(run(filter).map((p) => (p as { name: string }).name), String(filter)).toEqual(names);
  });

  it('gives silo-query a filter it parses, for any composition of conditions', () => {
    const condition = fc.oneof(
      fc.tuple(fc.constantFrom('eq', 'ne', 'gt', 'lt', 'ge', 'le', 'has'), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))).map(([op, v]) => {
        const f = where(['name', 'tags', 'age'][Math.abs(String(v).length) % 3]!);
        return (f[op as 'eq'] as (x: typeof v) => Filter).call(f, v);
      }),
      fc.string({ minLength: 1, maxLength: 5 }).filter((s) => !s.includes('.')).map((s) => where([s]).exists()),
    );
    const filter: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter }>((tie) => ({
      f: fc.oneof({ depthSize: 'small', maxDepth: 4 }, condition, fc.tuple(tie('f'), tie('f')).map(([a, b]) => a.and(b)), fc.tuple(tie('f'), tie('f')).map(([a, b]) => a.or(b)), tie('f').map(not)),
    })).f;
    fc.assert(
      fc.property(filter, (f) => {
        expect(() => compile({ filter: String(f) })).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

describe('the query string', () => {
  it('sends every parameter in one order, integers canonical, values exact', () => {
    expect(queryString({ idx: 0, path: 'a.b', output: 'int' })).toBe('idx=0&path=a.b&output=int');
    expect(queryString({ q: 'price', value: new JsonNumber('1.50'), op: 'gt', path: 'name' })).toBe('path=name&q=price&value=1.50&op=gt');
    expect(queryString({ filter: where('age').gt(30), sort: ['-age', 'name'], limit: 20, offset: 40, fields: ['name', 'age'] })).toBe(
      'filter=age+gt+30&sort=-age%2Cname&limit=20&offset=40&fields=name%2Cage',
    );
    expect(queryString({ value: 'a%' })).toBe('value=a%25');
    expect(() => queryString({ limit: -1 })).toThrow(RangeError);
    expect(() => queryString({ idx: 1.5 })).toThrow(RangeError);
    expect(queryString()).toBe('');
  });

  it('leaves out an empty sort (the stored order), and refuses empty fields before sending (the server would 422)', () => {
    expect(queryString({ sort: [], limit: 1 })).toBe('limit=1');
    expect(() => queryString({ fields: [], limit: 1 })).toThrow(/fields needs at least one path/);
    expect(() => queryString({ fields: [] })).toThrow(RangeError);
  });
});
