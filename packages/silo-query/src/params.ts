/**
 * Reads the parameters (§5's idx, path, output, q, value, op and §16's filter, sort, limit,
 * offset, fields) and validates them into a plan. Every problem is collected; one
 * `SiloQueryError` lists them all, in parameter order. list-params.ts reads §16's five.
 *
 * Decisions beyond the contract (documented in the README):
 * - Any other parameter is ignored (clients add cache-busters). Names are case-sensitive.
 * - A parameter given more than once is a 422 `multiple_values`.
 * - Empty values: `idx=` is `int_parsing`; `path=` and `q=` are `path_segment_empty`;
 *   `output=` and `op=` are `enum`; `value=` is the empty string (a valid value).
 * - `value` or `op` without `q` is a 422 `missing` at `["query","q"]` (they mean nothing alone).
 * - `idx` or `output` with any list parameter is a 422 `not_supported`, as with search; so is
 *   `fields` with `path` (one projection at a time).
 */
import { OUTPUTS, UNSUPPORTED_OUTPUTS, type Output } from './convert.js';
import { ErrorType, SiloQueryError, type SiloQueryErrorItem } from './errors.js';
import { likeRefusal, type LikeRefusal } from './like.js';
import { LIST_PARAM_NAMES, readListPlan, type ListParamName, type ListPlan } from './list-params.js';
import { isCanonicalIndex, parsePath, type Segment } from './path.js';
import { OPS, type Op } from './search.js';

/**
 * Query parameters: a `URLSearchParams`, a query string (a leading `?` is fine), or a plain
 * object of strings. A plain object may also hold an array of strings for a repeated
 * parameter, and `undefined` for an absent one (the shape of Node's and Koa's parsed query).
 */
export type QueryParams =
  | URLSearchParams
  | string
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The parameters silo-query reads, in the order errors are listed; all others are ignored. */
export const PARAM_NAMES = ['idx', 'path', 'output', 'q', 'value', 'op', ...LIST_PARAM_NAMES] as const;
export type ParamName = (typeof PARAM_NAMES)[number];

/**
 * The search, filter and paging parameters: an answer to a query that uses any of them carries
 * `X-Total-Count` (contract §16). `sort` and `fields` alone do not: they order or shape a list
 * without selecting from it.
 */
export const TOTAL_COUNT_PARAM_NAMES = ['q', 'value', 'op', 'filter', 'limit', 'offset'] as const satisfies readonly ParamName[];

/** What the parameters ask for, validated. */
export interface Plan {
  /** Element index (idx), when given. */
  idx: number | undefined;
  /** `path` segments, when given. */
  path: Segment[] | undefined;
  /** Conversion (default `json`). Always `json` for a search. */
  output: Output;
  /** The search, when `q` is given. */
  search: { q: Segment[]; op: Op; value: string } | undefined;
  /** The list parameters (filter, sort, limit, offset, fields), when any is given. */
  list: ListPlan | undefined;
}

type Values = Partial<Record<ParamName, unknown[]>>;

interface SearchParamsLike {
  getAll(name: string): string[];
}

function isSearchParamsLike(p: unknown): p is SearchParamsLike {
  return typeof p === 'object' && p !== null && typeof (p as Partial<SearchParamsLike>).getAll === 'function';
}

/** Our names, for a lookup by name (an object without prototype: `__proto__` is no name of ours). */
const IS_PARAM: Readonly<Record<string, true>> = Object.assign(Object.create(null) as Record<string, true>, ...PARAM_NAMES.map((n) => ({ [n]: true })));

