/**
 * The whole query language (contract §16) against a small reference evaluator written here,
 * independently of src/: random filter trees are printed as filter text (with random spacing,
 * quoting and parentheses), run through silo-query with sort, offset, limit and fields, and
 * compared with the reference's answer and count. Also: random filter text never makes the
 * parser throw anything but a 422 whose position lies within the filter.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, JsonNumber, parseJson, SiloQueryError, toJSON } from '../src/index.js';
import {
  codePointCompare,
  iuEqual,
  JSON_NUMBER,
  nearNumberTextArb,
  numberTextArb,
  numberTextOf,
  referenceCompare,
  referenceGet,
  referenceLike,
  referenceTest,
} from './arbitraries.js';

// ---------------------------------------------------------------------------------------------
// Data

const fieldValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, 30, -2.5, '', '1', '30', 'true', 'null', 'abc', 'Abc', 'b', '\u{1F600}', [], [1], ['abc', 30], { x: 1 }),
  fc.integer({ min: -50, max: 50 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
  numberTextArb.map((t) => JsonNumber.from(t)),
  nearNumberTextArb,
);
const KEYS = ['a', 'b', 'first name', 'not', '0'] as const;
const element = fc.oneof(
  { weight: 10, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), fieldValue, { maxKeys: 4 }).map((o) => ({ ...o, n: { a: o['a'], l: [o['b']] } })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, 'a', null, [{ a: 1 }], true, new JsonNumber('1.0')) },
);
const dataArb = fc.array(element, { maxLength: 30 }).map((d) => parseJson(toJSON(d)) as unknown[]);
const PATHS = ['a', 'b', 'first name', 'not', '0', 'n.a', 'n.l.0', 'missing', 'a.x'] as const;

// ---------------------------------------------------------------------------------------------
// Filter trees, their text, and the reference evaluator.

type Op = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'lk' | 'il' | 'has';
type Tree =
  | { k: 'cond'; path: string; op: Op; v: string; bare: boolean }
  | { k: 'in'; path: string; vs: string[] }
  | { k: 'exists'; path: string }
  | { k: 'not'; a: Tree }
  | { k: 'and' | 'or'; items: Tree[] };

const valueArb = fc.oneof(
  fc.constantFrom('', '1', '30', '1.0', '-0', 'true', 'false', 'null', 'abc', 'b', '%', 'a%', '_', '%b%', 'A%', '\u{1F600}'),
  fc.integer({ min: -50, max: 50 }).map(String),
  fc.string({ unit: 'grapheme-ascii', maxLength: 3 }),
  nearNumberTextArb,
);
const safeLike = (op: Op, v: string): boolean => !((op === 'lk' || op === 'il') && /(^|[^\\])(\\\\)*\\$/.test(v));

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      k: fc.constant('cond' as const),
      path: fc.constantFrom(...PATHS),
      op: fc.constantFrom<Op>('eq', 'ne', 'gt', 'lt', 'ge', 'le', 'lk', 'il', 'has'),
      v: valueArb,
      bare: fc.boolean(),
    }).filter((t) => safeLike(t.op, t.v)),
    fc.record({ k: fc.constant('in' as const), path: fc.constantFrom(...PATHS), vs: fc.array(valueArb, { minLength: 1, maxLength: 3 }) }),
    fc.record({ k: fc.constant('exists' as const), path: fc.constantFrom(...PATHS) }),
    fc.record({ k: fc.constant('not' as const), a: tie('tree') }),
    fc.record({ k: fc.constantFrom('and' as const, 'or' as const), items: fc.array(tie('tree'), { minLength: 2, maxLength: 3 }) }),
  ),
})).tree;

/** Conditions (each `in` value counts) and nesting depth, to stay within the bounds. */
function size(t: Tree): { conditions: number; depth: number } {
  switch (t.k) {
    case 'cond':
    case 'exists':
      return { conditions: 1, depth: 0 };
    case 'in':
      return { conditions: t.vs.length, depth: 0 };
    case 'not': {
      const s = size(t.a);
      // A junction under not is printed in parentheses: one more level.
      return { conditions: s.conditions, depth: s.depth + (t.a.k === 'and' || t.a.k === 'or' ? 2 : 1) };
    }
    default: {
      const parts = t.items.map(size);
      // Parts are printed in parentheses: one more level each.
      return { conditions: parts.reduce((n, p) => n + p.conditions, 0), depth: 1 + Math.max(...parts.map((p) => p.depth)) };
    }
  }
}

