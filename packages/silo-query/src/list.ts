/**
 * A list query (contract §16): the matches of the seed's `q/value/op` and `filter` (both must
 * hold), then `sort`, then `offset` and `limit`, then `path` or `fields` on each result; and the
 * number of matches before `offset` and `limit` (`X-Total-Count`).
 *
 * Only object elements take part (arrays, numbers, strings, booleans, null never match), with
 * or without a condition.
 */
import { ErrorType, SiloQueryError, type SiloQueryErrorItem } from './errors.js';
import { compileFields } from './fields.js';
import { compileFilter, isObjectElement, objectsOf, type Narrow } from './filter.js';
import type { JsonValue } from './json-value.js';
import { toJSON } from './json.js';
import type { ListPlan } from './list-params.js';
import { compileSegments, type Segment } from './path.js';
import { compileSearch, describeData, searchRequiresArray, type Op } from './search.js';
import { compileSort } from './sort.js';

/** A list query's answer: the results, and how many matched before `offset` and `limit`. */
export interface ListResult {
  items: JsonValue[];
  total: number;
}

/** A list query's answer as JSON text, and the count. */
export interface ListText {
  text: string;
  total: number;
}

/** A list query: its results, and (`text`) the same answer as JSON text. */
export interface ListQuery {
  (data: unknown): ListResult;
  text(data: unknown): ListText;
}

/**
 * Results mapped (by `fields` or `path`) and serialised this many at a time: `fields` builds a new
 * object per result, and a million of them at once would take hundreds of megabytes that the
 * text alone (each `{}` two characters) does not.
 */
const TEXT_SLICE = 1024;

/** `JSON.stringify(page.map(emit))`, without holding every mapped result at once. */
function pageText(page: readonly object[], emit: ((el: object) => unknown) | undefined): string {
  if (emit === undefined || page.length <= TEXT_SLICE) return toJSON(emit === undefined ? page : page.map(emit));
  const parts: string[] = [];
  for (let i = 0; i < page.length; i += TEXT_SLICE) parts.push(toJSON(page.slice(i, i + TEXT_SLICE).map(emit)).slice(1, -1));
  return `[${parts.join(',')}]`;
}

/** The §5 search that seeds a list query, as params.ts validated it. */
export interface Seed {
  q: readonly Segment[];
  op: Op;
  value: string;
}

/** The error for data that is not an array: one item per list parameter given (§16). */
function notAnArray(data: unknown, names: readonly string[]): SiloQueryError {
  const items: SiloQueryErrorItem[] = names.map((name) =>
    name === 'q'
      ? searchRequiresArray(data).detail[0]!
      : {
        loc: ['query', name],
        msg: `${name} needs the data to be an array of objects; this data is ${describeData(data)}`,
        type: ErrorType.searchRequiresArray,
      });
  return new SiloQueryError(items);
}

/**
 * Without a condition or a sort, the page is known while scanning: count every object element,
 * keep only those from `offset` to `end` (no array of all of them is built).
 */
function scanPage(data: readonly unknown[], offset: number, end: number): { page: object[]; total: number } {
  const page: object[] = [];
  let total = 0;
  for (let i = 0; i < data.length; i++) {
    const el = data[i];
    if (!isObjectElement(el)) continue;
    if (total >= offset && total < end) page.push(el);
    total++;
  }
  return { page, total };
}

/** The matches of the seed and the filter (both must hold): object elements, in array order. */
function matcher(search: ((data: readonly unknown[]) => unknown[]) | undefined, narrow: Narrow | undefined): ((data: readonly unknown[]) => object[]) | undefined {
  if (search === undefined) return narrow;
  if (narrow === undefined) return search as (data: readonly unknown[]) => object[];
  return (data) => {
    const seeded = search(data) as object[];
    return seeded.length === 0 ? seeded : narrow(seeded);
  };
}

/** Compiles a list query; `path` (§5) maps each result, as `fields` would (never both). */
export function compileList(seed: Seed | undefined, list: ListPlan | undefined, path: readonly Segment[] | undefined): ListQuery {
  const search = seed === undefined ? undefined : compileSearch(seed.q, seed.op, seed.value, undefined);
  // After the seed, the filter narrows the seed's matches, which are object elements only.
  const narrow = list?.filter === undefined ? undefined : compileFilter(list.filter, search !== undefined);
  const matches = matcher(search, narrow);
  const sorter = list?.sort === undefined ? undefined : compileSort(list.sort);
  const offset = list?.offset ?? 0;
  const limit = list?.limit;
  const end = limit === undefined ? Number.POSITIVE_INFINITY : offset + limit;
  const emit: ((el: object) => unknown) | undefined = path !== undefined
    ? compileSegments(path, null)
    : list?.fields !== undefined ? compileFields(list.fields) : undefined;
  const names = [...(seed === undefined ? [] : ['q']), ...(list?.given ?? [])];

  /** The page of results (before `path` or `fields`) and the count. */
  const select = (data: unknown): { page: object[]; total: number } => {
    if (!Array.isArray(data)) throw notAnArray(data, names);
    let page: object[];
    let total: number;
    if (matches === undefined && sorter === undefined) {
      ({ page, total } = scanPage(data, offset, end));
    } else {
      const all = matches === undefined ? objectsOf(data) : matches(data);
      total = all.length;
      if (offset >= total || end === offset) {
        page = []; // past the end, or limit=0: nothing to order
      } else if (sorter !== undefined) {
        // Only the first `end` of the order are needed: with a limit, a bounded heap finds them.
        const sorted = sorter(all, end === Number.POSITIVE_INFINITY ? undefined : end);
        page = offset === 0 ? sorted : sorted.slice(offset);
      } else {
        page = offset === 0 && end >= total ? all : all.slice(offset, end);
      }
    }
    return { page, total };
  };
  return Object.assign(
    (data: unknown): ListResult => {
      const { page, total } = select(data);
      // Every step selects within JSON data (fields builds objects of its parts): JSON in, JSON out.
      return { items: (emit === undefined ? page : page.map(emit)) as JsonValue[], total };
    },
    {
      text: (data: unknown): ListText => {
        const { page, total } = select(data);
        return { text: pageText(page, emit), total };
      },
    },
  );
}
