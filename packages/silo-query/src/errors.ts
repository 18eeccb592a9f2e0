/**
 * The one error type of silo-query. `detail` is exactly the `detail` array of the API's 422
 * validation body: `{"detail": [{"loc": ["query", "idx"], "msg": "...", "type": "int_parsing"}]}`.
 */

/**
 * One problem with the parameters: where (`loc`), what (`msg`, for people), a stable `type`
 * word, and for a limit the limit itself (`ctx`, as in `{"max_length": 10000}`). A problem in
 * `filter` also says where in the filter (`ctx.position`, a 0-based offset in code points).
 */
export interface SiloQueryErrorItem {
  loc: (string | number)[];
  msg: string;
  type: ErrorType;
  ctx?: Record<string, number>;
}

export class SiloQueryError extends Error {
  /** Every problem found, in parameter order (idx, path, output, q, value, op, filter, sort,
   * limit, offset, fields). Never empty. */
  readonly detail: SiloQueryErrorItem[];

  constructor(detail: SiloQueryErrorItem[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ') || 'invalid query parameters');
    this.name = 'SiloQueryError';
    this.detail = detail;
  }
}

/** Stable machine words used in `SiloQueryError.detail[].type`. */
export const ErrorType = {
  /** A parameter was given more than once (`idx=1&idx=2`). */
  multipleValues: 'multiple_values',
  /** A plain-object parameter value that is not a string (or an array of strings). */
  stringType: 'string_type',
  /** `idx`, `limit` or `offset` is not a non-negative integer in canonical form. */
  intParsing: 'int_parsing',
  /** `path`, `q`, a `sort` key, a `fields` path or a path in `filter` has an empty segment
   * (`a..b`, `.a`, `a.`, or the empty string). */
  pathSegmentEmpty: 'path_segment_empty',
  /** `output` or `op` is not one of the allowed words. */
  enum: 'enum',
  /** A recognised but unsupported combination or value: `output=date`, `output=timestamp`,
   * `output` or `idx` with search or any list parameter (filter, sort, limit, offset, fields),
   * `fields` with `path`. */
  notSupported: 'not_supported',
  /** A required parameter is absent: `value` with `q`, or `q` when `value`/`op` is given. */
  missing: 'missing',
  /** A LIKE pattern (`value` with `op=lk`/`il`, or an `lk`/`il` literal in `filter`) that ends
   * in an unescaped backslash. */
  likePatternInvalid: 'like_pattern_invalid',
  /** A LIKE pattern over a cost limit: more than 10 000 code points (`ctx.max_length`), or a
   * stretch with `_` between two `%` longer than 32 code points (`ctx.max_span`). */
  likePatternTooLong: 'like_pattern_too_long',
  /** Search (`q`), `filter`, `sort`, `limit`, `offset` or `fields` on data that is not an array
   * (raised when the compiled query runs, one item per such parameter). */
  searchRequiresArray: 'search_requires_array',
  /** `filter` does not follow the grammar; `msg` says what was expected, `ctx.position` where. */
  filterSyntax: 'filter_syntax',
  /** `filter` is longer than 4 096 code points (`ctx.max_length`, `ctx.position`). */
  filterTooLong: 'filter_too_long',
  /** `filter` has more than 32 conditions; each value of an `in` list counts as one
   * (`ctx.max_conditions`, `ctx.position` of the first one too many). */
  filterTooManyConditions: 'filter_too_many_conditions',
  /** `filter` nests parentheses and `not` more than 8 deep (`ctx.max_depth`, `ctx.position`). */
  filterTooDeep: 'filter_too_deep',
  /** `sort` names more than 8 keys (`ctx.max_keys`). */
  tooManySortKeys: 'too_many_sort_keys',
  /** `fields` names more than 32 paths (`ctx.max_fields`). */
  tooManyFields: 'too_many_fields',
  /** A `fields` path has more than 1 000 segments (`ctx.max_segments`). */
  fieldsPathTooLong: 'fields_path_too_long',
  /** `limit` is above 10 000 (`ctx.le`). */
  lessThanEqual: 'less_than_equal',
} as const;

/** One of the words above: `ErrorType.intParsing` is a value of type `ErrorType`. */
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];
