/**
 * `sort` (contract §16): one total order over every value a path can give, ascending:
 *
 *   numbers, and strings in JSON number grammar, by exact value (as `gt`/`lt` compare them)
 *   < other strings, by code point
 *   < false < true
 *   < objects and arrays (equal to each other)
 *   < null
 *   < a path that does not resolve (missing).
 *
 * Descending is the exact reverse of that order; ties keep array order in both directions (the
 * sort is stable). Several keys compare in turn.
 *
 * Each key's values are read once per match into a column (a rank, a double, the value), so a
 * comparison is a few array reads rather than a path walk and a type dispatch. Matches are then
 * ordered as indexes: a full sort, or with a limit k, the k first through a bounded heap.
 */
import { compareCodePoints, hasHighUnits } from './compare.js';
import { compareDecimals, JsonNumber, toDecimal, type Decimal } from './json-number.js';
import { isJsonNumber } from './numbers.js';
import { compileSegments, isOwnValue, OP, type Accessor, type Segment } from './path.js';
import { smallestK, sortAll, type IndexOrder } from './top-k.js';

/** One key of `sort`: a path, and `-` (descending) or not. */
export interface SortKey {
  readonly path: readonly Segment[];
  readonly descending: boolean;
}

// The ranks, in ascending order.
const NUMBER = 0;
const STRING = 1;
const FALSE = 2;
const TRUE = 3;
const CONTAINER = 4;
const NULL = 5;
const MISSING = 6;

/** A key's values over the matches, read once. */
interface Column {
  readonly rank: Uint8Array;
  /** The nearest double of a NUMBER (a numeric string's too); 0 otherwise. */
  readonly num: Float64Array;
  /**
   * A STRING's string, and a NUMBER's value when it is not a plain number (a `JsonNumber`, a
   * numeric string: what an exact tie needs). Plain numbers stay out (`undefined`): putting a
   * double into an array of anything boxes it, one allocation per element. Allocated only when
   * a column has such a value (a column of plain numbers needs none).
   */
  readonly val: unknown[] | undefined;
  /**
   * The exact decimals of NUMBERs that tied on their doubles, each made once (made at every such
   * comparison, 30 ms went to a sort of 2 000 equal numeric strings by 8 keys).
   */
  dec: (Decimal | undefined)[] | undefined;
  /** `true` when no STRING holds a code unit ≥ U+D800, so the native `<` is code point order. */
  readonly native: boolean;
  readonly sign: 1 | -1;
}

/**
 * How a key's value is read from an element (an object, never an array or a number): by the
 * path's accessor, or for a one-segment path by a keyed load and the own-property proof §5's
 * search loops use (`isOwnValue`): no call per element, and no boxed double returned by one.
 */
type Reader = { get: Accessor; key: undefined } | { get: undefined; key: string };

function readerOf(path: readonly Segment[]): Reader {
  // `__proto__` reads through an accessor: the path's getter asks hasOwn first.
  const only = path.length === 1 ? path[0]!.key : undefined;
  return only === undefined || only === '__proto__' ? { get: compileSegments(path), key: undefined } : { get: undefined, key: only };
}

function readColumn(items: readonly object[], reader: Reader, descending: boolean): Column {
  const n = items.length;
  const rank = new Uint8Array(n);
  const num = new Float64Array(n);
  let val: unknown[] | undefined;
  let native = true;
  const { get, key } = reader;
  const inherited = key === undefined ? undefined : OP[key]; // Object.prototype cannot change meanwhile
  for (let i = 0; i < n; i++) {
    const el = items[i]!;
    let f: unknown;
    if (get !== undefined) f = get(el);
    else {
      f = (el as Record<string, unknown>)[key!];
      if (f !== undefined && !isOwnValue(el, key!, f, inherited)) f = undefined;
    }
    switch (typeof f) {
      case 'number':
        // JSON has no NaN or Infinity; a library caller's are ranked with the other non-JSON values.
        if (Number.isFinite(f)) num[i] = f;
        else rank[i] = CONTAINER;
        break;
      case 'string':
        (val ??= new Array<unknown>(n))[i] = f;
        if (isJsonNumber(f)) {
          num[i] = Number(f);
        } else {
          rank[i] = STRING;
          if (native && hasHighUnits(f)) native = false;
        }
        break;
      case 'boolean':
        rank[i] = f ? TRUE : FALSE;
        break;
      case 'undefined':
        rank[i] = MISSING;
        break;
      case 'object':
        if (f === null) rank[i] = NULL;
        else if (f instanceof JsonNumber) {
          num[i] = Number(f.text);
          (val ??= new Array<unknown>(n))[i] = f;
        } else rank[i] = CONTAINER;
        break;
      default:
        rank[i] = CONTAINER;
    }
  }
  return { rank, num, val, dec: undefined, native, sign: descending ? -1 : 1 };
}

