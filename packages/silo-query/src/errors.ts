/**
 * The one error type of silo-query. `detail` is exactly the `detail` array of the API's 422
 * validation body: `{"detail": [{"loc": ["query", "idx"], "msg": "...", "type": "int_parsing"}]}`.
 */

/**
 * One problem with the parameters: where (`loc`), what (`msg`, for people), a stable `type`
 * word, and for a limit the limit itself (`ctx`, as in `{"max_length": 10000}`).
 */
export interface SiloQueryErrorItem {
  loc: (string | number)[];
  msg: string;
  type: ErrorType;
  ctx?: Record<string, number>;
}

export class SiloQueryError extends Error {
  /** Every problem found, in parameter order (idx, path, output, q, value, op). Never empty. */
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
  /** `idx` is not a non-negative integer in canonical form. */
  intParsing: 'int_parsing',
  /** `path` or `q` has an empty segment (`a..b`, `.a`, `a.`, or the empty string). */
  pathSegmentEmpty: 'path_segment_empty',
  /** `output` or `op` is not one of the allowed words. */
  enum: 'enum',
  /** A recognised but unsupported combination or value: `output=date`, `output=timestamp`,
   * `output` with search, `idx` with search. */
  notSupported: 'not_supported',
  /** A required parameter is absent: `value` with `q`, or `q` when `value`/`op` is given. */
  missing: 'missing',
  /** A LIKE pattern (`value` with `op=lk`/`il`) that ends in an unescaped backslash. */
  likePatternInvalid: 'like_pattern_invalid',
  /** A LIKE pattern over a cost limit: more than 10 000 code points (`ctx.max_length`), or a
   * stretch with `_` between two `%` longer than 32 code points (`ctx.max_span`). */
  likePatternTooLong: 'like_pattern_too_long',
  /** Search (`q`) on data that is not an array (raised when the compiled query runs). */
  searchRequiresArray: 'search_requires_array',
} as const;

/** One of the words above: `ErrorType.intParsing` is a value of type `ErrorType`. */
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];
