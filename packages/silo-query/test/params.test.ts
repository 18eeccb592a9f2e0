import { describe, expect, it } from 'vitest';
import { compile, hasQueryParams, query, SiloQueryError } from '../src/index.js';

function detailOf(fn: () => unknown): SiloQueryError['detail'] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SiloQueryError);
    return (e as SiloQueryError).detail;
  }
  throw new Error('expected a SiloQueryError');
}

describe('hasQueryParams', () => {
  it('is true when any of the six is present, even empty', () => {
    for (const p of ['idx=0', 'path=', 'output=json', 'q=a', 'value=', 'op=eq', '?idx', 'x=1&op=']) expect(hasQueryParams(p)).toBe(true);
    expect(hasQueryParams(new URLSearchParams('value=1'))).toBe(true);
    expect(hasQueryParams({ path: 'a' })).toBe(true);
    expect(hasQueryParams({ q: ['a', 'b'] })).toBe(true);
  });

  it('is false for other parameters only', () => {
    for (const p of ['', '?', '_=123', 'IDX=1', 'callback=x&cache=no', 'pathx=1']) expect(hasQueryParams(p)).toBe(false);
    expect(hasQueryParams({})).toBe(false);
    expect(hasQueryParams({ idx: undefined, path: [] })).toBe(false);
    expect(hasQueryParams(new URLSearchParams())).toBe(false);
  });
});

describe('parameter forms', () => {
  it('a Koa/Node parsed query (null prototype, arrays for repeats) works', () => {
    const parsed = Object.assign(Object.create(null) as Record<string, string | string[]>, { path: 'a', x: ['1', '2'] });
    expect(query({ a: 5 }, parsed)).toBe(5);
    const repeated = Object.assign(Object.create(null) as Record<string, string | string[]>, { idx: ['0', '1'] });
    expect(detailOf(() => query([1], repeated))).toStrictEqual([
      { loc: ['query', 'idx'], msg: 'Give idx at most once (it was given 2 times)', type: 'multiple_values' },
    ]);
    expect(query([7], { idx: ['0'] })).toBe(7);
  });

  it('a plain object is read by own keys only', () => {
    const inherited = Object.create({ path: 'a' }) as Record<string, string>;
    expect(query({ a: 1 }, inherited)).toStrictEqual({ a: 1 });
  });

  it('a non-string value in a plain object is a string_type error', () => {
    const bad = { path: 5, idx: ['0', 1] } as unknown as Record<string, string>;
    expect(detailOf(() => compile(bad)).map((d) => [d.loc[1], d.type])).toStrictEqual([
      ['idx', 'multiple_values'],
      ['path', 'string_type'],
    ]);
  });

  it('anything but a string, URLSearchParams or object is a programming error (TypeError)', () => {
    expect(() => compile(null as unknown as string)).toThrow(TypeError);
    expect(() => compile(5 as unknown as string)).toThrow(TypeError);
  });

  it('the query-string forms decode like a server does', () => {
    expect(query({ 'a b': 1 }, 'path=a+b')).toBe(1);
    expect(query({ 'a b': 1 }, 'path=a%20b')).toBe(1);
    expect(query({ 'a+b': 1 }, 'path=a%2Bb')).toBe(1);
    expect(query({ a: 1 }, '?path=a')).toBe(1);
  });
});

describe('SiloQueryError', () => {
  it('is an Error with name, message and the 422 detail', () => {
    let error: unknown;
    try {
      compile('idx=x&op=zz');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(SiloQueryError);
    const e = error as SiloQueryError;
    expect(e.name).toBe('SiloQueryError');
    expect(e.message).toContain('query.idx');
    expect(e.message).toContain('query.op');
    expect(e.detail).toStrictEqual([
      { loc: ['query', 'idx'], msg: expect.stringContaining('non-negative integer') as unknown as string, type: 'int_parsing' },
      { loc: ['query', 'q'], msg: expect.any(String) as unknown as string, type: 'missing' },
      { loc: ['query', 'op'], msg: "Input should be 'eq', 'ne', 'gt', 'lt', 'lk' or 'il'", type: 'enum' },
    ]);
    // The body the API sends is exactly {"detail": e.detail}.
    expect(JSON.parse(JSON.stringify({ detail: e.detail }))).toStrictEqual({ detail: e.detail });
  });

  it('names the allowed outputs', () => {
    expect(detailOf(() => compile('output=xml'))[0]!.msg).toBe("Input should be 'json', 'text', 'int', 'float' or 'bool'");
    expect(detailOf(() => compile('output=date'))[0]!.msg).toContain("output 'date' is not supported");
  });

  it('a search on non-array data is raised by the compiled query, not by compile', () => {
    const run = compile('q=a&value=1');
    expect(run([{ a: 1 }])).toStrictEqual([{ a: 1 }]);
    expect(detailOf(() => run({ a: 1 }))).toStrictEqual([
      { loc: ['query', 'q'], msg: 'Search needs the data to be an array of objects; this data is an object', type: 'search_requires_array' },
    ]);
  });
});

describe('compile', () => {
  it('returns a reusable function over any data', () => {
    const run = compile('idx=1&path=a&output=int');
    expect(run([{}, { a: '12' }])).toBe(12);
    expect(run([{}, { a: 3.9 }])).toBe(3);
    expect(run({})).toBeNull();
    expect(run([{}, { a: '99999999999999999999' }])).toBe(99999999999999999999n);
  });

  it('returns the stored value itself (no copy)', () => {
    const inner = { x: [1] };
    const data = [{ inner }];
    expect(query(data, 'path=0.inner')).toBe(inner);
    expect((query(data, 'q=inner.x.0&value=1') as unknown[])[0]).toBe(data[0]);
  });
});