/** The exact decimal of NUMBER `i` of `c` (see Column.dec). */
function decimalAt(c: Column, i: number): Decimal {
  const dec = (c.dec ??= new Array<Decimal | undefined>(c.num.length));
  let d = dec[i];
  if (d === undefined) {
    const v = c.val?.[i];
    dec[i] = d = toDecimal(typeof v === 'string' ? v : v instanceof JsonNumber ? v.text : '' + c.num[i]!);
  }
  return d;
}

/** Ascending order of matches `i` and `j` by one column (0 for equal values). */
function compareIn(c: Column, i: number, j: number): number {
  const ri = c.rank[i]!;
  const d = ri - c.rank[j]!;
  if (d !== 0) return d;
  if (ri === NUMBER) {
    const a = c.num[i]!;
    const b = c.num[j]!;
    if (a !== b) return a < b ? -1 : 1;
    // Equal doubles: two plain numbers (no `val`) are one number, as a double has one JSON text;
    // anything else is settled by the exact decimals of the texts.
    if (c.val?.[i] === undefined && c.val?.[j] === undefined) return 0;
    return compareDecimals(decimalAt(c, i), decimalAt(c, j));
  }
  if (ri === STRING) {
    // A STRING rank means `val` holds the strings.
    const a = c.val![i] as string;
    const b = c.val![j] as string;
    if (a === b) return 0;
    if (c.native) return a < b ? -1 : 1;
    return compareCodePoints(a, b);
  }
  return 0; // booleans of one rank, containers, null, missing: equal
}

/** The order of match indexes: the keys in turn (each reversed when descending), then the index. */
function indexOrder(columns: readonly Column[]): IndexOrder {
  if (columns.length === 1) {
    const c = columns[0]!;
    const sign = c.sign;
    return (i, j) => sign * compareIn(c, i, j) || i - j;
  }
  return (i, j) => {
    for (let k = 0; k < columns.length; k++) {
      const c = columns[k]!;
      const r = compareIn(c, i, j);
      if (r !== 0) return c.sign * r;
    }
    return i - j;
  };
}

/** Sorts match lists by fixed keys; compiled once per query. */
export type Sorter = <T extends object>(items: readonly T[], first?: number) => T[];

/**
 * The sorter of `keys`. `first`, when given, asks for only the first `first` items of the
 * order (offset + limit): then a bounded heap picks them in O(n log first).
 */
export function compileSort(keys: readonly SortKey[]): Sorter {
  // A path sorted by already decides nothing again (its values tied the first time): only each
  // path's first key is read and compared.
  const seen = new Set<string>();
  const distinct = keys.filter((k) => {
    const id = JSON.stringify(k.path);
    return !seen.has(id) && seen.add(id) !== undefined;
  });
  const readers = distinct.map((k) => ({ reader: readerOf(k.path), descending: k.descending }));
  return <T extends object>(items: readonly T[], first?: number): T[] => {
    const n = items.length;
    const k = first === undefined ? n : Math.min(first, n);
    if (k === 0) return [];
    const columns = readers.map(({ reader, descending }) => readColumn(items, reader, descending));
    const cmp = indexOrder(columns);
    // Below half the items the heap wins; from there on log k ≥ log n − 1, and the engine's
    // merge sort (whole runs at a time) is the faster way to the same O(n log k).
    const order = k < n / 2 ? smallestK(n, k, cmp) : sortAll(n, cmp);
    const out = new Array<T>(k);
    for (let i = 0; i < k; i++) out[i] = items[order[i]!]!;
    return out;
  };
}
