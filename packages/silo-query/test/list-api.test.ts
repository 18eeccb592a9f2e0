/**
 * The query language's API (contract §16) as callers use it: the HTTP middleware (which sends
 * X-Total-Count when a search, filter or paging parameter was used) and the console playground.
 */
import { describe, expect, it } from 'vitest';
import {
  compile,
  ErrorType,
  FILTER_OPS,
  hasQueryParams,
  JsonNumber,
  LIST_PARAM_NAMES,
  PARAM_NAMES,
  query,
  QUERY_BOUNDS,
  reportsTotalCount,
  SiloQueryError,
  toJSON,
  TOTAL_COUNT_PARAM_NAMES,
  type QueryRun,
} from '../src/index.js';

function detailOf(fn: () => unknown): SiloQueryError['detail'] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SiloQueryError);
    return (e as SiloQueryError).detail;
  }
  throw new Error('expected a SiloQueryError');
}

const products = [
  { name: 'hammer', price: 120, category: 'tools' },
  { name: 'saw', price: 90, category: 'tools' },
  { name: 'drill', price: 300, category: 'tools' },
  { name: 'kite', price: 150, category: 'toys' },
  { name: 'level', price: '101', category: 'tools' },
];

describe('parameter names', () => {
  it('PARAM_NAMES lists §5\'s six and §16\'s five, in the order errors are listed', () => {
    expect(PARAM_NAMES).toStrictEqual(['idx', 'path', 'output', 'q', 'value', 'op', 'filter', 'sort', 'limit', 'offset', 'fields']);
    expect(LIST_PARAM_NAMES).toStrictEqual(['filter', 'sort', 'limit', 'offset', 'fields']);
    expect(TOTAL_COUNT_PARAM_NAMES).toStrictEqual(['q', 'value', 'op', 'filter', 'limit', 'offset']);
    expect(FILTER_OPS).toStrictEqual(['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'lk', 'il', 'has']);
  });

  it('hasQueryParams sees the new parameters too (public addresses refuse them as §5\'s)', () => {
    for (const p of ['filter=', 'sort=a', 'limit=1', 'offset=0', 'fields=a', 'x=1&fields=']) expect(hasQueryParams(p)).toBe(true);
    expect(hasQueryParams('Filter=1&SORT=a')).toBe(false);
  });

  it('reportsTotalCount: search, filter and paging parameters; not sort, fields or §5\'s query', () => {
    for (const p of ['q=a&value=1', 'filter=a+eq+1', 'limit=5', 'offset=0', 'sort=a&limit=0', 'fields=a&offset=1', 'value=']) {
      expect(reportsTotalCount(p)).toBe(true);
    }
    for (const p of ['', 'sort=a', 'fields=a', 'sort=-a&fields=b', 'path=a', 'idx=0&output=int', '_=1']) expect(reportsTotalCount(p)).toBe(false);
    expect(reportsTotalCount(new URLSearchParams({ filter: 'x exists' }))).toBe(true);
    expect(reportsTotalCount({ sort: 'a' })).toBe(false);
  });

  it('the bounds', () => {
    expect(QUERY_BOUNDS).toStrictEqual({ filterMaxLength: 4096, filterMaxConditions: 32, filterMaxDepth: 8, sortMaxKeys: 8, fieldsMax: 32, fieldsPathMaxSegments: 1000, limitMax: 10000 });
  });
});

describe('run: the results and the count', () => {
  it('the README example: price > 100 and category = tools, by price, the first 20, only name and price, how many', () => {
    const q = compile('filter=price+gt+100+and+category+eq+%22tools%22&sort=-price&limit=20&fields=name,price');
    const r = q.run(products);
    expect(r).toStrictEqual({
      list: true,
      value: [{ name: 'drill', price: 300 }, { name: 'hammer', price: 120 }, { name: 'level', price: '101' }],
      items: [{ name: 'drill', price: 300 }, { name: 'hammer', price: 120 }, { name: 'level', price: '101' }],
      total: 3,
    });
    expect(r.value).toBe(r.items);
    expect(q(products)).toStrictEqual(r.items);
    expect(q.lists).toBe(true);
    expect(q.reportsTotal).toBe(true);
  });

  it('the count is before offset and limit; limit=0 gives only the count', () => {
    const r = compile('sort=price&limit=0').run(products);
    expect(r.list && r.items).toStrictEqual([]);
    expect(r.total).toBe(5);
    expect(compile('offset=3').run(products).total).toBe(5);
  });

  it('a §5 search keeps its answer and gains a count', () => {
    const q = compile('q=category&value=tools&path=name');
    expect(q(products)).toStrictEqual(['hammer', 'saw', 'drill', 'level']);
    expect(q.run(products)).toMatchObject({ list: true, total: 4 });
    expect(q.reportsTotal).toBe(true);
  });

  it('a query that is not a list: run gives the value alone', () => {
    const q = compile('idx=1&path=name');
    const r: QueryRun = q.run(products);
    expect(r).toStrictEqual({ list: false, value: 'saw', items: undefined, total: undefined });
    expect(q.lists).toBe(false);
    expect(q.reportsTotal).toBe(false);
  });

  it('json: the answer as text, the same as toJSON of run, also when fields maps many results a slice at a time', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => ({ n: i, name: `item ${i}`, nested: { a: i % 7, b: [i, { c: 'x' }] }, big: new JsonNumber('12345678901234567890') }));
    for (const search of ['fields=nested.b.1,name,big', 'sort=-nested.a,n&fields=n', 'filter=n ge 1000&offset=10&fields=name', 'q=n&op=gt&value=10&path=nested.b', 'idx=3&path=name', '']) {
      const q = compile(search);
      const run = q.run(many);
      expect(q.json(many), search).toEqual({ text: toJSON(run.value), total: run.total });
    }
    expect(compile('limit=0').json(many)).toEqual({ text: '[]', total: 5_000 });
  });

  it('sort or fields alone lists the elements without sending a count', () => {
    const q = compile('sort=name&fields=name');
    expect(q.lists).toBe(true);
    expect(q.reportsTotal).toBe(false);
    expect(q.run(products).total).toBe(5);
  });

  it('results are the stored elements themselves (no copy), projections share their values', () => {
    const inner = { deep: [1] };
    const data = [{ a: inner, b: 1 }, { a: inner, b: 2 }];
    const sorted = query(data, 'sort=-b') as unknown[];
    expect(sorted[0]).toBe(data[1]);
    const projected = query(data, 'fields=a') as Array<{ a: unknown }>;
    expect(projected[0]!.a).toBe(inner);
  });

  it('the data is never changed', () => {
    const data = products.map((p) => ({ ...p }));
    const before = JSON.stringify(data);
    query(data, 'filter=price+gt+100&sort=-price&limit=2&fields=name');
    query(data, 'sort=name');
    expect(JSON.stringify(data)).toBe(before);
  });

  it('a compiled query is reusable on other data', () => {
    const q = compile({ filter: 'price ge 100', sort: 'price' });
    expect(q.run(products).total).toBe(4);
    expect(q([{ price: 100 }, { price: 99 }])).toStrictEqual([{ price: 100 }]);
    expect(() => q({ price: 1 })).toThrow(SiloQueryError);
  });
});

