/**
 * The bounds of the query language (contract §16), in one place: the parameter readers check
 * them before any work on data starts, and the README and the error messages quote them.
 */
export const QUERY_BOUNDS = {
  /** Code points in `filter`. Bounds parsing, and with the two below, the work per element. */
  filterMaxLength: 4096,
  /** Conditions in `filter`; each value of an `in (…)` list counts as one (it is one `eq`). */
  filterMaxConditions: 32,
  /** Levels of `(` and `not` around a condition: keeps the parser's recursion and the
   * evaluator's closure chain short whatever the text. */
  filterMaxDepth: 8,
  /** Keys in `sort`: each one is a column of keys built per match. */
  sortMaxKeys: 8,
  /** Paths in `fields`. */
  fieldsMax: 32,
  /** Segments in one `fields` path: the projection walks a path's levels (no stored value of
   * Silo's nests deeper than 1 000), and an unbounded one overflowed the stack. */
  fieldsPathMaxSegments: 1000,
  /** The largest `limit`: one answer holds at most this many elements. */
  limitMax: 10_000,
} as const;
