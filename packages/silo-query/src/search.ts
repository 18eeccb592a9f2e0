/**
 * Search: keep the elements of an array whose field `q` passes the operator, in array order;
 * then, with `path`, map each match through `path` (`null` where it does not resolve).
 * Elements that are not objects (arrays, strings, numbers, `JsonNumber`s, booleans, null)
 * never match.
 *
 * A one-segment `q` (the common `q=city`) runs in a loop written per operator, with the field
 * read and the comparison inline; deeper `q` use the compiled accessor and predicate.
 */
import {
  compareCodePoints,
  compareJsonNumberField,
  compareNumericString,
  compileEq,
  compileGt,
  compileLt,
  compileNe,
  hasHighUnits,
  readNumericValue,
  type Predicate,
} from './compare.js';
import { ErrorType, SiloQueryError } from './errors.js';
import { isJsonNumberObject, JsonNumber } from './json-number.js';
import { compileLike, type LikeMatcher } from './like.js';
import { isJsonNumber } from './numbers.js';
import { compileSegments, internalize, isOwnValue, OP, type Accessor, type Segment } from './path.js';

export type Op = 'eq' | 'ne' | 'gt' | 'lt' | 'lk' | 'il';
export const OPS: readonly Op[] = ['eq', 'ne', 'gt', 'lt', 'lk', 'il'];

function likeMatcher(op: 'lk' | 'il', value: string): LikeMatcher {
  const r = compileLike(value, op === 'il');
  if (!r.ok) throw new Error('invalid LIKE pattern'); // params.ts rejects these first
  return r.match;
}

/** The field predicate of `op` with `value` (`undefined` field = missing). */
export function compilePredicate(op: Op, value: string): Predicate {
  switch (op) {
    case 'eq':
      return compileEq(value);
    case 'ne':
      return compileNe(value);
    case 'gt':
      return compileGt(value);
    case 'lt':
      return compileLt(value);
    case 'lk':
    case 'il': {
      const match = likeMatcher(op, value);
      return (f) => typeof f === 'string' && match(f);
    }
  }
}

/** What `data` is, for messages: `an object`, `a string`, `null`, … */
export function describeData(data: unknown): string {
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'an array';
  if (data instanceof JsonNumber) return 'a number';
  if (typeof data === 'object') return 'an object';
  return `a ${typeof data}`;
}

/** The error of a search over data that is not an array. */
export function searchRequiresArray(data: unknown): SiloQueryError {
  return new SiloQueryError([
    {
      loc: ['query', 'q'],
      msg: `Search needs the data to be an array of objects; this data is ${describeData(data)}`,
      type: ErrorType.searchRequiresArray,
    },
  ]);
}

type Search = (data: unknown) => unknown[];
type Emit = Accessor | undefined;

/** Generic search: any `q` depth, any predicate. */
function genericSearch(q: Accessor, test: Predicate, path: Emit): Search {
  return (data) => {
    if (!Array.isArray(data)) throw searchRequiresArray(data);
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) {
      const el: unknown = data[i];
      if (typeof el !== 'object' || el === null || Array.isArray(el)) continue;
      const f = q(el);
      // A path never resolves on a JsonNumber (a number, not an object): only a missing field
      // can come from one, and it must not match (ne).
      if (test(f) && (f !== undefined || !isJsonNumberObject(el))) {
        if (path === undefined) out.push(el);
        else out.push(path(el));
      }
    }
    return out;
  };
}

/** `eq` (or `ne` when `negate`) on a one-segment `q`. */
function eqSearch(key: string, raw: string, negate: boolean, path: Emit): Search {
  const value = internalize(raw);
  const numeric = readNumericValue(value);
  // The plain number that equals `value` (`1` for `1.0`), NaN when none does (NaN never equals).
  const num = numeric === undefined ? Number.NaN : numeric.eqDouble;
  const bool = value === 'true' ? true : value === 'false' ? false : undefined;
  const isNull = value === 'null';
  // A value that is no number and no literal can only equal a string field: compare first, and
  // check the element's kind only on a hit (a primitive element can only hit falsely).
  if (!negate && numeric === undefined && bool === undefined && !isNull) return stringEqSearch(key, value, path);
  const textKey = key === 'text'; // the one own key of a JsonNumber
  return (data) => {
    if (!Array.isArray(data)) throw searchRequiresArray(data);
    const inherited = OP[key]; // Object.prototype cannot change during the loop
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) {
      const el: unknown = data[i];
      if (typeof el !== 'object' || el === null || Array.isArray(el)) continue;
      const f = (el as Record<string, unknown>)[key];
      let hit: boolean;
      if (typeof f === 'string') hit = f === value;
      else if (typeof f === 'number') hit = f === num;
      else if (typeof f === 'boolean') hit = f === bool;
      else if (f === null) hit = isNull;
      else hit = numeric !== undefined && f instanceof JsonNumber && compareJsonNumberField(f, numeric) === 0;
      if (hit) hit = isOwnValue(el, key, f, inherited);
      if (hit !== negate) {
        // A JsonNumber element is a number, not an object: in neither eq nor ne. On one, the
        // field is its own `text`, an inherited method, or missing; any other field rules it out.
        if ((textKey || (negate && (f === undefined || typeof f === 'function'))) && el instanceof JsonNumber) continue;
        if (path === undefined) out.push(el);
        else out.push(path(el));
      }
    }
    return out;
  };
}

