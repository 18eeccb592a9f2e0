/**
 * Writes the case files of the query language (contract §16) into test/cases/:
 * filter-ops.json, filter.json, filter-errors.json, sort.json, paging.json, fields.json,
 * list-params.json. Run with: `npx tsx packages/silo-query/test/tools/list-cases.ts`.
 *
 * Why a script: the cases are written here as compact tables whose expected results are element
 * ids (or literal JSON), chosen by hand; the script expands them into the suite's format
 * (test/cases/README.md). filter-ops.json alone is derived, from the contract's own definitions:
 * each `path op literal` must match exactly what §5's search `q=path&value=V&op=op` matches, so
 * its expected ids come from the §5 reference tests of test/arbitraries.ts (written from the
 * contract's wording, independently of src/), combined as §16 defines ge, le, in, has, exists.
 *
 * The script never imports the query engine (src/query.ts and what it builds on): only
 * `parseJson` and `JsonNumber`, to keep the data's numbers exact.
 */
import { writeFileSync } from 'node:fs';
import { JsonNumber } from '../../src/json-number.js';
import { parseJson } from '../../src/json-parse.js';
import { iuEqual, referenceGet, referenceLike, referenceTest } from '../arbitraries.js';

type Params = Record<string, string> | string;
interface ErrorItem {
  loc: [string, string];
  type: string;
  ctx?: Record<string, number>;
}
interface Case {
  name: string;
  data?: unknown;
  params: Params;
  result?: unknown;
  total?: number | null;
  error?: ErrorItem;
  errors?: ErrorItem[];
}

const dir = new URL('../cases/', import.meta.url);

// ---------------------------------------------------------------------------------------------
// Writing JSON: numbers exactly as in the data (a JsonNumber by its text), short values on one line.

function compact(v: unknown): string {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(compact).join(', ')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}: ${compact((v as Record<string, unknown>)[k])}`).join(', ')}}`;
  }
  return JSON.stringify(v);
}

