/**
 * silo-query: Silo's query engine over plain JSON. Pure: no I/O, no HTTP, no dependencies.
 *
 *   query(data, 'path=profile.address.city')            // → "London"
 *   const byCity = compile('q=city&value=Lisbon');      // parse and validate once
 *   byCity(records)                                     // → the matching records
 *   compile('filter=price gt 100&sort=-price&limit=20').run(records)   // → { items, total }
 *
 * Invalid parameters throw `SiloQueryError` whose `detail` is the API's 422 body `detail`.
 *
 * Exact numbers: `parseJson(text)` keeps every number as written (a `JsonNumber` where a double
 * would change it), queries compare and convert them exactly, `toJSON` writes them back as
 * they were sent.
 */
export { compile, query, type CompiledQuery, type QueryRun } from './query.js';
export {
  hasQueryParams,
  PARAM_NAMES,
  reportsTotalCount,
  TOTAL_COUNT_PARAM_NAMES,
  type ParamName,
  type QueryParams,
} from './params.js';
export { LIST_PARAM_NAMES, type ListParamName } from './list-params.js';
export { QUERY_BOUNDS } from './bounds.js';
export { FILTER_OPS, type FilterOp } from './filter-parse.js';
export { SiloQueryError, ErrorType, type SiloQueryErrorItem } from './errors.js';
export { toJSON } from './json.js';
export type { JsonValue } from './json-value.js';
export { JsonNumber, compareJsonNumbers, isNumber } from './json-number.js';
export { parseJson, hasInexactNumbers } from './json-parse.js';
export { jsonEqual } from './json-equal.js';
export { OUTPUTS, type Output } from './convert.js';
export { OPS, type Op } from './search.js';
