/**
 * Reads the list parameters of contract §16 (`filter`, `sort`, `limit`, `offset`, `fields`)
 * from their raw strings into a validated plan, adding every problem to `errors`. params.ts
 * calls it beside its own checks (and checks the combinations with §5's parameters).
 *
 * Decisions beyond the contract (documented in the README):
 * - `sort` keys and `fields` paths are §5 dot paths, taken literally (no trimming: a key may
 *   start with a space); empty keys (`sort=a,,b`, `sort=`, `sort=-`) are `path_segment_empty`.
 * - `offset` has no upper bound: past the end it gives `[]` (with the count).
 */
import { QUERY_BOUNDS } from './bounds.js';
import { ErrorType, type SiloQueryErrorItem } from './errors.js';
import { parseFilter, type FilterNode } from './filter-parse.js';
import { isCanonicalIndex, parsePath, type Segment } from './path.js';
import type { SortKey } from './sort.js';

export const LIST_PARAM_NAMES = ['filter', 'sort', 'limit', 'offset', 'fields'] as const;
export type ListParamName = (typeof LIST_PARAM_NAMES)[number];

/** What the list parameters ask for, validated. */
export interface ListPlan {
  filter: FilterNode | undefined;
  sort: SortKey[] | undefined;
  /** Results skipped first (0 when not given). */
  offset: number;
  /** At most this many results, when given. */
  limit: number | undefined;
  fields: Segment[][] | undefined;
  /** The list parameters given, in parameter order (for errors that name each). */
  given: ListParamName[];
}

type Raw = Partial<Record<ListParamName, string>>;

/** A comma-separated list of §5 paths: the parsed paths, or the 0-based number of the first bad item. */
function readPaths(items: readonly string[], strip: (s: string) => string): { paths: Segment[][] } | { bad: number } {
  const paths: Segment[][] = [];
  for (let i = 0; i < items.length; i++) {
    const parsed = parsePath(strip(items[i]!));
    if ('empty' in parsed) return { bad: i };
    paths.push(parsed.segments);
  }
  return { paths };
}

const ordinal = (i: number): string => `${i + 1}${i === 0 ? 'st' : i === 1 ? 'nd' : i === 2 ? 'rd' : 'th'}`;

function readSort(raw: string, errors: SiloQueryErrorItem[]): SortKey[] | undefined {
  const loc = ['query', 'sort'];
  const items = raw.split(',');
  const max = QUERY_BOUNDS.sortMaxKeys;
  if (items.length > max) {
    errors.push({ loc, msg: `sort has ${items.length} keys; at most ${max} are allowed`, type: ErrorType.tooManySortKeys, ctx: { max_keys: max } });
    return undefined;
  }
  const read = readPaths(items, (s) => (s.startsWith('-') ? s.slice(1) : s));
  if ('bad' in read) {
    errors.push({
      loc,
      msg: `The ${ordinal(read.bad)} sort key has an empty segment: keys are separated by commas, each a path (segments separated by single dots) with an optional leading - for descending order`,
      type: ErrorType.pathSegmentEmpty,
    });
    return undefined;
  }
  return read.paths.map((path, i) => ({ path, descending: items[i]!.startsWith('-') }));
}

function readFields(raw: string, errors: SiloQueryErrorItem[]): Segment[][] | undefined {
  const loc = ['query', 'fields'];
  const items = raw.split(',');
  const max = QUERY_BOUNDS.fieldsMax;
  if (items.length > max) {
    errors.push({ loc, msg: `fields names ${items.length} paths; at most ${max} are allowed`, type: ErrorType.tooManyFields, ctx: { max_fields: max } });
    return undefined;
  }
  const read = readPaths(items, (s) => s);
  if ('bad' in read) {
    errors.push({
      loc,
      msg: `The ${ordinal(read.bad)} path in fields has an empty segment: paths are separated by commas, segments by single dots`,
      type: ErrorType.pathSegmentEmpty,
    });
    return undefined;
  }
  const segments = QUERY_BOUNDS.fieldsPathMaxSegments;
  const long = read.paths.findIndex((path) => path.length > segments);
  if (long !== -1) {
    errors.push({
      loc,
      msg: `The ${ordinal(long)} path in fields has ${read.paths[long]!.length} segments; at most ${segments} are allowed`,
      type: ErrorType.fieldsPathTooLong,
      ctx: { max_segments: segments },
    });
    return undefined;
  }
  return read.paths;
}

const CANONICAL = 'a non-negative integer in canonical form (0, 1, 2, ...: no sign, no leading zeros, no fraction)';

function readLimit(raw: string, errors: SiloQueryErrorItem[]): number | undefined {
  const loc = ['query', 'limit'];
  const max = QUERY_BOUNDS.limitMax;
  if (!isCanonicalIndex(raw)) {
    errors.push({ loc, msg: `Input should be ${CANONICAL}, at most ${max}`, type: ErrorType.intParsing });
    return undefined;
  }
  // A canonical integer longer than the bound's digits is above it (and may not fit a double).
  if (raw.length > String(max).length || Number(raw) > max) {
    errors.push({ loc, msg: `Input should be less than or equal to ${max}`, type: ErrorType.lessThanEqual, ctx: { le: max } });
    return undefined;
  }
  return Number(raw);
}

function readOffset(raw: string, errors: SiloQueryErrorItem[]): number | undefined {
  if (!isCanonicalIndex(raw)) {
    errors.push({ loc: ['query', 'offset'], msg: `Input should be ${CANONICAL}`, type: ErrorType.intParsing });
    return undefined;
  }
  // Past 2^53 the double is not exact, but it is past the end of every array all the same.
  return Number(raw);
}

function readFilter(raw: string, errors: SiloQueryErrorItem[]): FilterNode | undefined {
  const parsed = parseFilter(raw);
  if (parsed.ok) return parsed.node;
  for (const p of parsed.problems) errors.push({ loc: ['query', 'filter'], msg: p.msg, type: p.type, ctx: p.ctx });
  return undefined;
}

/**
 * The list plan of the given raw values (`present` names the parameters given at all, even
 * when their value was refused), or `undefined` when none is given.
 */
export function readListPlan(raw: Raw, present: (name: ListParamName) => boolean, errors: SiloQueryErrorItem[]): ListPlan | undefined {
  const given = LIST_PARAM_NAMES.filter(present);
  if (given.length === 0) return undefined;
  const filter = raw.filter === undefined ? undefined : readFilter(raw.filter, errors);
  const sort = raw.sort === undefined ? undefined : readSort(raw.sort, errors);
  const limit = raw.limit === undefined ? undefined : readLimit(raw.limit, errors);
  const offset = raw.offset === undefined ? undefined : readOffset(raw.offset, errors);
  const fields = raw.fields === undefined ? undefined : readFields(raw.fields, errors);
  return { filter, sort, limit, offset: offset ?? 0, fields, given };
}
