/**
 * The parameters of a data read (contract §5 and §16), typed, and a small builder of the filter
 * language, so that a query is written as code and sent as the text the server parses:
 *
 *   client.read(uuid, {
 *     filter: where('price').gt(100).and(where('tags').has('new').or(where('stock').le(3))),
 *     sort: ['-price', 'name'],
 *     limit: 20,
 *     fields: ['name', 'price'],
 *   });
 *
 * Literals keep their exact value: a `bigint` or silo-query's `JsonNumber` is written as its digits,
 * never through a double.
 */
import { JsonNumber, type FilterOp, type Op, type Output } from 'silo-query';

export type { FilterOp, Op, Output };

/** A value to compare with: a JSON scalar, a `bigint`, or an exact `JsonNumber`. */
export type Literal = string | number | bigint | boolean | null | JsonNumber;

/**
 * A path: `'address.city'` (dot notation, each segment an own key or, on an array, an index), or
 * its segments `['first name', 'city']` (a filter quotes those that need it).
 */
export type Path = string | readonly string[];

/** The parameters of a read. Every one is optional; without any, the read answers the stored JSON. */
export interface ReadQuery {
  /** One element of an array silo (zero-based). Not with a search or list parameter. */
  idx?: number;
  /** The value at this path (of the idx-selected element, or of each result). */
  path?: string;
  /** Converts the selected value. Not with a search or list parameter. */
  output?: Output;
  /** Search: the field to compare in each element ... */
  q?: string;
  /** ... with this value ... */
  value?: Literal;
  /** ... by this operator (default `eq`). */
  op?: Op;
  /** A boolean expression over each element: a `Filter` from `where(...)`, or its text. */
  filter?: Filter | string;
  /** Paths to sort by, each optionally prefixed with `-` (descending). None (`[]`): the stored order, as without it. */
  sort?: string | readonly string[];
  /** At most this many results (0 to 10 000). */
  limit?: number;
  /** Skip this many results first. */
  offset?: number;
  /** Each result keeps only these paths. Not with `path`. At least one (`[]` is a RangeError: leave it out for whole elements). */
  fields?: string | readonly string[];
}

/** The query string of `query` (without `?`), parameters in a fixed order. */
export function queryString(query: ReadQuery = {}): string {
  const params = new URLSearchParams();
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) params.append(name, value);
  };
  add('idx', query.idx === undefined ? undefined : integer('idx', query.idx));
  add('path', query.path);
  add('output', query.output);
  add('q', query.q);
  add('value', query.value === undefined ? undefined : valueText(query.value));
  add('op', query.op);
  add('filter', query.filter === undefined ? undefined : String(query.filter));
  add('sort', query.sort === undefined ? undefined : typeof query.sort === 'string' ? query.sort : query.sort.length === 0 ? undefined : query.sort.join(','));
  add('limit', query.limit === undefined ? undefined : integer('limit', query.limit));
  add('offset', query.offset === undefined ? undefined : integer('offset', query.offset));
  add('fields', query.fields === undefined ? undefined : typeof query.fields === 'string' ? query.fields : paths('fields', query.fields));
  return params.toString();
}

/** A list of paths as one parameter; an empty list would keep nothing of each result, which the server refuses. */
function paths(name: string, list: readonly string[]): string {
  if (list.length === 0) throw new RangeError(`${name} needs at least one path (leave it out for whole elements)`);
  return list.join(',');
}

