/**
 * Compiles a parsed filter (filter-parse.ts) into a function that narrows a list of elements to
 * the object elements that pass, in their order.
 *
 * One meaning per operator, by construction: a condition `path op literal` with one of §5's
 * operators (eq, ne, gt, lt, lk, il) runs §5's search itself, `compileSearch(path, op, value)`
 * of search.ts, which is what `q=path&value=value&op=op` runs. The other words are built from
 * those searches and matchers only, as set operations over the list being narrowed:
 *   ge = gt or eq, le = lt or eq (one loop over §5's gt/lt and eq matchers, `compilePredicate`,
 *   what §5's search runs for a deeper q), in (a, b) = eq a or eq b,
 *   has v = an array field with an element that §5's eq matcher matches,
 *   exists = the path resolves (to anything, null included),
 *   not x = the object elements that x leaves out,
 *   a and b = b over what a kept, a or b = what a kept, plus what b keeps of the rest.
 *
 * Why lists rather than a predicate per element: each search is one of §5's loops, written per
 * operator with the comparison inline; a tree of closures per element would call through the
 * same few call sites for every condition, which the engine cannot inline (measured: a single
 * condition ran 12× slower than the same §5 search). `and` narrows step by step, so later
 * conditions only see what earlier ones kept; the steps run in an order of expected selectivity
 * (intersection does not depend on the order, only the work does).
 *
 * Every result is a subsequence of its input, so set differences and unions are computed by
 * walking two lists side by side, comparing elements by identity: no sets, no hashing.
 */
import type { Predicate } from './compare.js';
import type { FilterNode } from './filter-parse.js';
import { JsonNumber } from './json-number.js';
import { compileSegments, type Accessor } from './path.js';
import { compilePredicate, compileSearch } from './search.js';

/**
 * Narrows `items` (a subsequence of the data) to the object elements that pass, in order. The
 * result never holds anything but object elements, and is a new array or `items` itself.
 */
export type Narrow = (items: readonly unknown[]) => object[];

/**
 * An element that is a JSON object (a `JsonNumber` is a number). `instanceof` here rather than
 * json-number.ts's prototype test: in a loop over every element it measured three times faster
 * (the engine checks the element's map against the prototype chain inline).
 */
export function isObjectElement(el: unknown): el is object {
  return typeof el === 'object' && el !== null && !Array.isArray(el) && !(el instanceof JsonNumber);
}

/** The object elements of `items`, in order: what a condition-less list query works over. */
export function objectsOf(items: readonly unknown[]): object[] {
  // Usually all of them are objects: then one check per element and a native copy, rather than
  // a push per element (measured: about 3× faster over 100 000 records).
  let first = 0;
  while (first < items.length && isObjectElement(items[first])) first++;
  if (first === items.length) return items.slice() as object[];
  const out: object[] = items.slice(0, first) as object[];
  for (let i = first + 1; i < items.length; i++) {
    const el = items[i];
    if (isObjectElement(el)) out.push(el);
  }
  return out;
}

/**
 * `items` without `hits`, where `items` holds object elements only and `hits` is a subsequence
 * of it. One walk: an element is a hit exactly when it is the next hit not yet passed (an
 * object repeated in `items` is either a hit at every place or at none: tests read only it).
 */
function minus(items: readonly object[], hits: readonly object[]): object[] {
  if (hits.length === 0) return items as object[];
  const out: object[] = [];
  let h = 0;
  for (let i = 0; i < items.length; i++) {
    const el = items[i]!;
    if (h < hits.length && el === hits[h]) h++;
    else out.push(el);
  }
  return out;
}

/**
 * A loop of our own, for the words §5 has no single search for (`ge`, `le`, `has`, `exists`):
 * `test` of the field `get` reads, over object elements (`clean`: the input holds nothing else).
 */
function scan(get: Accessor, test: Predicate, clean: boolean): Narrow {
  if (clean) {
    return (items) => {
      const out: object[] = [];
      for (let i = 0; i < items.length; i++) {
        const el = items[i] as object;
        if (test(get(el))) out.push(el);
      }
      return out;
    };
  }
  return (items) => {
    const out: object[] = [];
    for (let i = 0; i < items.length; i++) {
      const el = items[i];
      if (isObjectElement(el) && test(get(el))) out.push(el);
    }
    return out;
  };
}