const BARE = /^[A-Za-z0-9_$-]+$/;
function printPath(path: string, quote: () => boolean): string {
  return path.split('.').map((s) => (BARE.test(s) && s !== 'not' && !quote() ? s : JSON.stringify(s))).join('.');
}
function printLiteral(v: string, bare: boolean): string {
  return bare && (JSON_NUMBER.test(v) || v === 'true' || v === 'false' || v === 'null') ? v : JSON.stringify(v);
}

/** Filter text for a tree: every junction part in parentheses (so precedence never decides), random spacing. */
function print(t: Tree, ws: () => string, quote: () => boolean): string {
  switch (t.k) {
    case 'cond':
      return `${printPath(t.path, quote)} ${ws()}${t.op} ${ws()}${printLiteral(t.v, t.bare)}`;
    case 'in':
      return `${printPath(t.path, quote)} in${ws()}(${t.vs.map((v) => `${ws()}${JSON.stringify(v)}${ws()}`).join(',')})`;
    case 'exists':
      return `${printPath(t.path, quote)} exists`;
    case 'not':
      return t.a.k === 'and' || t.a.k === 'or' ? `not ${ws()}(${print(t.a, ws, quote)})` : `not ${ws()}${print(t.a, ws, quote)}`;
    default:
      return t.items.map((i) => `(${ws()}${print(i, ws, quote)}${ws()})`).join(` ${ws()}${t.k} ${ws()}`);
  }
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
const get = (el: object, path: string): unknown => referenceGet(el, path.split('.'));

/** The reference meaning of a condition, from §5's reference tests and §16's definitions. */
function holds(t: Tree, el: object): boolean {
  switch (t.k) {
    case 'cond': {
      const f = get(el, t.path);
      switch (t.op) {
        case 'eq':
        case 'ne':
        case 'gt':
        case 'lt':
          return referenceTest(t.op, f, t.v);
        case 'ge':
          return referenceTest('gt', f, t.v) || referenceTest('eq', f, t.v);
        case 'le':
          return referenceTest('lt', f, t.v) || referenceTest('eq', f, t.v);
        case 'lk':
          return typeof f === 'string' && referenceLike(f, t.v, (a, b) => a === b);
        case 'il':
          return typeof f === 'string' && referenceLike(f, t.v, iuEqual);
        case 'has':
          return Array.isArray(f) && f.some((x) => referenceTest('eq', x, t.v));
      }
      break;
    }
    case 'in':
      return t.vs.some((v) => referenceTest('eq', get(el, t.path), v));
    case 'exists':
      return get(el, t.path) !== undefined;
    case 'not':
      return !holds(t.a, el);
    case 'and':
      return t.items.every((i) => holds(i, el));
    case 'or':
      return t.items.some((i) => holds(i, el));
  }
}

/** The contract's sort order. */
function rank(v: unknown): number {
  if (v === undefined) return 6;
  if (v === null) return 5;
  if (numberTextOf(v) !== undefined || (typeof v === 'string' && JSON_NUMBER.test(v))) return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return v ? 3 : 2;
  return 4;
}
function compareValues(x: unknown, y: unknown): number {
  const d = rank(x) - rank(y);
  if (d !== 0) return d;
  if (rank(x) === 0) return referenceCompare(numberTextOf(x) ?? (x as string), numberTextOf(y) ?? (y as string));
  if (rank(x) === 1) return codePointCompare(x as string, y as string);
  return 0;
}

/** fields: the listed paths, nested as in the source; arrays keep the listed elements in index order. */
function project(value: unknown, paths: string[][]): unknown {
  if (paths.some((p) => p.length === 0)) return value;
  if (Array.isArray(value)) {
    const idx = [...new Set(paths.map((p) => p[0]!).filter((s) => /^(0|[1-9][0-9]*)$/.test(s)).map(Number))].sort((a, b) => a - b);
    const out = idx.filter((i) => i < value.length).map((i) => project(value[i], paths.filter((p) => p[0] === String(i)).map((p) => p.slice(1))))
      .filter((v) => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of new Set(paths.map((p) => p[0]!))) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const v = project((value as Record<string, unknown>)[key], paths.filter((p) => p[0] === key).map((p) => p.slice(1)));
    if (v !== undefined) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface Request {
  tree: Tree | undefined;
  sort: Array<{ path: string; desc: boolean }>;
  offset: number | undefined;
  limit: number | undefined;
  fields: string[];
}

function reference(data: unknown[], r: Request): { items: unknown[]; total: number } {
  const matches = data.filter(isObject).filter((el) => r.tree === undefined || holds(r.tree, el));
  const sorted = r.sort.length === 0 ? matches : [...matches].sort((x, y) => {
    for (const k of r.sort) {
      const c = compareValues(get(x, k.path), get(y, k.path));
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  });
  const from = r.offset ?? 0;
  const page = sorted.slice(from, r.limit === undefined ? undefined : from + r.limit);
  const items = r.fields.length === 0 ? page : page.map((el) => project(el, r.fields.map((f) => f.split('.'))) ?? {});
  return { items, total: matches.length };
}

// ---------------------------------------------------------------------------------------------

const SORT_PATHS = ['a', 'b', 'first name', 'n.a', 'missing'] as const;
const requestArb: fc.Arbitrary<Request> = fc.record({
  tree: fc.option(treeArb.filter((t) => size(t).conditions <= 32 && size(t).depth <= 8), { nil: undefined, freq: 4 }),
  sort: fc.array(fc.record({ path: fc.constantFrom(...SORT_PATHS), desc: fc.boolean() }), { maxLength: 3 }),
  offset: fc.option(fc.nat(35), { nil: undefined }),
  limit: fc.option(fc.nat(35), { nil: undefined }),
  fields: fc.array(fc.constantFrom('a', 'b', 'n.a', 'n.l.0', 'first name', 'n', 'missing', 'a.x'), { maxLength: 3 }),
});

function paramsOf(r: Request, ws: () => string, quote: () => boolean): Record<string, string> {
  const p: Record<string, string> = {};
  if (r.tree !== undefined) p['filter'] = `${ws()}${print(r.tree, ws, quote)}${ws()}`;
  if (r.sort.length > 0) p['sort'] = r.sort.map((k) => (k.desc ? `-${k.path}` : k.path)).join(',');
  if (r.offset !== undefined) p['offset'] = String(r.offset);
  if (r.limit !== undefined) p['limit'] = String(r.limit);
  if (r.fields.length > 0) p['fields'] = r.fields.join(',');
  return p;
}

const spacing = fc.array(fc.constantFrom('', ' ', '  ', '\t', '\n'), { minLength: 1, maxLength: 8 });

describe('the query language (property)', () => {
  it('agrees with the reference evaluator: filter, sort, offset, limit, fields, and the count', () => {
    fc.assert(
      fc.property(dataArb, requestArb, spacing, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), (data, r, spaces, quotes) => {
        let i = 0;
        let j = 0;
        const params = paramsOf(r, () => spaces[i++ % spaces.length]!, () => quotes[j++ % quotes.length]!);
        const compiled = compile(params);
        if (Object.keys(params).length === 0) {
          // No parameter at all: the data as it is, not a list.
          expect(compiled(data)).toBe(data);
          expect(compiled.lists).toBe(false);
          return;
        }
        const expected = reference(data, r);
        const run = compiled.run(data);
        expect(run.items).toStrictEqual(expected.items);
        expect(compiled(data)).toStrictEqual(expected.items);
        expect(run.total).toBe(expected.total);
        expect(compiled.json(data)).toEqual({ text: toJSON(run.items), total: run.total });
        expect(compiled.reportsTotal).toBe(r.tree !== undefined || r.offset !== undefined || r.limit !== undefined);
      }),
      { numRuns: 1500 },
    );
  });

  it('random filter text: a result, or a 422 at ["query","filter"] whose position lies within the text', () => {
    const token = fc.oneof(
      fc.constantFrom('a', 'b.c', '"x y"', '"', '.', '..', '(', ')', ',', ' ', 'and', 'or', 'not', 'in', 'exists', 'eq', 'ne', 'gt', 'lt', 'ge', 'le', 'lk', 'il', 'has'),
      fc.constantFrom('1', '-1', '1.5', '1e3', '01', '+1', 'true', 'null', '"a%"', '"\\\\"', '"\\u00e9"', '"\\q"', 'AND', '\u{1F600}', '%', '\\'),
      fc.string({ unit: 'binary', maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 25 }).map((t) => t.join(' ')), dataArb, (text, data) => {
        try {
          compile({ filter: text })(data);
        } catch (e) {
          expect(e).toBeInstanceOf(SiloQueryError);
          for (const item of (e as SiloQueryError).detail) {
            expect(item.loc).toStrictEqual(['query', 'filter']);
            const position = item.ctx?.['position'];
            expect(typeof position).toBe('number');
            expect(position!).toBeGreaterThanOrEqual(0);
            expect(position!).toBeLessThanOrEqual(Array.from(text).length);
            expect(item.msg).toContain(`position ${position!}`);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