function integer(name: string, n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, not ${n}`);
  return String(n);
}

/** A search `value`: a string as it is; anything else as its JSON text (`1.0` stays `1.0`). */
function valueText(value: Literal): string {
  return typeof value === 'string' ? value : literal(value);
}

/** A literal of the filter language: JSON text, exact for `bigint` and `JsonNumber`. */
export function literal(value: Literal): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumber) return value.text;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError(`A filter literal must be a finite number, not ${value}`);
      return Object.is(value, -0) ? '-0' : String(value);
    default:
      throw new TypeError(`Not a filter literal: ${typeof value}`);
  }
}

/** Words of the language: a segment spelled like one is quoted, so it is never read as the word. */
const WORDS = new Set(['and', 'or', 'not', 'in', 'exists', 'true', 'false', 'null', 'eq', 'ne', 'gt', 'lt', 'ge', 'le', 'lk', 'il', 'has']);

/** A path as the filter language writes it: bare segments where they can be, JSON strings elsewhere. */
export function pathText(path: Path): string {
  const segments = typeof path === 'string' ? path.split('.') : [...path];
  if (segments.length === 0 || segments.some((s) => s === '')) throw new RangeError(`A path has no empty segment: ${JSON.stringify(path)}`);
  return segments.map((s) => (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(s) && !WORDS.has(s) ? s : JSON.stringify(s))).join('.');
}

/** How tightly an expression binds: `or` looser than `and`, looser than a condition or `not`. */
const Binding = { Or: 0, And: 1, Unary: 2 } as const;

/** A filter expression. Combine with `and`, `or`, `not`; `String(filter)` is what is sent. */
export class Filter {
  /** @internal */
  constructor(
    readonly text: string,
    /** @internal How tightly it binds (0 `or`, 1 `and`, 2 a condition or `not`): where parentheses go. */
    readonly binding: number = Binding.Unary,
  ) {}

  /** This and every one of `others`. */
  and(...others: Filter[]): Filter {
    return and(this, ...others);
  }

  /** This or any of `others`. */
  or(...others: Filter[]): Filter {
    return or(this, ...others);
  }

  /** The complement of this (over object elements). */
  not(): Filter {
    return not(this);
  }

  toString(): string {
    return this.text;
  }
}

const within = (f: Filter, at: number) => (f.binding >= at ? f.text : `(${f.text})`);

export function and(first: Filter, ...rest: Filter[]): Filter {
  if (rest.length === 0) return first;
  return new Filter([first, ...rest].map((f) => within(f, Binding.And)).join(' and '), Binding.And);
}

export function or(first: Filter, ...rest: Filter[]): Filter {
  if (rest.length === 0) return first;
  return new Filter([first, ...rest].map((f) => within(f, Binding.Or)).join(' or '), Binding.Or);
}

export function not(filter: Filter): Filter {
  return new Filter(`not ${within(filter, Binding.Unary)}`);
}

/** The conditions on one path. Each matches exactly as the search `q/value/op` does (contract §16). */
export class Field {
  readonly #path: string;

  constructor(path: Path) {
    this.#path = pathText(path);
  }

  #op(op: FilterOp, value: Literal): Filter {
    return new Filter(`${this.#path} ${op} ${literal(value)}`);
  }

  eq(value: Literal): Filter {
    return this.#op('eq', value);
  }
  ne(value: Literal): Filter {
    return this.#op('ne', value);
  }
  gt(value: Literal): Filter {
    return this.#op('gt', value);
  }
  lt(value: Literal): Filter {
    return this.#op('lt', value);
  }
  ge(value: Literal): Filter {
    return this.#op('ge', value);
  }
  le(value: Literal): Filter {
    return this.#op('le', value);
  }
  /** SQL LIKE over the whole string: `%` any run, `_` one character, `\` escapes. */
  like(pattern: string): Filter {
    return this.#op('lk', pattern);
  }
  /** As `like`, case-insensitive. */
  ilike(pattern: string): Filter {
    return this.#op('il', pattern);
  }
  /** The field is an array holding an element equal to `value`. */
  has(value: Literal): Filter {
    return this.#op('has', value);
  }
  /** Equal to any of `values`. */
  in(...values: [Literal, ...Literal[]]): Filter {
    return new Filter(`${this.#path} in (${values.map(literal).join(', ')})`);
  }
  /** The path resolves (to any value, null included). */
  exists(): Filter {
    return new Filter(`${this.#path} exists`);
  }
}

/** The start of a condition: `where('age').gt(30)`. */
export function where(path: Path): Field {
  return new Field(path);
}
