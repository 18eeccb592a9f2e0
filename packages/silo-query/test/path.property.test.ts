import fc from 'fast-check';
import { JSONPath } from 'jsonpath-plus';
import { describe, expect, it } from 'vitest';
import { compile, query } from '../src/index.js';
import { JsonNumber } from '../src/index.js';
import { exactJsonArb, jsonArb, keyArb, nodes, pathKeyArb, referenceGet } from './arbitraries.js';

const runs = { numRuns: 300 };

/** Keys jsonpath-plus reads literally in bracket notation (it gives meaning to $, @, ~, *, ^, quotes, brackets). */
const jsonPathSafe = (k: string): boolean => /^[A-Za-z0-9_ \-é😀]+$/u.test(k);

function toJsonPath(segments: ReadonlyArray<string | number>): string {
  return `$${segments.map((s) => (typeof s === 'number' ? `[${s}]` : `['${s}']`)).join('')}`;
}

describe('path (property)', () => {
  it('a path built from an existing node returns that node (the very value), via query and compile', () => {
    fc.assert(
      fc.property(jsonArb, (data) => {
        for (const { segments, value } of nodes(data)) {
          if (segments.length === 0) continue;
          const keys = segments.map(String);
          if (keys.some((k) => k.length === 0 || k.includes('.'))) continue;
          const path = keys.join('.');
          expect(query(data, { path })).toBe(value);
          expect(compile(new URLSearchParams({ path }))(data)).toBe(value);
        }
      }),
      runs,
    );
  });

  it('agrees with jsonpath-plus (eval: false) on the same path in bracket notation', () => {
    fc.assert(
      fc.property(jsonArb, (data) => {
        if (typeof data !== 'object' || data === null) return;
        for (const { segments, value } of nodes(data)) {
          if (segments.length === 0) continue;
          if (!segments.every((s) => typeof s === 'number' || jsonPathSafe(s))) continue;
          const path = segments.map(String).join('.');
          const ours = query(data, { path });
          const theirs: unknown = JSONPath({ path: toJsonPath(segments), json: data as object, eval: false, wrap: false });
          expect(ours).toBe(value);
          expect(theirs).toStrictEqual(ours);
        }
      }),
      runs,
    );
  });

  it('on exact data, a path to any node returns that very node, and never steps into a number', () => {
    fc.assert(
      fc.property(exactJsonArb, fc.constantFrom('text', '0', 'length', 'valueOf', 'constructor', '__proto__'), (data, more) => {
        for (const { segments, value } of nodes(data)) {
          const keys = segments.map(String);
          if (keys.some((k) => k.length === 0 || k.includes('.'))) continue;
          if (keys.length > 0) expect(query(data, { path: keys.join('.') })).toBe(value);
          if (value instanceof JsonNumber) expect(query(data, { path: [...keys, more].join('.') })).toBeNull();
        }
      }),
      runs,
    );
  });

  it('any path resolves exactly as the contract reads it (own keys, canonical indexes, null otherwise)', () => {
    fc.assert(
      fc.property(fc.oneof(jsonArb, exactJsonArb), fc.array(fc.oneof(pathKeyArb, fc.constant('text')), { minLength: 1, maxLength: 9 }), (data, keys) => {
        const expected = referenceGet(data, keys);
        expect(query(data, { path: keys.join('.') })).toStrictEqual(expected === undefined ? null : expected);
      }),
      runs,
    );
  });

  it('a path with an empty segment is always a 422, whatever the data', () => {
    fc.assert(
      fc.property(
        jsonArb,
        fc.array(keyArb.filter((k) => !k.includes('.')), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (data, keys, at) => {
          const parts = [...keys];
          parts.splice(at % (parts.length + 1), 0, '');
          const path = parts.join('.');
          expect(() => query(data, { path })).toThrow(expect.objectContaining({ detail: [expect.objectContaining({ loc: ['query', 'path'], type: 'path_segment_empty' })] }));
        },
      ),
      runs,
    );
  });

  it('idx then path equals path on the element', () => {
    fc.assert(
      fc.property(fc.array(jsonArb, { maxLength: 5 }), fc.nat({ max: 6 }), fc.array(pathKeyArb, { minLength: 1, maxLength: 3 }), (data, idx, keys) => {
        const path = keys.join('.');
        const element = idx < data.length ? data[idx] : undefined;
        const expected = element === undefined ? null : query(element, { path });
        expect(query(data, { idx: String(idx), path })).toStrictEqual(expected);
      }),
      runs,
    );
  });
});