/** The raw values of the parameters: absent ones are missing from the result. */
function readValues(params: QueryParams): Values {
  const out: Values = {};
  if (typeof params === 'string' || params instanceof URLSearchParams) {
    // One walk over the pairs (the usual query string holds few), rather than a getAll per name.
    const sp = typeof params === 'string' ? new URLSearchParams(params) : params;
    for (const [name, value] of sp) {
      if (IS_PARAM[name] !== true) continue;
      const list = out[name as ParamName];
      if (list === undefined) out[name as ParamName] = [value];
      else list.push(value);
    }
    return out;
  }
  if (isSearchParamsLike(params)) {
    const sp = params;
    for (const name of PARAM_NAMES) {
      const all = sp.getAll(name);
      if (all.length > 0) out[name] = all;
    }
    return out;
  }
  if (typeof params !== 'object' || params === null) {
    throw new TypeError('query parameters must be a URLSearchParams, a string or a plain object');
  }
  for (const name of PARAM_NAMES) {
    if (!Object.hasOwn(params, name)) continue;
    const v: unknown = (params as Record<string, unknown>)[name];
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length > 0) out[name] = [...(v as unknown[])];
    } else out[name] = [v];
  }
  return out;
}

/** `true` when any parameter silo-query reads (`PARAM_NAMES`) is present (even with an empty value). */
export function hasQueryParams(params: QueryParams): boolean {
  const values = readValues(params);
  return PARAM_NAMES.some((name) => values[name] !== undefined);
}

/**
 * `true` when any search, filter or paging parameter (`TOTAL_COUNT_PARAM_NAMES`: q, value, op,
 * filter, limit, offset) is present, even with an empty value: then an answer carries
 * `X-Total-Count` (the compiled query's `run` gives the count).
 */
export function reportsTotalCount(params: QueryParams): boolean {
  const values = readValues(params);
  return TOTAL_COUNT_PARAM_NAMES.some((name) => values[name] !== undefined);
}

/** `a`, `a or b`, `a, b or c`. */
const wordList = (words: readonly string[]): string =>
  words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]!}`;

const quoteList = (words: readonly string[]): string => {
  const q = words.map((w) => `'${w}'`);
  return `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
};