describe('errors', () => {
  it('ErrorType has the new words', () => {
    expect(ErrorType).toMatchObject({
      filterSyntax: 'filter_syntax',
      filterTooLong: 'filter_too_long',
      filterTooManyConditions: 'filter_too_many_conditions',
      filterTooDeep: 'filter_too_deep',
      tooManySortKeys: 'too_many_sort_keys',
      tooManyFields: 'too_many_fields',
      lessThanEqual: 'less_than_equal',
    });
  });

  it('a filter error says what was expected and where', () => {
    expect(detailOf(() => compile('filter=price+gt'))).toStrictEqual([{
      loc: ['query', 'filter'],
      msg: 'At position 8: expected a literal (a JSON string in double quotes, a number, true, false or null); found the end of the filter',
      type: 'filter_syntax',
      ctx: { position: 8 },
    }]);
    expect(detailOf(() => compile({ filter: 'price GT 1' }))[0]!.msg).toBe(
      'At position 6: expected an operator (eq, ne, gt, lt, ge, le, lk, il, has, in or exists) after the path; found \'GT\' (words are lowercase)');
    expect(detailOf(() => compile({ filter: 'city eq Oslo' }))[0]!.msg).toContain('a string goes in double quotes: "Oslo"');
    expect(detailOf(() => compile({ filter: '(a eq 1' }))[0]!.msg).toBe(
      "At position 7: expected 'and', 'or' or ')' to close the '(' at position 0; found the end of the filter");
    expect(detailOf(() => compile({ filter: 'a eq 1)' }))[0]!.msg).toBe(
      "At position 6: expected 'and', 'or' or the end of the filter; found a ')' without a matching '('");
  });

  it('bounds name their limit', () => {
    const many = Array.from({ length: 33 }, (_, i) => `a eq ${i}`).join(' or ');
    expect(detailOf(() => compile({ filter: many }))[0]).toMatchObject({
      type: 'filter_too_many_conditions',
      ctx: { max_conditions: 32, position: many.lastIndexOf('a eq 32') },
      msg: expect.stringContaining('at most 32') as unknown as string,
    });
    expect(detailOf(() => compile({ sort: 'a,b,c,d,e,f,g,h,i' }))[0]).toMatchObject({ type: 'too_many_sort_keys', ctx: { max_keys: 8 } });
    expect(detailOf(() => compile({ limit: '10001' }))[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: 10000 }, msg: 'Input should be less than or equal to 10000' });
  });

  it('idx and output name what they cannot be combined with', () => {
    expect(detailOf(() => compile('idx=0&q=a&value=1'))[0]!.msg).toBe('idx cannot be combined with search (q)');
    expect(detailOf(() => compile('idx=0&sort=a&limit=1'))[0]!.msg).toBe('idx cannot be combined with sort or limit');
    expect(detailOf(() => compile('output=int&q=a&value=1&filter=a+exists'))[0]!.msg).toBe('output cannot be combined with q or filter');
  });

  it('data that is not an array: one item per list parameter, raised when the query runs', () => {
    const q = compile('q=a&value=1&sort=a&fields=a');
    expect(detailOf(() => q('text'))).toStrictEqual([
      { loc: ['query', 'q'], msg: 'Search needs the data to be an array of objects; this data is a string', type: 'search_requires_array' },
      { loc: ['query', 'sort'], msg: 'sort needs the data to be an array of objects; this data is a string', type: 'search_requires_array' },
      { loc: ['query', 'fields'], msg: 'fields needs the data to be an array of objects; this data is a string', type: 'search_requires_array' },
    ]);
  });

  it('deep nesting is refused before the parser recurses into it', () => {
    const deep = `${'('.repeat(2000)}a eq 1${')'.repeat(2000)}`;
    expect(detailOf(() => compile({ filter: deep }))[0]).toMatchObject({ type: 'filter_too_deep', ctx: { max_depth: 8, position: 8 } });
    const nots = `${'not '.repeat(1000)}a eq 1`;
    expect(detailOf(() => compile({ filter: nots }))[0]).toMatchObject({ type: 'filter_too_deep', ctx: { position: 32 } });
  });

  it('a very long filter is refused without being read', () => {
    const huge = 'a eq 1 and '.repeat(200_000);
    const started = performance.now();
    expect(detailOf(() => compile({ filter: huge }))[0]).toMatchObject({ type: 'filter_too_long', ctx: { max_length: 4096, position: 4096 } });
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('fields over deep paths', () => {
  it('projects a path of the longest length allowed through data that deep, and refuses a longer one before any work', () => {
    const segments = QUERY_BOUNDS.fieldsPathMaxSegments;
    let deep: unknown = 'bottom';
    for (let i = 0; i < segments; i++) deep = { a: deep };
    const path = Array.from({ length: segments }, () => 'a').join('.');
    expect(query([deep], { fields: path })).toEqual([deep]);
    // 3 000 segments overflowed the stack (a RangeError, a 500 from the server) before the bound.
    const tooLong = `${path}.a`;
    expect(() => query([deep], { fields: Array.from({ length: 3 }, () => tooLong).join(',') })).toThrow(SiloQueryError);
    try {
      compile({ fields: `${tooLong}.${tooLong}.${tooLong}` });
    } catch (error) {
      expect((error as SiloQueryError).detail).toEqual([
        expect.objectContaining({ loc: ['query', 'fields'], type: ErrorType.fieldsPathTooLong, ctx: { max_segments: segments } }),
      ]);
      return;
    }
    expect.unreachable('a path of 3 003 segments compiled');
  });
});
