/**
 * Dot paths (`a.b.0.c`): parsed once into an accessor closure.
 *
 * Rules (contract §5): a segment is an object key, looked up among the object's OWN properties
 * only (never the prototype: `constructor`, `toString` or `__proto__` resolve only when the
 * object has that own key), case-sensitive; or, on an array, a canonical non-negative integer
 * index (`0`, `7`; never `01`, `-1`, `1.0`, `length`). Strings, numbers (`JsonNumber`s too),
 * booleans and null have no segments. An accessor returns `undefined` when the path does not
 * resolve (JSON has no `undefined`, so it cannot be confused with a stored `null`).
 */
import { JsonNumber } from './json-number.js';

/** One parsed segment: the key, and its array index (-1 when the key is not a canonical index). */
export interface Segment {
  readonly key: string;
  readonly index: number;
}

/** Resolves a parsed path against a value; `undefined` when it does not resolve. */
export type Accessor = (value: unknown) => unknown;

/** `true` for `0` and for `[1-9][0-9]*`: the canonical form of a non-negative integer. */
export function isCanonicalIndex(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  const c0 = s.charCodeAt(0);
  if (c0 === 0x30) return n === 1;
  if (c0 < 0x31 || c0 > 0x39) return false;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** The index a canonical string denotes (exact up to 2^53; larger ones exceed every array length anyway). */
export function indexOf(s: string): number {
  return isCanonicalIndex(s) ? Number(s) : -1;
}

/**
 * The engine's canonical (internalized) copy of `s`. A property key that is a fresh substring
 * (from `split`) makes every keyed load look it up in the string table first; the canonical
 * copy goes straight to the property. Object keys are always canonical, so this reads one back.
 */
export function internalize(s: string): string {
  const keys = Object.keys({ [s]: 0 });
  return keys.length === 1 && keys[0] === s ? keys[0] : s;
}

/**
 * Splits a dot path into segments. Returns the 0-based positions of empty segments instead
 * when there are any (`a..b` → [1]; `` → [0]; `.a` → [0]; `a.` → [1]).
 */
export function parsePath(path: string): { segments: Segment[] } | { empty: number[] } {
  const parts = path.split('.');
  const empty: number[] = [];
  const segments: Segment[] = new Array<Segment>(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const key = internalize(parts[i]!);
    if (key.length === 0) empty.push(i);
    segments[i] = { key, index: indexOf(key) };
  }
  return empty.length > 0 ? { empty } : { segments };
}

export const OP: Record<string, unknown> = Object.prototype as Record<string, unknown>;
// Hot paths call Array.isArray, Object.getPrototypeOf and Object.hasOwn directly: the engine
// folds those global loads, while a module-level alias costs a context load and check per call.

/**
 * `true` when `v`, read as `obj[key]` and not `undefined`, is an own property of `obj`.
 * `inherited` is `Object.prototype[key]`. A value read through the prototype chain of a plain
 * object (prototype `Object.prototype` or `null`) can only come from `Object.prototype`, so a
 * different value is own; anything else (a value equal to Object.prototype's, an object with
 * another prototype) is settled by `Object.hasOwn`. Never used for `__proto__` (an accessor).
 */
export function isOwnValue(obj: object, key: string, v: unknown, inherited: unknown): boolean {
  if (v !== inherited) {
    const p: unknown = Object.getPrototypeOf(obj);
    if (p === Object.prototype || p === null) return true;
  }
  return Object.hasOwn(obj, key);
}

/** Reads one segment from one value; its `miss` value (`null` or `undefined`) when it does not resolve. */
export type Getter = (cur: unknown) => unknown;

/*
 * One getter for every key, `__proto__` included: it asks `hasOwn` before it reads, so nothing
 * inherited is ever read (no prototype accessor runs). An earlier version kept 24 copies of this
 * literal so that the first keys of a process got inline caches of their own; it flattered
 * micro-benchmarks more than a server that compiles many paths, and was removed.
 */
function ownGetter(key: string, index: number, miss: null | undefined): Getter {
  return (cur) => {
    if (typeof cur !== 'object' || cur === null) return miss;
    if (Array.isArray(cur)) return index >= 0 && index < cur.length ? cur[index] : miss;
    if (!Object.hasOwn(cur, key)) return miss;
    const v = (cur as Record<string, unknown>)[key];
    return v === undefined ? miss : v;
  };
}

/**
 * The getter of the key `text`, the one own property of a `JsonNumber`: a number has no
 * segments, so it also misses on a `JsonNumber` (other keys miss on it by `hasOwn` alone).
 */
function textGetter(miss: null | undefined): Getter {
  const own = ownGetter('text', -1, miss);
  return (cur) => (cur instanceof JsonNumber ? miss : own(cur));
}

/** The getter of one segment. */
export function compileSegment(segment: Segment, miss: null | undefined = undefined): Getter {
  return segment.key === 'text' ? textGetter(miss) : ownGetter(segment.key, segment.index, miss);
}

/** The element `index` of `value` when it is an array that long; otherwise `undefined`. */
export function elementAt(value: unknown, index: number): unknown {
  return Array.isArray(value) && index < value.length ? value[index] : undefined;
}

/**
 * Builds the accessor of a parsed path. It returns `miss` when the path does not resolve:
 * `undefined` (the default) keeps "missing" apart from a stored `null`, which a search field
 * needs; `null` is what a query result wants. Each getter returns its own miss for anything it
 * cannot step into, so the getters chain without tests in between (stepping on from a stored
 * `null` or a miss misses, as it should).
 */
export function compileSegments(segments: readonly Segment[], miss: null | undefined = undefined): Accessor {
  const last = segments.length - 1;
  const g = segments.map((s, i) => compileSegment(s, i === last ? miss : null));
  switch (g.length) {
    case 0:
      return (v) => (v === undefined ? miss : v);
    case 1:
      return g[0]!;
    case 2: {
      const [g0, g1] = g as [Getter, Getter];
      return (v) => g1(g0(v));
    }
    case 3: {
      const [g0, g1, g2] = g as [Getter, Getter, Getter];
      return (v) => g2(g1(g0(v)));
    }
    case 4: {
      const [g0, g1, g2, g3] = g as [Getter, Getter, Getter, Getter];
      return (v) => g3(g2(g1(g0(v))));
    }
    case 5: {
      const [g0, g1, g2, g3, g4] = g as [Getter, Getter, Getter, Getter, Getter];
      return (v) => g4(g3(g2(g1(g0(v)))));
    }
    case 6: {
      const [g0, g1, g2, g3, g4, g5] = g as [Getter, Getter, Getter, Getter, Getter, Getter];
      return (v) => g5(g4(g3(g2(g1(g0(v))))));
    }
    default: {
      return (v) => {
        let cur = v;
        for (let i = 0; i < last; i++) {
          cur = g[i]!(cur);
          if (cur === null) return miss; // a miss, or a stored null: nothing to step into
        }
        return g[last]!(cur);
      };
    }
  }
}

/** Parses and compiles a dot path; throws a plain Error on empty segments (use `parsePath` to validate). */
export function compilePath(path: string): Accessor {
  const parsed = parsePath(path);
  if ('empty' in parsed) throw new Error(`path ${JSON.stringify(path)} has an empty segment`);
  return compileSegments(parsed.segments);
}
