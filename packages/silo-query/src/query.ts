/**
 * `compile` turns validated parameters into one closure, chosen per combination so that the
 * call does no work the parameters did not ask for; `query` is `compile(params)(data)`.
 */
import { CONVERTERS } from './convert.js';
import type { JsonValue } from './json-value.js';
import { readPlan, type QueryParams } from './params.js';
import { compileSegments, elementAt } from './path.js';
import { compileSearch } from './search.js';

/** A compiled query: data in, result out. Throws `SiloQueryError` only for a search on non-array data. */
export type CompiledQuery = (data: unknown) => JsonValue;

/** The steps below are typed over `unknown`; `compile` states once what they return. */
type Select = (data: unknown) => unknown;

export function compile(params: QueryParams): CompiledQuery {
  // Every step selects within the data or converts to a JSON scalar: JSON in, JSON out.
  return selectFor(params) as CompiledQuery;
}

function selectFor(params: QueryParams): Select {
  const plan = readPlan(params);

  if (plan.search !== undefined) {
    const { q, op, value } = plan.search;
    const path = plan.path === undefined ? undefined : compileSegments(plan.path, null);
    return compileSearch(q, op, value, path);
  }

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
  return compile(params)(data);
}
