/**
 * `compile` turns validated parameters into one closure, chosen per combination so that the
 * call does no work the parameters did not ask for; `query` is `compile(params)(data)`.
 *
 * A list query (search, or any of filter, sort, limit, offset, fields) also answers `run`, which
 * gives the number of matches before offset and limit beside the results.
 */
import { CONVERTERS } from './convert.js';
import { toJSON } from './json.js';
import type { JsonValue } from './json-value.js';
import { compileList, type ListQuery } from './list.js';
import { readPlan, type Plan, type QueryParams } from './params.js';
import { compileSegments, elementAt } from './path.js';
import { compileSearch } from './search.js';

/** What `run` gives: for a list query the results and their count, otherwise the value alone. */
export type QueryRun =
  | {
    readonly list: true;
    /** The results: what the plain call returns. */
    readonly value: JsonValue[];
    /** The same array as `value`. */
    readonly items: JsonValue[];
    /** The number of matches before `offset` and `limit` (the `X-Total-Count`). */
    readonly total: number;
  }
  | { readonly list: false; readonly value: JsonValue; readonly items: undefined; readonly total: undefined };

/**
 * A compiled query: data in, result out. Throws `SiloQueryError` only for a search or list
 * parameter on data that is not an array (`search_requires_array`).
 */
export interface CompiledQuery {
  (data: unknown): JsonValue;
  /** The result with, for a list query, the number of matches before `offset` and `limit`. */
  run(data: unknown): QueryRun;
  /**
   * The result as JSON text (`toJSON(run(data).value)`), with the count of a list query. Built
   * a slice of results at a time where `fields` or `path` maps them: the mapped results are
   * never all held at once (what a server answering large queries needs).
   */
  json(data: unknown): { text: string; total: number | undefined };
  /** `true` when the result is a list of matches (search, filter, sort, limit, offset, fields). */
  readonly lists: boolean;
  /** `true` when an answer carries `X-Total-Count`: a search, filter or paging parameter was given. */
  readonly reportsTotal: boolean;
}

/** The steps below are typed over `unknown`; `compile` states once what they return. */
type Select = (data: unknown) => unknown;

export function compile(params: QueryParams): CompiledQuery {
  const plan = readPlan(params);
  const list = listQueryFor(plan);
  if (list === undefined) {
    // Every step selects within the data or converts to a JSON scalar: JSON in, JSON out.
    const select = selectFor(plan) as (data: unknown) => JsonValue;
    // The closures are fresh per compile, so the properties go on them directly: no extra call.
    return Object.assign(select, {
      run: (data: unknown): QueryRun => ({ list: false, value: select(data), items: undefined, total: undefined }),
      json: (data: unknown) => ({ text: toJSON(select(data)), total: undefined }),
      lists: false,
      reportsTotal: false,
    });
  }
  const { plain, run } = list;
  const reportsTotal = plan.search !== undefined ||
    (plan.list?.given.some((name) => name === 'filter' || name === 'limit' || name === 'offset') ?? false);
  return Object.assign(plain, {
    run: (data: unknown): QueryRun => {
      const { items, total } = run(data);
      return { list: true, value: items, items, total };
    },
    json: (data: unknown) => run.text(data),
    lists: true,
    reportsTotal,
  });
}

/**
 * A search alone keeps §5's own loops (one per operator, inlined) for the plain call; anything
 * with list parameters goes through the list pipeline (list.ts).
 */
function listQueryFor(plan: Plan): { plain: (data: unknown) => JsonValue[]; run: ListQuery } | undefined {
  if (plan.list === undefined) {
    if (plan.search === undefined) return undefined;
    const { q, op, value } = plan.search;
    const path = plan.path === undefined ? undefined : compileSegments(plan.path, null);
    const search = compileSearch(q, op, value, path) as (data: unknown) => JsonValue[];
    // `path` picks parts of the matches (no new objects): the text of the results at once.
    const run = (data: unknown) => {
      const items = search(data);
      return { items, total: items.length };
    };
    return {
      plain: search,
      run: Object.assign(run, {
        text: (data: unknown) => {
          const { items, total } = run(data);
          return { text: toJSON(items), total };
        },
      }),
    };
  }
  const run = compileList(plan.search, plan.list, plan.path);
  return { plain: (data) => run(data).items, run };
}

function selectFor(plan: Plan): Select {
  // Path accessors built with miss = null return the query result directly.
  const idx = plan.idx;
  const path = plan.path === undefined ? undefined : compileSegments(plan.path, null);
  let select: Select;
  if (idx === undefined) {
    select = path ?? ((d) => (d === undefined ? null : d));
  } else if (path === undefined) {
    select = (d) => {
      const v = elementAt(d, idx);
      return v === undefined ? null : v;
    };
  } else {
    select = (d) => path(elementAt(d, idx));
  }
  if (plan.output === 'json') return select;
  const convert = CONVERTERS[plan.output];
  return (d) => convert(select(d));
}

/** Runs the query the parameters describe over `data` (parsing the parameters each time). */
export function query(data: unknown, params: QueryParams): JsonValue {
  // The plain function alone: no `run` to build for a single call.
  const plan = readPlan(params);
  const list = listQueryFor(plan);
  return list === undefined ? (selectFor(plan)(data) as JsonValue) : list.plain(data);
}