function pretty(v: unknown, indent: string): string {
  const one = compact(v);
  if (one.length + indent.length <= 100 || v instanceof JsonNumber || typeof v !== 'object' || v === null) return one;
  const inner = `${indent}  `;
  if (Array.isArray(v)) return `[\n${v.map((x) => inner + pretty(x, inner)).join(',\n')}\n${indent}]`;
  const keys = Object.keys(v);
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${pretty((v as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
}

function writeFile(name: string, description: string, data: unknown, cases: Case[]): void {
  const names = new Set<string>();
  for (const c of cases) {
    if (names.has(c.name)) throw new Error(`${name}: two cases named ${c.name}`);
    names.add(c.name);
  }
  // A case whose data is the file's own leaves it out (the file's data applies).
  const stated = cases.map((c) => (data !== undefined && c.data === data ? (({ data: _, ...rest }) => rest)(c) : c));
  const body = { description, ...(data === undefined ? {} : { data }), cases: stated };
  writeFileSync(new URL(name, dir), `${pretty(body, '')}\n`);
  console.log(`${name}: ${cases.length} cases`);
}

// ---------------------------------------------------------------------------------------------
// Helpers for the tables.

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** The elements of `data` with these ids, in this order. */
function byIds(data: unknown, ids: readonly number[]): unknown[] {
  const objects = (data as unknown[]).filter(isObject);
  return ids.map((id) => {
    const found = objects.find((o) => (o['id'] as unknown) === id);
    if (found === undefined) throw new Error(`no element with id ${id}`);
    return found;
  });
}

const syntax = (position: number): ErrorItem => ({ loc: ['query', 'filter'], type: 'filter_syntax', ctx: { position } });
const emptySegment = (position: number): ErrorItem => ({ loc: ['query', 'filter'], type: 'path_segment_empty', ctx: { position } });
const at = (param: string, type: string, ctx?: Record<string, number>): ErrorItem =>
  ctx === undefined ? { loc: ['query', param], type } : { loc: ['query', param], type, ctx };

/** A filter case over `data` whose result is the elements with `ids`, in order; the total is their number. */
function filterCase(data: unknown, name: string, filter: string, ids: readonly number[], extra: Record<string, string> = {}): Case {
  return { name, params: { filter, ...extra }, result: byIds(data, ids), total: ids.length };
}

// ---------------------------------------------------------------------------------------------
// filter-ops.json: every operator on every kind of value, against §5's reference.

const TYPED_TEXT = `[
  {"id": 0, "v": 30}, {"id": 1, "v": "30"}, {"id": 2, "v": 30.0}, {"id": 3, "v": "abc"},
  {"id": 4, "v": true}, {"id": 5, "v": false}, {"id": 6, "v": null}, {"id": 7, "v": {"x": 30}},
  {"id": 8, "v": [30, "abc", null, true]}, {"id": 9}, {"id": 10, "v": "true"}, {"id": 11, "v": "null"},
  {"id": 12, "v": -5}, {"id": 13, "v": "1e2"}, {"id": 14, "v": ""}, {"id": 15, "v": "Abc"},
  {"id": 16, "v": 12345678901234567890}, {"id": 17, "v": 100}, {"id": 18, "v": "b"}, {"id": 19, "v": "\\ud83d\\ude00"},
  {"id": 20, "v": []}, {"id": 21, "v": [[30], {"x": 1}, 3e1]},
  7, "30", null, [30], true, 30.0
]`;
const TYPED = parseJson(TYPED_TEXT) as unknown[];

/** `value` as §5 would get it: a string literal's content, or the literal's JSON text. */
const valueOf = (literal: string): string => (literal.startsWith('"') ? (JSON.parse(literal) as string) : literal);

type Op = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'lk' | 'il' | 'has';

/** §16's definitions over §5's reference tests. */
function referenceCondition(op: Op, field: unknown, v: string): boolean {
  switch (op) {
    case 'eq':
    case 'ne':
    case 'gt':
    case 'lt':
      return referenceTest(op, field, v);
    case 'ge':
      return referenceTest('gt', field, v) || referenceTest('eq', field, v);
    case 'le':
      return referenceTest('lt', field, v) || referenceTest('eq', field, v);
    case 'lk':
      return typeof field === 'string' && referenceLike(field, v, (t, p) => t === p);
    case 'il':
      return typeof field === 'string' && referenceLike(field, v, iuEqual);
    case 'has':
      return Array.isArray(field) && field.some((e) => referenceTest('eq', e, v));
  }
}

function idsWhere(data: readonly unknown[], test: (el: Record<string, unknown>) => boolean): number[] {
  return data.filter(isObject).filter(test).map((o) => o['id'] as number);
}

function filterOps(): Case[] {
  const cases: Case[] = [];
  const add = (name: string, filter: string, ids: number[]): void => {
    cases.push(filterCase(TYPED, name, filter, ids));
  };
  const get = (path: string) => (el: Record<string, unknown>): unknown => referenceGet(el, path.split('.'));
  const literals = [
    '30', '"30"', '30.0', '3e1', '-5', '1e2', '12345678901234567890', '12345678901234567891', '"abc"', '"b"', '"Abc"',
    'true', 'false', 'null', '"true"', '"null"', '""', '"\\ud83d\\ude00"',
  ];
  for (const op of ['eq', 'ne', 'gt', 'lt', 'ge', 'le'] as const) {
    for (const lit of literals) {
      const v = valueOf(lit);
      add(`v ${op} ${lit}`, `v ${op} ${lit}`, idsWhere(TYPED, (el) => referenceCondition(op, get('v')(el), v)));
    }
  }
  // Nested paths and array indexes go through the same matchers.
  for (const [path, op, lit] of [
    ['v.x', 'eq', '30'], ['v.x', 'gt', '1'], ['v.x', 'ne', '30'], ['v.0', 'eq', '30'], ['v.0', 'lt', '"b"'], ['v.1', 'eq', '"abc"'],
    ['v.3', 'eq', 'true'], ['v.2', 'eq', 'null'], ['v.0.0', 'eq', '30'], ['v.2', 'ge', '30'], ['v.9', 'ne', '1'], ['w', 'ne', 'null'],
  ] as const) {
    const v = valueOf(lit);
    add(`${path} ${op} ${lit}`, `${path} ${op} ${lit}`, idsWhere(TYPED, (el) => referenceCondition(op, get(path)(el), v)));
  }
  for (const op of ['lk', 'il'] as const) {
    for (const lit of ['"%b%"', '"a%"', '"_"', '"%"', '"ABC"', '"%\\ud83d\\ude00"', '"3_"', '"30"', '"%\\\\%%"', '""']) {
      const v = valueOf(lit);
      add(`v ${op} ${lit}`, `v ${op} ${lit}`, idsWhere(TYPED, (el) => referenceCondition(op, get('v')(el), v)));
    }
  }
  for (const lit of ['30', '"30"', '3e1', '"abc"', 'null', 'true', '"x"', '1']) {
    const v = valueOf(lit);
    add(`v has ${lit}`, `v has ${lit}`, idsWhere(TYPED, (el) => referenceCondition('has', get('v')(el), v)));
  }
  for (const list of [['30', '"abc"'], ['true', 'null'], ['"30"'], ['1e2', '-5', '"b"'], ['"nothing"', 'false'], ['3e1', '30', '30.0']]) {
    const vs = list.map(valueOf);
    add(`v in (${list.join(', ')})`, `v in (${list.join(', ')})`,
      idsWhere(TYPED, (el) => vs.some((v) => referenceCondition('eq', get('v')(el), v))));
  }
  for (const path of ['v', 'v.x', 'v.0', 'v.9', 'w', 'id']) {
    add(`${path} exists`, `${path} exists`, idsWhere(TYPED, (el) => get(path)(el) !== undefined));
  }
  // not: the complement over object elements (never the non-object elements).
  for (const [op, lit] of [['eq', '30'], ['gt', '"b"'], ['lk', '"%"'], ['has', '30'], ['eq', 'null']] as const) {
    const v = valueOf(lit);
    add(`not v ${op} ${lit}`, `not v ${op} ${lit}`, idsWhere(TYPED, (el) => !referenceCondition(op, get('v')(el), v)));
  }
  add('not v exists', 'not v exists', idsWhere(TYPED, (el) => get('v')(el) === undefined));
  add('not v in (30, "abc")', 'not v in (30, "abc")', idsWhere(TYPED, (el) => !['30', 'abc'].some((v) => referenceCondition('eq', get('v')(el), v))));
  return cases;
}

// ---------------------------------------------------------------------------------------------
// filter.json: the grammar, by hand.

const PEOPLE_TEXT = `[
  {"id": 0, "name": "Ann", "age": 30, "city": "Oslo", "tags": ["a", "b"], "active": true,
   "first name": {"city": "Rome"}, "a.b": 1, "price": 150, "category": "tools"},
  {"id": 1, "name": "bob", "age": "41", "city": "Lisbon", "tags": [], "active": false, "price": 90, "category": "tools"},
  {"id": 2, "name": "Cy", "age": 25.5, "city": "Lisbon", "active": true, "price": 300, "category": "toys",
   "first name": {"city": "Oslo"}},
  {"id": 3, "name": "Dee \\"D\\" O'Neil", "age": null, "tags": ["b"], "price": "120", "category": "tools", "a": {"b": 2}},
  {"id": 4, "name": "\\u00c9mile", "age": 60, "city": "Paris", "price": 100, "category": "books", "\\\\": "back"},
  {"id": 5, "name": "Zed", "age": 41, "city": "Oslo", "active": true, "price": 100.0, "category": "tools", "tags": ["a"]},
  "x", 5, null, ["Ann"]
]`;
const PEOPLE = parseJson(PEOPLE_TEXT) as unknown[];

function filterGrammar(): Case[] {
  const c = (name: string, filter: string, ids: number[], extra?: Record<string, string>): Case => filterCase(PEOPLE, name, filter, ids, extra);
  const pad = (s: string, length: number): string => s + ' '.repeat(length - s.length);
  const cases: Case[] = [
    c('price > 100 and category = tools', 'price gt 100 and category eq "tools"', [0, 3]),
    c('or: either condition', 'price gt 100 or category eq "books"', [0, 2, 3, 4]),
    c('and binds tighter than or (or first)', 'category eq "tools" or category eq "books" and price gt 100', [0, 1, 3, 5]),
    c('parentheses change the grouping', '(category eq "tools" or category eq "books") and price gt 100', [0, 3]),
    c('and binds tighter than or (or last)', 'price gt 100 and category eq "toys" or category eq "books"', [2, 4]),
    c('parentheses around the or', 'price gt 100 and (category eq "toys" or category eq "books")', [2]),
    c('not binds tighter than and', 'not category eq "tools" and price gt 100', [2]),
    c('not of a parenthesised and', 'not (category eq "tools" and price gt 100)', [1, 2, 4, 5]),
    c('not not is the condition', 'not not category eq "tools"', [0, 1, 3, 5]),
    c('not binds tighter than or', 'not category eq "tools" or price gt 200', [2, 4]),
    c('three-way and', 'category eq "tools" and age exists and tags exists', [0, 1, 3, 5]),
    c('three-way or', 'city eq "Paris" or city eq "Rome" or name eq "Zed"', [4, 5]),
    c('nested parentheses', '((city eq "Oslo") or (city eq "Paris" and (price ge 100)))', [0, 4, 5]),
    c('redundant parentheses', '(((name eq "Ann")))', [0]),
    c('and of ors', '(city eq "Oslo" or city eq "Paris") and (price eq 100 or price eq 150)', [0, 4, 5]),
    c('or of ands', '(city eq "Oslo" and price eq 100) or (city eq "Lisbon" and price eq 300)', [2, 5]),
    c('no whitespace around parentheses', '(price gt 100)and(category eq "tools")', [0, 3]),
    c('no whitespace before a string literal', 'category eq"toys"', [2]),
    c('tabs and newlines are whitespace', '\tprice\ngt\r\n100  and\t\tcategory eq "tools" ', [0, 3]),
    c('a number field and a numeric string both compare numerically', 'age gt 30', [1, 4, 5]),
    c('ge is gt or eq', 'age ge 30', [0, 1, 4, 5]),
    c('le is lt or eq', 'age le 30', [0, 2]),
    c('lt', 'age lt 30', [2]),
    c('ge and le: a range', 'age ge 30 and age le 41', [0, 1, 5]),
    c('a numeric string field equals the text of a number literal', 'age eq 41', [1, 5]),
    c('41.0 equals the number 41, not the string "41"', 'age eq 41.0', [5]),
    c('a string literal means what its content means to §5 ("41" = 41)', 'age eq "41"', [1, 5]),
    c('price 100 equals 100 and 100.0', 'price eq 100', [4, 5]),
    c('1e2 is 100', 'price eq 1e2', [4, 5]),
    c('"100" as a string literal is §5 value=100', 'price eq "100"', [4, 5]),
    c('a string field "120" equals 120 as text', 'price eq 120', [3]),
    c('gt on a numeric string field', 'price gt 110', [0, 2, 3]),
    c('eq null: a null field', 'age eq null', [3]),
    c('ne null: everything else, a missing field too', 'age ne null', [0, 1, 2, 4, 5]),
    c('ne: a missing field matches', 'city ne "Oslo"', [1, 2, 3, 4]),
    c('exists: null counts as present', 'age exists', [0, 1, 2, 3, 4, 5]),
    c('exists on a field some lack', 'tags exists', [0, 1, 3, 5]),
    c('not exists', 'not tags exists', [2, 4]),
    c('eq true: only the boolean', 'active eq true', [0, 2, 5]),
    c('eq "true" is value=true: the boolean too', 'active eq "true"', [0, 2, 5]),
    c('ne true', 'active ne true', [1, 3, 4]),
    c('eq false', 'active eq false', [1]),
    c('in: any of the values', 'city in ("Oslo", "Paris")', [0, 4, 5]),
    c('in with one value', 'age in (41)', [1, 5]),
    c('in with null and a number', 'age in (null, 25.5)', [2, 3]),
    c('in without spaces', 'city in("Oslo","Lisbon")', [0, 1, 2, 5]),
    c('in with spaces everywhere', 'city in ( "Paris" , "Rome" )', [4]),
    c('not in: a missing field is not in the list', 'not city in ("Oslo")', [1, 2, 3, 4]),
    c('has: an array holding the value', 'tags has "a"', [0, 5]),
    c('has another value', 'tags has "b"', [0, 3]),
    c('has on an empty array, or no array', 'tags has "c"', []),
    c('has on a string field never matches', 'name has "Ann"', []),
    c('not has', 'not tags has "a"', [1, 2, 3, 4]),
    c('lk: whole-string LIKE', 'name lk "%e%"', [3, 4, 5]),
    c('lk: _ is one character', 'name lk "___"', [0, 1, 5]),
    c('il: case-insensitive', 'name il "a%"', [0]),
    c('il: É folds to é', 'name il "é%"', [4]),
    c('lk with an escaped quote in the pattern', 'name lk "%\\"D\\"%"', [3]),
    c('lk with a number literal is the pattern of its text', 'age lk 41', [1]),
    c('quoted path segment with a space', '"first name".city eq "Rome"', [0]),
    c('every segment quoted', '"first name"."city" eq "Oslo"', [2]),
    c('a quoted segment may hold a dot: one key', '"a.b" eq 1', [0]),
    c('bare a.b is two segments', 'a.b eq 2', [3]),
    c('a quoted segment with an escaped backslash', '"\\\\" eq "back"', [4]),
    c('exists through a quoted segment', '"first name".city exists', [0, 2]),
    c('array index in a path', 'tags.0 eq "b"', [3]),
    c('array index exists', 'tags.1 exists', [0]),
    c('string escapes: \\"', 'name eq "Dee \\"D\\" O\'Neil"', [3]),
    c('string escapes: \\u00c9', 'name eq "\\u00c9mile"', [4]),
    c('string escapes: upper-case hex', 'name eq "\\u00C9mile"', [4]),
    c('a literal non-ASCII character', 'name eq "Émile"', [4]),
    c('string escapes inside a word', 'city eq "Osl\\u006f"', [0, 5]),
    c('string escapes: \\/ is /', 'name ne "\\/"', [0, 1, 2, 3, 4, 5]),
    c('nothing matches: [] with total 0', 'name eq "nobody"', []),
    c('non-object elements never match, not even not', 'not name eq "x"', [0, 1, 2, 3, 4, 5]),
    c('32 conditions are allowed (each value of in counts)', `id in (${Array.from({ length: 32 }, (_, i) => i).join(', ')})`, [0, 1, 2, 3, 4, 5]),
    c('32 conditions joined by or', Array.from({ length: 32 }, (_, i) => `id eq ${i + 10}`).join(' or ') + '', []),
    c('nesting depth 8 with parentheses is allowed', `${'('.repeat(8)}id eq 1${')'.repeat(8)}`, [1]),
    c('nesting depth 8 with not is allowed', `${'not '.repeat(8)}id eq 1`, [1]),
    c('nesting depth 8 mixing not and parentheses', `not (not (not (not (id eq 1))))`, [1]),
    c('a filter of exactly 4096 characters is allowed', pad('id eq 2', 4096), [2]),
    c('4096 code points with an emoji (4097 UTF-16 units) is allowed', pad('name ne "\u{1F600}"', 4097), [0, 1, 2, 3, 4, 5]),
  ];
  // The URL form: + and %20 are spaces, %22 a quote.
  cases.push({ name: 'the query string form: + for spaces, %22 for quotes', params: 'filter=city+eq+%22Oslo%22%20and+price+eq+100', result: byIds(PEOPLE, [5]), total: 1 });

  const other = (name: string, text: string, filter: string, ids: number[]): Case => {
    const data = parseJson(text) as unknown[];
    return { name, data, params: { filter }, result: byIds(data, ids), total: ids.length };
  };
  cases.push(
    other('an own __proto__ key, bare', '[{"id": 0, "__proto__": {"x": 1}}, {"id": 1}]', '__proto__.x eq 1', [0]),
    other('an own __proto__ key, quoted', '[{"id": 0, "__proto__": {"x": 1}}, {"id": 1}]', '"__proto__" exists', [0]),
    other('inherited properties never resolve', '[{"id": 0}, {"id": 1, "constructor": 1}]', 'constructor exists or toString exists', [1]),
    other('words as keys: and, or, in are paths where a path stands', '[{"id": 0, "and": 1, "or": 2, "in": 3}, {"id": 1}]', 'and eq 1 and or eq 2 and in eq 3', [0]),
    other('a key named not must be quoted', '[{"id": 0, "not": 1}, {"id": 1, "not": 2}]', '"not" eq 1', [0]),
    other('not.x is a path (not followed by a dot)', '[{"id": 0, "not": {"x": 1}}, {"id": 1}]', 'not.x eq 1', [0]),
    other('bare segments: letters of any script, digits, _, $, -', '[{"id": 0, "größe": 1, "$ref": "x", "k-1": 2, "_9": 3}, {"id": 1}]',
      'größe eq 1 and $ref eq "x" and k-1 eq 2 and _9 eq 3', [0]),
    other('a segment may start with a digit or -', '[{"id": 0, "1st": 1, "-x": 2}, {"id": 1}]', '1st eq 1 and -x eq 2', [0]),
    other('-0 equals 0', '[{"id": 0, "v": 0}, {"id": 1, "v": -0}, {"id": 2, "v": 0.0}, {"id": 3, "v": "0"}]', 'v eq -0', [0, 1, 2]),
    other('1E+2 literal equals 100', '[{"id": 0, "v": 100}, {"id": 1, "v": "100"}, {"id": 2, "v": 1e2}]', 'v eq 1E+2', [0, 2]),
    other('exact numbers: 2^53 + 1 is not 2^53', '[{"id": 0, "v": 9007199254740992}, {"id": 1, "v": 9007199254740993}]', 'v eq 9007199254740993', [1]),
    other('exact numbers: gt between neighbours', '[{"id": 0, "v": 12345678901234567890}, {"id": 1, "v": 12345678901234567891}]', 'v gt 12345678901234567890', [1]),
    other('exact numbers: 1e400 > 1e399', '[{"id": 0, "v": 1e400}, {"id": 1, "v": 1e399}, {"id": 2, "v": "1e401"}]', 'v gt 1e399', [0, 2]),
    other('code point order, not UTF-16 order', '[{"id": 0, "v": "\\uff61"}, {"id": 1, "v": "\\ud83d\\ude00"}]', 'v gt "\\uff61"', [1]),
    other('a JsonNumber element is a number, not an object', '[1.0, {"id": 1, "text": "1.0"}]', 'text exists', [1]),
    other('has with a nested array element that is eq-matched only by value', '[{"id": 0, "v": [1.0, 2]}, {"id": 1, "v": ["1"]}, {"id": 2, "v": [[1]]}]', 'v has 1', [0, 1]),
    other('deep paths', '[{"id": 0, "a": {"b": {"c": {"d": [0, {"e": "x"}]}}}}, {"id": 1, "a": {"b": 1}}]', 'a.b.c.d.1.e eq "x"', [0]),
    other('empty data: [] with total 0', '[]', 'id exists', []),
    other('only non-objects: []', '[1, "a", null, [1], true]', 'not id exists', []),
  );
  return cases;
}

// ---------------------------------------------------------------------------------------------
// filter-errors.json: every problem, with its position (code points, 0-based).

function filterErrors(): Case[] {
  const e = (name: string, filter: string, ...errors: ErrorItem[]): Case =>
    errors.length === 1 ? { name, params: { filter }, error: errors[0]! } : { name, params: { filter }, errors };
  const many = Array.from({ length: 33 }, (_, i) => `id eq ${i}`).join(' or ');
  const inMany = `id in (${Array.from({ length: 33 }, (_, i) => i).join(', ')})`;
  const mixedMany = `id exists and ${Array.from({ length: 31 }, (_, i) => `id ne ${i}`).join(' and ')} and id in (1, 2)`;
  const span = `name lk "%a_${'a'.repeat(31)}b%"`;
  return [
    e('empty filter', '', syntax(0)),
    e('only whitespace', '   ', syntax(3)),
    e('a path without an operator', 'price', syntax(5)),
    e('an operator without a literal', 'price gt', syntax(8)),
    e('and without a second condition', 'price gt 100 and', syntax(16)),
    e('or without a second condition', 'price gt 100 or ', syntax(16)),
    e('an upper-case operator', 'price GT 100', syntax(6)),
    e('an upper-case and', 'price gt 100 AND x eq 1', syntax(13)),
    e('an upper-case NOT is read as a path, then an operator is missing', 'NOT price gt 1', syntax(4)),
    e('an upper-case literal', 'active eq True', syntax(10)),
    e('an unknown operator', 'price between 1', syntax(6)),
    e('= is not an operator', 'price = 100', syntax(6)),
    e('&& is not and', 'price eq 1 && x eq 2', syntax(11)),
    e('two literals', 'price eq 1 2', syntax(11)),
    e('a bare word is not a literal', 'city eq Oslo', syntax(8)),
    e('a single-quoted string is not a literal', "city eq 'Oslo'", syntax(8)),
    e('a leading zero', 'price gt 01', syntax(9)),
    e('a leading +', 'price gt +1', syntax(9)),
    e('a trailing point', 'price gt 1.', syntax(9)),
    e('a leading point', 'price gt .5', syntax(9)),
    e('an exponent without digits', 'price gt 1e', syntax(9)),
    e('a number run into a word', 'price gt 30and x eq 1', syntax(9)),
    e('hexadecimal', 'price gt 0x10', syntax(9)),
    e('a literal that is nothing', 'price eq @', syntax(9)),
    e('a closing parenthesis without an opening one', 'price gt 100)', syntax(12)),
    e('an opening parenthesis never closed', '(price gt 100', syntax(13)),
    e('one of two parentheses never closed', '((price gt 100)', syntax(15)),
    e('empty parentheses', '()', syntax(1)),
    e('a closing parenthesis first', ')', syntax(0)),
    e('not alone', 'not', syntax(3)),
    e('not and an open parenthesis', 'not (', syntax(5)),
    e('exists takes no literal', 'price exists 1', syntax(13)),
    e('in without a list', 'price in 1', syntax(9)),
    e('in with an empty list', 'price in ()', syntax(10)),
    e('in without a comma', 'price in (1 2)', syntax(12)),
    e('in with a trailing comma', 'price in (1,)', syntax(12)),
    e('in never closed', 'price in (1', syntax(11)),
    e('an unterminated string', 'name eq "abc', syntax(12)),
    e('an unknown escape', 'name eq "a\\qb"', syntax(10)),
    e('a short \\u escape', 'name eq "\\u12"', syntax(9)),
    e('a raw control character in a string', 'name eq "a\tb"', syntax(10)),
    e('an unterminated quoted path', '"first name', syntax(11)),
    e('positions count code points: an emoji is one', '"\u{1F600}" eq 1 and x', syntax(14)),
    e('an empty segment inside a path', 'a..b eq 1', emptySegment(2)),
    e('a trailing dot', 'a. eq 1', emptySegment(2)),
    e('a leading dot', '.a eq 1', emptySegment(0)),
    e('an empty quoted segment', '"" eq 1', emptySegment(0)),
    e('an empty quoted segment after a dot', 'a."" eq 1', emptySegment(2)),
    e('an empty segment in a later condition', 'a eq 1 and .b eq 2', emptySegment(11)),
    e('a LIKE pattern ending in a backslash', 'name lk "a\\\\"', at('filter', 'like_pattern_invalid', { position: 8 })),
    e('every refused LIKE pattern is listed', 'name lk "a\\\\" or name il "b\\\\"',
      at('filter', 'like_pattern_invalid', { position: 8 }), at('filter', 'like_pattern_invalid', { position: 25 })),
    e('a refused LIKE pattern, then a syntax error', 'name lk "a\\\\" and', at('filter', 'like_pattern_invalid', { position: 8 }), syntax(17)),
    e('a LIKE part with _ spanning more than 32 characters', span, at('filter', 'like_pattern_too_long', { max_span: 32, position: 8 })),
    e('a backslash at the end is fine for eq (not a pattern)', 'name eq "a\\\\" and x', syntax(19)),
    e('longer than 4096 characters', `id eq 0${' '.repeat(4090)}`, at('filter', 'filter_too_long', { max_length: 4096, position: 4096 })),
    e('too long is checked before the syntax', `(${'x'.repeat(5000)}`, at('filter', 'filter_too_long', { max_length: 4096, position: 4096 })),
    e('33 conditions', many, at('filter', 'filter_too_many_conditions', { max_conditions: 32, position: many.lastIndexOf('id eq 32') })),
    e('33 values in one in list', inMany, at('filter', 'filter_too_many_conditions', { max_conditions: 32, position: inMany.lastIndexOf('32') })),
    e('conditions and in values together over 32', mixedMany,
      at('filter', 'filter_too_many_conditions', { max_conditions: 32, position: mixedMany.lastIndexOf('(1, 2)') + 1 })),
    e('9 levels of parentheses', `${'('.repeat(9)}id eq 0${')'.repeat(9)}`, at('filter', 'filter_too_deep', { max_depth: 8, position: 8 })),
    e('9 levels of not', `${'not '.repeat(9)}id eq 0`, at('filter', 'filter_too_deep', { max_depth: 8, position: 32 })),
    e('9 levels of not and parentheses', `not (${'not ('.repeat(3)}not (not (not (not id eq 1)))))))`,
      at('filter', 'filter_too_deep', { max_depth: 8, position: 20 })),
  ];
}

// ---------------------------------------------------------------------------------------------
// sort.json

const MIXED_TEXT = `[
  {"id": 0, "v": "b"}, {"id": 1, "v": 10}, {"id": 2, "v": null}, {"id": 3, "v": "10"}, {"id": 4, "v": true},
  {"id": 5}, {"id": 6, "v": {"a": 1}}, {"id": 7, "v": "A"}, {"id": 8, "v": false}, {"id": 9, "v": [1]},
  {"id": 10, "v": -1.5}, {"id": 11, "v": "1e1"}, {"id": 12, "v": 9.99}, {"id": 13, "v": ""},
  {"id": 14, "v": "\\ud83d\\ude00"}, {"id": 15, "v": "\\uff61"}, {"id": 16, "v": 10.0},
  {"id": 17, "v": 12345678901234567891}, {"id": 18, "v": 12345678901234567890}, {"id": 19, "v": "b"},
  7, "s", null, [0]
]`;
const MIXED = parseJson(MIXED_TEXT) as unknown[];

const TEAM_TEXT = `[
  {"id": 0, "name": "Ann", "team": "red", "score": 7, "joined": {"year": 2020}},
  {"id": 1, "name": "Bob", "team": "blue", "score": 9, "joined": {"year": 2019}},
  {"id": 2, "name": "Cy", "team": "red", "score": 9, "joined": {"year": 2021}},
  {"id": 3, "name": "Dee", "team": "blue", "score": 7},
  {"id": 4, "name": "Eve", "team": "red", "score": 7, "joined": {"year": 2019}},
  {"id": 5, "name": "Fay", "score": 9, "joined": {"year": 2020}},
  {"id": 6, "name": "ann", "team": "blue", "score": "8", "joined": {"year": 2020}}
]`;
const TEAM = parseJson(TEAM_TEXT) as unknown[];

function sortCases(): Case[] {
  const s = (data: unknown[], name: string, params: Record<string, string>, ids: number[], total: number | null = null): Case =>
    ({ name, data, params, result: byIds(data, ids), total });
  const ascending = [10, 12, 1, 3, 11, 16, 18, 17, 13, 7, 0, 19, 15, 14, 8, 4, 6, 9, 2, 5];
  const descending = [5, 2, 6, 9, 4, 8, 14, 15, 0, 19, 7, 13, 17, 18, 1, 3, 11, 16, 12, 10];
  const other = (name: string, text: string, params: Record<string, string>, ids: number[], total: number | null = null): Case =>
    s(parseJson(text) as unknown[], name, params, ids, total);
  return [
    s(MIXED, 'ascending over every type: numbers, strings, false, true, containers, null, missing', { sort: 'v' }, ascending),
    s(MIXED, 'descending is the exact reverse; ties keep array order', { sort: '-v' }, descending),
    s(MIXED, 'numbers only, ascending: numeric strings by value, ties in array order', { sort: 'v', filter: 'v ge -1e9 and v le 1e30' }, [10, 12, 1, 3, 11, 16, 18, 17], 8),
    s(MIXED, 'strings that are not numbers: code point order (U+FF61 before U+1F600)', { sort: 'v', filter: 'v lk "%" and not v in ("10", "1e1")' }, [13, 7, 0, 19, 15, 14], 6),
    s(MIXED, 'strings descending', { sort: '-v', filter: 'v lk "%" and not v in ("10", "1e1")' }, [14, 15, 0, 19, 7, 13], 6),
    s(MIXED, 'exact numbers: 12345678901234567890 before 12345678901234567891', { sort: 'v', filter: 'v gt 1e18 and v lt 1e30' }, [18, 17], 2),
    s(MIXED, 'exact numbers descending', { sort: '-v', filter: 'v gt 1e18 and v lt 1e30' }, [17, 18], 2),
    s(MIXED, 'a tie of 10, "10", "1e1" and 10.0 keeps array order', { sort: 'v', filter: 'v gt 9.995 and v lt 10.005' }, [1, 3, 11, 16], 4),
    s(MIXED, 'the same tie descending still keeps array order', { sort: '-v', filter: 'v gt 9.995 and v lt 10.005' }, [1, 3, 11, 16], 4),
    s(MIXED, 'false before true', { sort: 'v', filter: 'v in (true, false)' }, [8, 4], 2),
    s(MIXED, 'true before false descending', { sort: '-v', filter: 'v in (true, false)' }, [4, 8], 2),
    s(MIXED, 'objects and arrays are equal to each other', { sort: 'v', filter: 'v.0 exists or v.a exists' }, [6, 9], 2),
    s(MIXED, 'objects and arrays are equal descending too', { sort: '-v', filter: 'v.0 exists or v.a exists' }, [6, 9], 2),
    s(MIXED, 'null before missing', { sort: 'v', filter: 'not v ne null or not v exists' }, [2, 5], 2),
    s(MIXED, 'missing before null descending', { sort: '-v', filter: 'not v ne null or not v exists' }, [5, 2], 2),
    s(MIXED, 'a path that resolves nowhere keeps array order', { sort: 'nothing' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
    s(MIXED, 'descending on a path that resolves nowhere keeps array order too', { sort: '-nothing' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
    s(MIXED, 'sort by a unique key', { sort: '-id' }, [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    s(MIXED, 'the second key breaks ties of the first', { sort: 'v,-id', filter: '(v gt 9.995 and v lt 10.005) or v eq "b"' }, [16, 11, 3, 1, 19, 0], 6),
    s(MIXED, 'sort with limit picks the first of the order', { sort: 'v', limit: '3' }, [10, 12, 1], 20),
    s(MIXED, 'sort with limit inside a tie keeps array order', { sort: 'v', limit: '4', offset: '2' }, [1, 3, 11, 16], 20),
    s(MIXED, 'descending with limit', { sort: '-v', limit: '5' }, [5, 2, 6, 9, 4], 20),
    s(TEAM, 'one string key', { sort: 'name' }, [0, 1, 2, 3, 4, 5, 6]),
    s(TEAM, 'upper case before lower case (code points)', { sort: '-name' }, [6, 5, 4, 3, 2, 1, 0]),
    s(TEAM, 'two keys: team, then score descending', { sort: 'team,-score' }, [1, 6, 3, 2, 0, 4, 5]),
    s(TEAM, 'two keys, both descending', { sort: '-team,-score' }, [5, 2, 0, 4, 1, 6, 3]),
    s(TEAM, 'three keys', { sort: 'score,team,name' }, [3, 0, 4, 6, 1, 2, 5]),
    s(TEAM, 'a numeric string sorts among the numbers', { sort: 'score' }, [0, 3, 4, 6, 1, 2, 5]),
    s(TEAM, 'a nested key; missing last', { sort: 'joined.year' }, [1, 4, 0, 5, 6, 2, 3]),
    s(TEAM, 'a nested key descending; missing first', { sort: '-joined.year' }, [3, 2, 0, 5, 6, 1, 4]),
    s(TEAM, 'nested key then name', { sort: 'joined.year,-name' }, [4, 1, 6, 5, 0, 2, 3]),
    s(TEAM, 'ties everywhere keep array order', { sort: 'score,nothing' }, [0, 3, 4, 6, 1, 2, 5]),
    s(TEAM, 'the same key twice', { sort: 'score,score' }, [0, 3, 4, 6, 1, 2, 5]),
    s(TEAM, 'sort after a filter', { filter: 'team eq "red"', sort: '-score,name' }, [2, 0, 4], 3),
    { name: 'sort then path on each result', data: TEAM, params: { sort: '-name', path: 'name' }, result: ['ann', 'Fay', 'Eve', 'Dee', 'Cy', 'Bob', 'Ann'], total: null },
    s(TEAM, '8 sort keys are allowed', { sort: 'score,team,name,id,a,b,c,d' }, [3, 0, 4, 6, 1, 2, 5]),
    other('array elements by index', '[{"id": 0, "t": [3, 1]}, {"id": 1, "t": [2]}, {"id": 2, "t": []}, {"id": 3, "t": [2, 0]}]', { sort: 't.0' }, [1, 3, 0, 2]),
    other('a key with a space (a §5 path: taken literally)', '[{"id": 0, "first name": "b"}, {"id": 1, "first name": "a"}]', { sort: 'first name' }, [1, 0]),
    { ...other('a key with a space, from the query string', '[{"id": 0, "first name": "b"}, {"id": 1, "first name": "a"}]', {}, [1, 0]), params: 'sort=first+name' },
    other('-0 ties with 0, 0.0 and "0"', '[{"id": 0, "v": 0}, {"id": 1, "v": -0}, {"id": 2, "v": "0"}, {"id": 3, "v": 0.0}, {"id": 4, "v": -1}]', { sort: 'v' }, [4, 0, 1, 2, 3]),
    other('0.1 and a longer decimal: exact order', '[{"id": 0, "v": 0.1000000000000000055511151231257827}, {"id": 1, "v": 0.1}, {"id": 2, "v": "0.10000000000000000555111512312578271"}]',
      { sort: 'v' }, [1, 0, 2]),
    other('1e400 and 2e400 are ordered although both overflow a double', '[{"id": 0, "v": 2e400}, {"id": 1, "v": 1e400}, {"id": 2, "v": "-1e400"}]', { sort: 'v' }, [2, 1, 0]),
    other('strings in JSON number grammar only: " 7", "+7", "07" are strings', '[{"id": 0, "v": " 7"}, {"id": 1, "v": "+7"}, {"id": 2, "v": "07"}, {"id": 3, "v": 8}, {"id": 4, "v": "7"}]',
      { sort: 'v' }, [4, 3, 0, 1, 2]),
    other('non-object elements are left out', '[3, {"id": 0, "v": 2}, "x", null, [1], {"id": 1, "v": 1}, true, 1.0]', { sort: 'v' }, [1, 0]),
    other('inherited properties are missing', '[{"id": 0, "constructor": 2}, {"id": 1}, {"id": 2, "constructor": 1}]', { sort: 'constructor' }, [2, 0, 1]),
    other('an own __proto__ key sorts', '[{"id": 0, "__proto__": 2}, {"id": 1, "__proto__": 1}]', { sort: '__proto__' }, [1, 0]),
    other('empty data', '[]', { sort: 'v' }, []),
  ];
}

// ---------------------------------------------------------------------------------------------
// paging.json

const TEN_TEXT = '[{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}, {"id": 6}, {"id": 7}, {"id": 8}, {"id": 9}, 7, null, "x", [1]]';
const TEN = parseJson(TEN_TEXT) as unknown[];

function pagingCases(): Case[] {
  const p = (name: string, params: Record<string, string>, ids: number[], total: number | null = 10, data: unknown[] = TEN): Case =>
    ({ name, data, params, result: byIds(data, ids), total });
  const GROUPS = parseJson('[{"id": 0, "g": 2}, {"id": 1, "g": 1}, {"id": 2, "g": 2}, {"id": 3, "g": 1}, {"id": 4, "g": 2}, {"id": 5, "g": 1}, {"id": 6, "g": 0}]') as unknown[];
  return [
    p('limit: the first n', { limit: '3' }, [0, 1, 2]),
    p('limit 0: [] with the count', { limit: '0' }, []),
    p('limit 1', { limit: '1' }, [0]),
    p('limit past the end', { limit: '50' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    p('limit exactly the count', { limit: '10' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    p('limit 10000 is allowed', { limit: '10000' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    p('offset: skip n', { offset: '8' }, [8, 9]),
    p('offset 0', { offset: '0' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    p('offset at the end', { offset: '10' }, []),
    p('offset past the end', { offset: '11' }, []),
    p('offset far past the end', { offset: '99999999999999999999' }, []),
    p('offset and limit', { offset: '2', limit: '3' }, [2, 3, 4]),
    p('offset and limit across the end', { offset: '9', limit: '5' }, [9]),
    p('offset past the end with limit', { offset: '20', limit: '5' }, []),
    p('limit 0 with offset', { offset: '3', limit: '0' }, []),
    p('with sort descending', { sort: '-id', limit: '3' }, [9, 8, 7]),
    p('with sort, offset and limit', { sort: '-id', offset: '3', limit: '2' }, [6, 5]),
    p('with sort, offset only', { sort: '-id', offset: '7' }, [2, 1, 0]),
    p('with sort, limit 0', { sort: '-id', limit: '0' }, []),
    p('with a filter: the count is of the matches', { filter: 'id gt 3', limit: '2' }, [4, 5], 6),
    p('with a filter and an offset', { filter: 'id gt 3', offset: '5' }, [9], 6),
    p('with a filter that matches nothing', { filter: 'id gt 30', limit: '2' }, [], 0),
    p('with a search (q)', { q: 'id', value: '5', op: 'lt', limit: '2', offset: '1' }, [1, 2], 5),
    p('top-k with ties keeps array order', { sort: 'g', limit: '3' }, [6, 1, 3], 7, GROUPS),
    p('top-k descending with ties keeps array order', { sort: '-g', limit: '4' }, [0, 2, 4, 1], 7, GROUPS),
    p('top-k with offset inside a tie', { sort: '-g', offset: '1', limit: '3' }, [2, 4, 1], 7, GROUPS),
    p('top-k larger than the data', { sort: 'g', limit: '100' }, [6, 1, 3, 5, 0, 2, 4], 7, GROUPS),
    p('empty data with limit', { limit: '5' }, [], 0, []),
    p('empty data with offset', { offset: '1' }, [], 0, []),
    p('only non-objects: count 0', { limit: '5' }, [], 0, parseJson('[1, "a", null, [{"id": 1}], 1.0]') as unknown[]),
    { name: 'with path on each result', data: TEN, params: { sort: '-id', limit: '2', path: 'id' }, result: [9, 8], total: 10 },
    { name: 'with path that does not resolve: null', data: TEN, params: { limit: '2', path: 'x' }, result: [null, null], total: 10 },
    { name: 'the query string form', data: TEN, params: 'offset=1&limit=2', result: byIds(TEN, [1, 2]), total: 10 },
    { name: 'limit above 10000', data: TEN, params: { limit: '10001' }, error: at('limit', 'less_than_equal', { le: 10000 }) },
    { name: 'limit far above 10000', data: TEN, params: { limit: '99999999999999999999' }, error: at('limit', 'less_than_equal', { le: 10000 }) },
    { name: 'limit negative', data: TEN, params: { limit: '-1' }, error: at('limit', 'int_parsing') },
    { name: 'limit with a leading zero', data: TEN, params: { limit: '01' }, error: at('limit', 'int_parsing') },
    { name: 'limit with a fraction', data: TEN, params: { limit: '1.5' }, error: at('limit', 'int_parsing') },
    { name: 'limit empty', data: TEN, params: { limit: '' }, error: at('limit', 'int_parsing') },
    { name: 'limit not a number', data: TEN, params: { limit: 'ten' }, error: at('limit', 'int_parsing') },
    { name: 'limit with a plus', data: TEN, params: { limit: '+1' }, error: at('limit', 'int_parsing') },
    { name: 'offset negative', data: TEN, params: { offset: '-1' }, error: at('offset', 'int_parsing') },
    { name: 'offset with a leading zero', data: TEN, params: { offset: '00' }, error: at('offset', 'int_parsing') },
    { name: 'offset empty', data: TEN, params: { offset: '' }, error: at('offset', 'int_parsing') },
    { name: 'offset with spaces', data: TEN, params: { offset: ' 1' }, error: at('offset', 'int_parsing') },
    { name: 'limit and offset both wrong', data: TEN, params: { offset: 'x', limit: '10001' },
      errors: [at('limit', 'less_than_equal', { le: 10000 }), at('offset', 'int_parsing')] },
    { name: 'limit given twice', data: TEN, params: 'limit=1&limit=2', error: at('limit', 'multiple_values') },
    { name: 'offset given twice', data: TEN, params: 'offset=1&offset=1', error: at('offset', 'multiple_values') },
  ];
}

// ---------------------------------------------------------------------------------------------
// fields.json

const SHAPES_TEXT = `[
  {"id": 0, "name": "Ann", "price": 10, "address": {"city": "Oslo", "zip": "0150", "geo": {"lat": 59.9, "lon": 10.7}},
   "tags": ["a", "b", "c"], "n": null},
  {"id": 1, "name": "Bob", "address": {"city": "Rome"}, "tags": []},
  {"id": 2, "price": 1.50, "address": "none", "tags": "x", "list": [{"k": 1, "j": 2}, {"j": 3}, 4]},
  {"id": 3, "address": null, "first name": "Cy", "a.b": 1, "__proto__": {"x": 1}},
  5, "x", null, [{"id": 9}]
]`;
const SHAPES = parseJson(SHAPES_TEXT) as unknown[];

function fieldsCases(): Case[] {
  const f = (name: string, fields: string, result: string, extra: Record<string, string> = {}, total: number | null = null): Case =>
    ({ name, params: { fields, ...extra }, result: parseJson(result), total });
  return [
    f('two top-level fields; missing ones are left out', 'name,price', '[{"name": "Ann", "price": 10}, {"name": "Bob"}, {"price": 1.50}, {}]'),
    f('one field', 'id', '[{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}]'),
    f('a nested field keeps its nesting', 'address.city', '[{"address": {"city": "Oslo"}}, {"address": {"city": "Rome"}}, {}, {}]'),
    f('two nested fields under one parent', 'address.city,address.zip', '[{"address": {"city": "Oslo", "zip": "0150"}}, {"address": {"city": "Rome"}}, {}, {}]'),
    f('a deeper field and a top-level one', 'address.geo.lat,name', '[{"address": {"geo": {"lat": 59.9}}, "name": "Ann"}, {"name": "Bob"}, {}, {}]'),
    f('a parent and a child: the whole parent', 'address,address.city', '[{"address": {"city": "Oslo", "zip": "0150", "geo": {"lat": 59.9, "lon": 10.7}}}, {"address": {"city": "Rome"}}, {"address": "none"}, {"address": null}]'),
    f('a child and then its parent: the whole parent', 'address.city,address', '[{"address": {"city": "Oslo", "zip": "0150", "geo": {"lat": 59.9, "lon": 10.7}}}, {"address": {"city": "Rome"}}, {"address": "none"}, {"address": null}]'),
    f('a whole object', 'address.geo', '[{"address": {"geo": {"lat": 59.9, "lon": 10.7}}}, {}, {}, {}]'),
    f('an array element keeps the array, packed', 'tags.0', '[{"tags": ["a"]}, {}, {}, {}]'),
    f('array elements in index order', 'tags.2,tags.0', '[{"tags": ["a", "c"]}, {}, {}, {}]'),
    f('a field of array elements', 'list.0.k,list.1.j', '[{}, {}, {"list": [{"k": 1}, {"j": 3}]}, {}]'),
    f('an index past the end', 'tags.5', '[{}, {}, {}, {}]'),
    f('never into a string', 'tags.0.x,address.city.0', '[{}, {}, {}, {}]'),
    f('null resolves: kept', 'n', '[{"n": null}, {}, {}, {}]'),
    f('through null: left out', 'address.city.x', '[{}, {}, {}, {}]'),
    f('a missing field everywhere: empty objects', 'missing', '[{}, {}, {}, {}]'),
    f('a key with a space', 'first name', '[{}, {}, {}, {"first name": "Cy"}]'),
    f('a.b is a path of two segments, not the key "a.b"', 'a.b', '[{}, {}, {}, {}]'),
    f('an own __proto__ key is kept as an own key', '__proto__', '[{}, {}, {}, {"__proto__": {"x": 1}}]'),
    f('inside an own __proto__ key', '__proto__.x', '[{}, {}, {}, {"__proto__": {"x": 1}}]'),
    f('inherited properties are never fields', 'constructor,toString', '[{}, {}, {}, {}]'),
    f('exact numbers stay as written', 'price', '[{"price": 10}, {}, {"price": 1.50}, {}]'),
    f('the same field twice', 'name,name', '[{"name": "Ann"}, {"name": "Bob"}, {}, {}]'),
    f('with a filter and a sort', 'id', '[{"id": 0}, {"id": 2}]', { filter: 'price exists', sort: '-price' }, 2),
    f('with limit: the count is before the limit', 'name', '[{"name": "Bob"}]', { offset: '1', limit: '1' }, 4),
    f('with a search', 'address.city', '[{"address": {"city": "Rome"}}]', { q: 'name', value: 'Bob' }, 1),
    f('32 fields are allowed', Array.from({ length: 31 }, (_, i) => `f${i}`).join(',') + ',id', '[{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}]'),
    { name: 'the query string form', params: 'fields=name%2Cprice&limit=1', result: parseJson('[{"name": "Ann", "price": 10}]'), total: 4 },
    { name: 'fields empty', params: { fields: '' }, error: at('fields', 'path_segment_empty') },
    { name: 'an empty path in the list', params: { fields: 'a,,b' }, error: at('fields', 'path_segment_empty') },
    { name: 'an empty segment', params: { fields: 'a..b' }, error: at('fields', 'path_segment_empty') },
    { name: 'a trailing comma', params: { fields: 'a,' }, error: at('fields', 'path_segment_empty') },
    { name: '33 fields', params: { fields: Array.from({ length: 33 }, (_, i) => `f${i}`).join(',') }, error: at('fields', 'too_many_fields', { max_fields: 32 }) },
    f('a path of 1 000 segments is allowed', Array.from({ length: 1000 }, () => 'a').join('.'), '[{}, {}, {}, {}]'),
    {
      name: 'a path of 1 001 segments',
      params: { fields: `id,${Array.from({ length: 1001 }, () => 'a').join('.')}` },
      error: at('fields', 'fields_path_too_long', { max_segments: 1000 }),
    },
    { name: 'fields with path: one projection at a time', params: { fields: 'name', path: 'name' }, error: at('fields', 'not_supported') },
    { name: 'fields given twice', params: 'fields=a&fields=b', error: at('fields', 'multiple_values') },
  ];
}

// ---------------------------------------------------------------------------------------------
// list-params.json: combinations, non-array data, the count, parameter errors.

const LIST_DATA = parseJson('[{"id": 0, "city": "Oslo", "age": 30}, {"id": 1, "city": "Rome", "age": 40}, {"id": 2, "city": "Oslo", "age": 50}, 3, null]') as unknown[];

function listParams(): Case[] {
  const D = LIST_DATA;
  const ok = (name: string, params: Params, ids: number[], total: number | null): Case => ({ name, data: D, params, result: byIds(D, ids), total });
  const err = (name: string, params: Params, errors: ErrorItem[], data: unknown = D): Case =>
    errors.length === 1 ? { name, data, params, error: errors[0]! } : { name, data, params, errors };
  const notArray = (p: string): ErrorItem => at(p, 'search_requires_array');
  return [
    ok('search and filter: both must hold', { q: 'city', value: 'Oslo', filter: 'age gt 40' }, [2], 1),
    ok('search, filter, sort, limit', { q: 'city', value: 'Oslo', op: 'eq', filter: 'age gt 10', sort: '-age', limit: '1' }, [2], 2),
    ok('search alone: its §5 answer, with the count', { q: 'city', value: 'Oslo' }, [0, 2], 2),
    ok('search with ne: the count', { q: 'city', value: 'Oslo', op: 'ne' }, [1], 1),
    ok('a filter alone', { filter: 'city eq "Rome"' }, [1], 1),
    ok('sort alone: no X-Total-Count', { sort: '-age' }, [2, 1, 0], null),
    { name: 'fields alone: the object elements, no X-Total-Count', data: D, params: { fields: 'id' }, result: [{ id: 0 }, { id: 1 }, { id: 2 }], total: null },
    ok('offset alone: X-Total-Count', { offset: '0' }, [0, 1, 2], 3),
    ok('other parameters are still ignored', { filter: 'age lt 35', _: '123', Filter: 'x' }, [0], 1),
    { name: 'search with path: its §5 answer, with the count', data: D, params: { q: 'city', value: 'Oslo', path: 'age' }, result: [30, 50], total: 2 },
    { name: 'filter with path', data: D, params: { filter: 'city eq "Oslo"', path: 'age' }, result: [30, 50], total: 2 },
    { name: 'sort with path', data: D, params: { sort: '-age', path: 'city' }, result: ['Oslo', 'Rome', 'Oslo'], total: null },
    { name: 'a path query has no count', data: D, params: { path: '0.city' }, result: 'Oslo', total: null },
    { name: 'no parameters: no count', data: D, params: {}, result: D, total: null },
    err('idx with a filter', { idx: '0', filter: 'age gt 1' }, [at('idx', 'not_supported')]),
    err('idx with sort', { idx: '0', sort: 'age' }, [at('idx', 'not_supported')]),
    err('idx with limit', { idx: '0', limit: '1' }, [at('idx', 'not_supported')]),
    err('idx with offset', { idx: '0', offset: '1' }, [at('idx', 'not_supported')]),
    err('idx with fields', { idx: '0', fields: 'a' }, [at('idx', 'not_supported')]),
    err('output with a filter', { output: 'text', filter: 'age gt 1' }, [at('output', 'not_supported')]),
    err('output with sort', { output: 'json', sort: 'age' }, [at('output', 'not_supported')]),
    err('idx and output with limit', { idx: '0', output: 'int', limit: '1' }, [at('idx', 'not_supported'), at('output', 'not_supported')]),
    err('idx with search and sort: one item', { idx: '0', q: 'a', value: '1', sort: 'a' }, [at('idx', 'not_supported')]),
    err('value without q, with a filter', { value: '1', filter: 'age gt 1' }, [at('q', 'missing')]),
    err('every parameter wrong at once, in parameter order', { idx: 'x', filter: '(', sort: 'a,,b', limit: '-1', offset: 'y', fields: '' },
      [at('idx', 'not_supported'), syntax(1), at('sort', 'path_segment_empty'), at('limit', 'int_parsing'), at('offset', 'int_parsing'), at('fields', 'path_segment_empty')]),
    err('a filter error beside a search error', { q: 'a..b', value: '1', filter: 'x eq' }, [at('q', 'path_segment_empty'), syntax(4)]),
    err('filter given twice', 'filter=a+eq+1&filter=a+eq+1', [at('filter', 'multiple_values')]),
    err('sort given twice', 'sort=a&sort=b', [at('sort', 'multiple_values')]),
    err('sort empty', { sort: '' }, [at('sort', 'path_segment_empty')]),
    err('sort of a lone minus', { sort: '-' }, [at('sort', 'path_segment_empty')]),
    err('sort with an empty key', { sort: 'a,,b' }, [at('sort', 'path_segment_empty')]),
    err('sort with a trailing comma', { sort: 'a,' }, [at('sort', 'path_segment_empty')]),
    err('sort with an empty segment', { sort: '-a..b' }, [at('sort', 'path_segment_empty')]),
    err('9 sort keys', { sort: 'a,b,c,d,e,f,g,h,i' }, [at('sort', 'too_many_sort_keys', { max_keys: 8 })]),
    err('a filter on an object', { filter: 'a eq 1' }, [notArray('filter')], { a: 1 }),
    err('sort on a string', { sort: 'a' }, [notArray('sort')], 'abc'),
    err('limit on null', { limit: '1' }, [notArray('limit')], null),
    err('offset on a number', { offset: '1' }, [notArray('offset')], 5),
    err('fields on an object', { fields: 'a' }, [notArray('fields')], { a: 1 }),
    err('one item per list parameter, in parameter order', { fields: 'a', offset: '1', limit: '1', sort: 'a', filter: 'a eq 1' },
      [notArray('filter'), notArray('sort'), notArray('limit'), notArray('offset'), notArray('fields')], { a: 1 }),
    err('search and filter on an object', { q: 'a', value: '1', filter: 'a eq 1' }, [notArray('q'), notArray('filter')], { a: 1 }),
    err('a list parameter on a JsonNumber (a number)', { sort: 'a' }, [notArray('sort')], new JsonNumber('1.0')),
  ];
}

writeFile('filter-ops.json',
  'filter: every operator on every kind of field value (numbers, numeric strings, strings, booleans, null, objects, arrays, missing), each exactly what §5\'s search with the same path, value and op matches; ge = gt or eq, le = lt or eq, in = eq any, has = an array element eq-matches, exists = the path resolves, not = the complement over object elements',
  TYPED, filterOps());
writeFile('filter.json',
  'filter: the grammar (or < and < not, parentheses), whitespace, quoted paths, string escapes, number literals, words as keys, bounds that are allowed',
  PEOPLE, filterGrammar());
writeFile('filter-errors.json',
  'filter: every syntax error and bound, a 422 at ["query","filter"] with ctx.position, the 0-based offset in code points',
  PEOPLE, filterErrors());
writeFile('sort.json',
  'sort: one total order (numbers and numeric strings by exact value < other strings by code point < false < true < objects = arrays < null < missing), descending its exact reverse, stable, several keys',
  MIXED, sortCases());
writeFile('paging.json',
  'limit and offset: after the condition and the sort; the count (X-Total-Count) is the number of matches before them; bounds and errors',
  TEN, pagingCases());
writeFile('fields.json',
  'fields: each result keeps only these paths, nested as in the source; missing ones left out; errors',
  SHAPES, fieldsCases());
writeFile('list-params.json',
  'the query language with §5\'s parameters: search and filter together, path, idx and output refused, data that is not an array, which answers carry a count, parameter errors',
  LIST_DATA, listParams());
