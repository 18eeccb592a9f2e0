import { describe, expect, it } from 'vitest';
import { compile, query } from '../src/index.js';
import { compileSegments, isCanonicalIndex, parsePath } from '../src/path.js';

describe('parsePath', () => {
  it('splits on dots and reports every empty segment', () => {
    expect(parsePath('a.b.0')).toStrictEqual({ segments: [{ key: 'a', index: -1 }, { key: 'b', index: -1 }, { key: '0', index: 0 }] });
    expect(parsePath('')).toStrictEqual({ empty: [0] });
    expect(parsePath('.a..b.')).toStrictEqual({ empty: [0, 2, 4] });
  });

  it('knows canonical indexes', () => {
    for (const s of ['0', '7', '10', '123456789012345678901234567890']) expect(isCanonicalIndex(s)).toBe(true);
    for (const s of ['', '01', '00', '-1', '+1', '1.0', '1e2', ' 1', '1 ', 'x', '\uff11', '٣']) expect(isCanonicalIndex(s)).toBe(false);
  });
});

describe('path accessors', () => {
  it('resolve at every depth from 1 to 12, and miss at every depth', () => {
    for (let depth = 1; depth <= 12; depth++) {
      const keys = Array.from({ length: depth }, (_, i) => `k${i}`);
      let data: unknown = 'leaf';
      for (const k of [...keys].reverse()) data = { [k]: data };
      expect(query(data, { path: keys.join('.') })).toBe('leaf');
      for (let miss = 0; miss < depth; miss++) {
        const broken = keys.map((k, i) => (i === miss ? 'nope' : k));
        expect(query(data, { path: broken.join('.') })).toBeNull();
      }
      // One segment too many steps into a string.
      expect(query(data, { path: `${keys.join('.')}.0` })).toBeNull();
    }
  });

  it('distinguish a stored null (null) from a miss (undefined) when asked to', () => {
    const seg = (p: string) => (parsePath(p) as { segments: ReturnType<typeof parsePath> extends infer R ? R extends { segments: infer S } ? S : never : never }).segments;
    for (const depth of [1, 2, 3, 7, 9]) {
      const keys = Array.from({ length: depth }, (_, i) => `n${i}`);
      let data: unknown = null;
      for (const k of [...keys].reverse()) data = { [k]: data };
      const get = compileSegments(seg(keys.join('.')));
      expect(get(data)).toBeNull();
      expect(get({})).toBeUndefined();
      expect(compileSegments(seg(`${keys.join('.')}.x`))(data)).toBeUndefined();
      expect(compileSegments(seg(keys.join('.')), null)({})).toBeNull();
    }
  });

  it('stay correct after many distinct keys (past the per-key fast getters)', () => {
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) data[`key${i}`] = { v: i };
    for (let i = 0; i < 100; i++) {
      expect(query(data, { path: `key${i}.v` })).toBe(i);
      expect(query(data, { path: `key${i}.toString` })).toBeNull();
      expect(query(data, { path: `key${i}.constructor` })).toBeNull();
    }
    expect(query([data], { q: 'key99.v', value: '99' })).toStrictEqual([data]);
  });

  it('read own properties of objects with a null prototype and refuse inherited ones of class instances', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['a'] = 1;
    expect(query(bare, { path: 'a' })).toBe(1);
    expect(query(bare, { path: 'toString' })).toBeNull();
    class Thing {
      own = 'mine';
      get inherited(): string {
        return 'from the prototype';
      }
    }
    expect(query(new Thing(), { path: 'own' })).toBe('mine');
    expect(query(new Thing(), { path: 'inherited' })).toBeNull();
    const child = Object.create({ fromParent: 'leak' }) as Record<string, unknown>;
    expect(query(child, { path: 'fromParent' })).toBeNull();
    expect(query([child], { q: 'fromParent', value: 'leak' })).toStrictEqual([]);
    expect(query([child], { q: 'fromParent', value: 'leak', op: 'ne' })).toStrictEqual([child]);
  });
});

describe('a polluted Object.prototype', () => {
  it('never shows through a path or a search', () => {
    const proto = Object.prototype as Record<string, unknown>;
    const data = [{ a: 1 }, { a: 2, polluted: 'own' }];
    // Compile before and after the pollution: both must be immune.
    const early = { path: compile('path=polluted'), search: compile({ q: 'polluted', value: 'yes' }), deep: compile({ path: 'x.polluted' }) };
    try {
      proto['polluted'] = 'yes';
      proto['constructor2'] = 'yes';
      expect(early.path({})).toBeNull();
      expect(query({}, 'path=polluted')).toBeNull();
      expect(early.deep({ x: {} })).toBeNull();
      expect(early.path(data[1])).toBe('own');
      expect(early.search(data)).toStrictEqual([]);
      expect(query(data, { q: 'polluted', value: 'yes' })).toStrictEqual([]);
      expect(query(data, { q: 'polluted', value: 'yes', op: 'ne' })).toStrictEqual(data);
      expect(query(data, { q: 'polluted', value: 'own' })).toStrictEqual([data[1]]);
      expect(query(data, { q: 'polluted', value: 'a', op: 'gt' })).toStrictEqual([data[1]]);
      expect(query(data, { q: 'polluted', value: '%', op: 'lk' })).toStrictEqual([data[1]]);
      expect(query([{ n: {} }], { q: 'n.polluted', value: 'yes' })).toStrictEqual([]);
      for (let i = 0; i < 40; i++) expect(query({}, { path: i % 2 ? 'polluted' : 'constructor2' })).toBeNull();
      // A value that equals the polluted one but is the object's own.
      expect(query({ polluted: 'yes' }, { path: 'polluted' })).toBe('yes');
      expect(query([{ polluted: 'yes' }], { q: 'polluted', value: 'yes' })).toStrictEqual([{ polluted: 'yes' }]);
    } finally {
      delete proto['polluted'];
      delete proto['constructor2'];
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