/** `eq` of a string `value` that only a string field can equal, on a one-segment `q`. */
function stringEqSearch(key: string, value: string, path: Emit): Search {
  const textKey = key === 'text'; // the one own key of a JsonNumber
  return (data) => {
    if (!Array.isArray(data)) throw searchRequiresArray(data);
    const inherited = OP[key];
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) {
      const el: unknown = data[i];
      if (el === null || el === undefined) continue;
      const f = (el as Record<string, unknown>)[key];
      if (f === value && typeof el === 'object' && !Array.isArray(el) && isOwnValue(el, key, f, inherited) && (!textKey || !(el instanceof JsonNumber))) {
        if (path === undefined) out.push(el);
        else out.push(path(el));
      }
    }
    return out;
  };
}

/** `gt` (`sign` 1) or `lt` (`sign` -1) on a one-segment `q`; see compare.ts for the rules. */
function orderSearch(key: string, value: string, sign: 1 | -1, path: Emit): Search {
  const numeric = readNumericValue(value);
  const n = numeric === undefined ? 0 : numeric.double;
  const tie = numeric === undefined ? Number.NaN : numeric.tie; // how a plain number equal to n compares
  const native = !hasHighUnits(value);
  const textKey = key === 'text'; // the one own key of a JsonNumber: only then can one hit
  return (data) => {
    if (!Array.isArray(data)) throw searchRequiresArray(data);
    const inherited = OP[key];
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) {
      const el: unknown = data[i];
      if (typeof el !== 'object' || el === null || Array.isArray(el)) continue;
      const f = (el as Record<string, unknown>)[key];
      let hit = false;
      if (typeof f === 'number') {
        if (numeric !== undefined) hit = sign === 1 ? f > n || (f === n && tie > 0) : f < n || (f === n && tie < 0);
      } else if (typeof f === 'string') {
        if (numeric !== undefined && isJsonNumber(f)) {
          const c = compareNumericString(f, numeric);
          hit = sign === 1 ? c > 0 : c < 0;
        } else if (native) hit = sign === 1 ? f > value : f < value;
        else hit = sign === 1 ? compareCodePoints(f, value) > 0 : compareCodePoints(f, value) < 0;
      } else if (numeric !== undefined && f instanceof JsonNumber) {
        const c = compareJsonNumberField(f, numeric);
        hit = sign === 1 ? c > 0 : c < 0;
      }
      if (hit && isOwnValue(el, key, f, inherited) && (!textKey || !(el instanceof JsonNumber))) {
        if (path === undefined) out.push(el);
        else out.push(path(el));
      }
    }
    return out;
  };
}

/** `lk` / `il` on a one-segment `q`. */
function likeSearch(key: string, match: LikeMatcher, path: Emit): Search {
  const textKey = key === 'text'; // the one own key of a JsonNumber: only then can one hit
  return (data) => {
    if (!Array.isArray(data)) throw searchRequiresArray(data);
    const inherited = OP[key];
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) {
      const el: unknown = data[i];
      if (typeof el !== 'object' || el === null || Array.isArray(el)) continue;
      const f = (el as Record<string, unknown>)[key];
      if (typeof f === 'string' && match(f) && isOwnValue(el, key, f, inherited) && (!textKey || !(el instanceof JsonNumber))) {
        if (path === undefined) out.push(el);
        else out.push(path(el));
      }
    }
    return out;
  };
}

/**
 * Compiles a search; `path` (built with miss = null) maps each match. The returned function throws `SiloQueryError` (`search_requires_array`)
 * when the data is not an array.
 */
export function compileSearch(q: readonly Segment[], op: Op, value: string, path: Emit): Search {
  const only = q.length === 1 ? q[0]! : undefined;
  if (only !== undefined && only.key !== '__proto__') {
    const key = only.key;
    switch (op) {
      case 'eq':
      case 'ne':
        return eqSearch(key, value, op === 'ne', path);
      case 'gt':
      case 'lt':
        return orderSearch(key, value, op === 'gt' ? 1 : -1, path);
      case 'lk':
      case 'il':
        return likeSearch(key, likeMatcher(op, value), path);
    }
  }
  return genericSearch(compileSegments(q), compilePredicate(op, value), path);
}
