/**
 * `fields` (contract §16): each result keeps only the listed paths, nested as in the source.
 *
 * - A path reads as §5 says (own keys only, canonical indexes on arrays, never into a string or
 *   a number); one that does not resolve is left out, and so is a container none of whose
 *   listed paths resolve (`fields=address.zip` on `{"address": {}}` gives `{}`).
 * - Objects keep the keys in the order `fields` first names them; arrays keep the listed
 *   elements in index order, packed (`fields=tags.0,tags.2` gives `{"tags": [t0, t2]}`).
 * - A path and a longer one through it (`a`, `a.b`): the shorter one keeps all of `a`.
 * - Values are shared with the source, never copied.
 * - `finish` and `project` recurse once per level of a path: paths are at most
 *   QUERY_BOUNDS.fieldsPathMaxSegments long (list-params.ts), so the stack stays shallow.
 */
import { JsonNumber } from './json-number.js';
import type { Segment } from './path.js';

/** A path's step while `fields` is read: a key, and either all of it or some paths below. */
interface Draft {
  readonly key: string;
  readonly index: number;
  whole: boolean;
  children: Draft[];
}

/** One level of the projection, ready to run. */
interface Level {
  /** For an object: the keys, in the order `fields` first names them. */
  readonly named: readonly Step[];
  /** For an array: the steps whose key is a canonical index, by index. */
  readonly indexed: readonly Step[];
}

interface Step {
  readonly key: string;
  readonly index: number;
  /** `undefined`: keep the whole value. */
  readonly below: Level | undefined;
}

/** The projection of one result. */
export type Projector = (element: object) => Record<string, unknown>;

function addPath(root: Draft[], path: readonly Segment[]): void {
  let level = root;
  for (let at = 0; at < path.length; at++) {
    const seg = path[at]!;
    let node = level.find((n) => n.key === seg.key);
    if (node === undefined) {
      node = { key: seg.key, index: seg.index, whole: false, children: [] };
      level.push(node);
    }
    if (node.whole) return;
    if (at === path.length - 1) {
      node.whole = true;
      node.children = [];
    }
    level = node.children;
  }
}

function finish(drafts: readonly Draft[]): Level {
  const named = drafts.map((d): Step => ({ key: d.key, index: d.index, below: d.whole ? undefined : finish(d.children) }));
  const indexed = named.filter((s) => s.index >= 0).sort((a, b) => a.index - b.index);
  return { named, indexed };
}

/** Sets an own data property, also for the key `__proto__` (plain assignment would set the prototype). */
function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  else out[key] = v;
}

function pick(v: unknown, step: Step): unknown {
  if (v === undefined) return undefined;
  return step.below === undefined ? v : project(v, step.below);
}

/** The part of `value` that `level` selects, or `undefined` when none of it resolves. */
function project(value: unknown, level: Level): unknown {
  if (typeof value !== 'object' || value === null || value instanceof JsonNumber) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const step of level.indexed) {
      if (step.index >= value.length) break;
      const v = pick(value[step.index], step);
      if (v !== undefined) out.push(v);
    }
    return out.length > 0 ? out : undefined;
  }
  const out: Record<string, unknown> = {};
  let any = false;
  for (const step of level.named) {
    if (!Object.hasOwn(value, step.key)) continue;
    const v = pick((value as Record<string, unknown>)[step.key], step);
    if (v !== undefined) {
      setOwn(out, step.key, v);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** The projector of the parsed `fields` paths. */
export function compileFields(paths: readonly (readonly Segment[])[]): Projector {
  const drafts: Draft[] = [];
  for (const p of paths) addPath(drafts, p);
  const root = finish(drafts);
  return (element) => (project(element, root) as Record<string, unknown> | undefined) ?? {};
}