/** `has`: an array field holding an element that §5's `eq` matcher matches. */
function hasTest(value: string): Predicate {
  const eq = compilePredicate('eq', value);
  return (f) => {
    if (!Array.isArray(f)) return false;
    for (let i = 0; i < f.length; i++) if (eq(f[i])) return true;
    return false;
  };
}

/** `a or b or …`: each part runs over what the parts before it left; the union keeps `items`' order. */
function anyOf(parts: readonly Narrow[], clean: boolean): Narrow {
  return (input) => {
    const items = clean ? (input as readonly object[]) : objectsOf(input);
    let rest: readonly object[] = items;
    for (let p = 0; p < parts.length && rest.length > 0; p++) rest = minus(rest, parts[p]!(rest));
    return rest.length === items.length ? [] : minus(items, rest);
  };
}

/** `a and b and …`: each part narrows what the one before kept. */
function allOf(parts: readonly Narrow[]): Narrow {
  return (items) => {
    let kept = parts[0]!(items);
    for (let p = 1; p < parts.length && kept.length > 0; p++) kept = parts[p]!(kept);
    return kept;
  };
}

/**
 * Expected cost per element times the share kept, coarsely, for ordering the parts of an `and`:
 * equality to a string or number first (usually keeps few), then `in`, then equality to
 * true/false/null (a field with two values keeps about half) and `has`, then ranges, patterns
 * (dearer per element), and last what usually keeps most (`ne`, `exists`, compound parts).
 */
function rank(node: FilterNode): number {
  switch (node.kind) {
    case 'condition':
      switch (node.op) {
        case 'eq':
          return node.value === 'true' || node.value === 'false' || node.value === 'null' ? 2 : 0;
        case 'has':
          return 2;
        case 'gt':
        case 'lt':
        case 'ge':
        case 'le':
          return 3;
        case 'lk':
        case 'il':
          return 4;
        case 'ne':
          return 5;
      }
      break;
    case 'in':
      return 1;
    case 'exists':
      return 5;
    default:
      return 6;
  }
}

/** Nested junctions of the same kind (`(a and b) and c`) become one list. */
function flatten(kind: 'and' | 'or', items: readonly FilterNode[]): FilterNode[] {
  const out: FilterNode[] = [];
  for (const item of items) {
    if (item.kind === kind) out.push(...flatten(kind, item.items));
    else out.push(item);
  }
  return out;
}

/**
 * The narrowing function of a parsed filter. `clean`: the input is known to hold object
 * elements only (then `or` and `not` need not sort them out first).
 */
export function compileFilter(node: FilterNode, clean = false): Narrow {
  switch (node.kind) {
    case 'condition': {
      const { path, op, value } = node;
      switch (op) {
        case 'eq':
        case 'ne':
        case 'gt':
        case 'lt':
        case 'lk':
        case 'il':
          // §5's search itself; it keeps object elements only. Its input is always an array here.
          return compileSearch(path, op, value, undefined) as Narrow;
        case 'ge':
        case 'le': {
          const strict = compilePredicate(op === 'ge' ? 'gt' : 'lt', value);
          const eq = compilePredicate('eq', value);
          return scan(compileSegments(path), (f) => strict(f) || eq(f), clean);
        }
        case 'has':
          return scan(compileSegments(path), hasTest(value), clean);
      }
      break;
    }
    case 'in': {
      const eqs = node.values.map((v) => compileSearch(node.path, 'eq', v, undefined) as Narrow);
      return eqs.length === 1 ? eqs[0]! : anyOf(eqs, clean);
    }
    case 'exists': {
      const get = compileSegments(node.path);
      return scan(get, (f) => f !== undefined, clean);
    }
    case 'not': {
      const inner = compileFilter(node.item, true);
      return (input) => {
        const items = clean ? (input as readonly object[]) : objectsOf(input);
        return minus(items, inner(items));
      };
    }
    case 'and': {
      const parts = flatten('and', node.items)
        .map((item, i) => ({ item, i, r: rank(item) }))
        .sort((a, b) => a.r - b.r || a.i - b.i);
      // Only the first part sees the raw input; every later one gets objects only.
      return allOf(parts.map(({ item }, i) => compileFilter(item, clean || i > 0)));
    }
    case 'or':
      return anyOf(flatten('or', node.items).map((item) => compileFilter(item, true)), clean);
  }
}