/** Reads and validates the parameters; throws `SiloQueryError` listing every problem. */
export function readPlan(params: QueryParams): Plan {
  const values = readValues(params);
  const errors: SiloQueryErrorItem[] = [];
  const fail = (name: ParamName, type: ErrorType, msg: string): void => {
    errors.push({ loc: ['query', name], msg, type });
  };

  // One string per parameter, or an error.
  const one: Partial<Record<ParamName, string>> = {};
  for (const name of PARAM_NAMES) {
    const all = values[name];
    if (all === undefined || all.length === 0) continue;
    if (all.length > 1) {
      fail(name, ErrorType.multipleValues, `Give ${name} at most once (it was given ${all.length} times)`);
      continue;
    }
    const v = all[0];
    if (typeof v !== 'string') {
      fail(name, ErrorType.stringType, 'Input should be a valid string');
      continue;
    }
    one[name] = v;
  }
  const present = (name: ParamName): boolean => values[name] !== undefined;
  const searching = present('q');
  const listing = LIST_PARAM_NAMES.filter(present);
  // What idx and output cannot be combined with: the search, or any list parameter.
  const lists = searching || listing.length > 0;
  const listNames = (): string => (listing.length === 0 ? 'search (q)' : wordList([...(searching ? ['q'] : []), ...listing]));

  // idx
  let idx: number | undefined;
  if (one.idx !== undefined) {
    if (lists) {
      fail('idx', ErrorType.notSupported, `idx cannot be combined with ${listNames()}`);
    } else if (isCanonicalIndex(one.idx)) {
      idx = Number(one.idx);
    } else {
      fail('idx', ErrorType.intParsing,
        'Input should be a non-negative integer in canonical form (0, 1, 2, ...: no sign, no leading zeros, no fraction)');
    }
  }

  // path
  let path: Segment[] | undefined;
  if (one.path !== undefined) {
    const parsed = parsePath(one.path);
    if ('empty' in parsed) {
      fail('path', ErrorType.pathSegmentEmpty, emptySegmentMessage('path', one.path));
    } else path = parsed.segments;
  }

  // output
  let output: Output = 'json';
  if (one.output !== undefined) {
    if (lists) {
      fail('output', ErrorType.notSupported, `output cannot be combined with ${listNames()}`);
    } else if ((OUTPUTS as readonly string[]).includes(one.output)) {
      output = one.output as Output;
    } else if (UNSUPPORTED_OUTPUTS.includes(one.output)) {
      fail('output', ErrorType.notSupported,
        `output '${one.output}' is not supported; use ${quoteList(OUTPUTS)}`);
    } else {
      fail('output', ErrorType.enum, `Input should be ${quoteList(OUTPUTS)}`);
    }
  }

  // q
  let q: Segment[] | undefined;
  if (one.q !== undefined) {
    const parsed = parsePath(one.q);
    if ('empty' in parsed) fail('q', ErrorType.pathSegmentEmpty, emptySegmentMessage('q', one.q));
    else q = parsed.segments;
  } else if (!present('q') && (present('value') || present('op'))) {
    fail('q', ErrorType.missing, 'Field required: value and op only work in a search, which q starts');
  }

  // value
  if (searching && !present('value')) {
    fail('value', ErrorType.missing, 'Field required: a search (q) needs a value');
  }

  // op
  let op: Op = 'eq';
  if (one.op !== undefined) {
    if ((OPS as readonly string[]).includes(one.op)) op = one.op as Op;
    else fail('op', ErrorType.enum, `Input should be ${quoteList(OPS)}`);
  }

  // A LIKE pattern must be well-formed and within the cost limits (like.ts), checked before any search.
  if ((op === 'lk' || op === 'il') && one.value !== undefined) {
    const refusal = likeRefusal(one.value);
    if (refusal !== undefined) errors.push(likeRefusalIssue(refusal));
  }

  // filter, sort, limit, offset, fields
  const list = readListPlan(one, (name: ListParamName) => present(name), errors);
  if (one.fields !== undefined && present('path')) {
    fail('fields', ErrorType.notSupported, 'fields cannot be combined with path: choose one projection');
  }

  if (errors.length > 0) throw new SiloQueryError(sortByParam(errors));
  const search = searching && q !== undefined && one.value !== undefined
    ? { q, op, value: one.value }
    : undefined;
  return { idx, path, output, search, list };
}

/** The 422 item of a refused LIKE pattern (like.ts states the limits and why). */
function likeRefusalIssue(refusal: LikeRefusal): SiloQueryErrorItem {
  const loc = ['query', 'value'];
  switch (refusal.reason) {
    case 'trailing_escape':
      return { loc, msg: 'The LIKE pattern ends with an unescaped backslash; write \\\\ for a literal backslash',
        type: ErrorType.likePatternInvalid };
    case 'too_long':
      return { loc, msg: `The LIKE pattern is too long: it has ${refusal.length} characters, at most ${refusal.max} are allowed`,
        type: ErrorType.likePatternTooLong, ctx: { max_length: refusal.max } };
    case 'span_too_long':
      return { loc, msg: `The LIKE pattern has a part between two % that contains _ and spans ${refusal.span} characters ` +
        `from its first to its last character other than _; such a part may span at most ${refusal.max}`,
        type: ErrorType.likePatternTooLong, ctx: { max_span: refusal.max } };
  }
}

function emptySegmentMessage(name: ParamName, path: string): string {
  if (path.length === 0) return `${name} must not be empty`;
  return `${name} has an empty segment: segments are separated by single dots, with no dot at the start or end`;
}

/** Errors in parameter order (`PARAM_NAMES`), stable within a parameter. */
function sortByParam(errors: SiloQueryErrorItem[]): SiloQueryErrorItem[] {
  const rank = (e: SiloQueryErrorItem): number => PARAM_NAMES.indexOf(e.loc[1] as ParamName);
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .map(({ e }) => e);
}
