/**
 * RFC 6902 JSON Patch and RFC 7386 JSON Merge Patch, applied copy-on-write: the document given
 * is never changed, and parts a patch does not touch are shared with the result (so a caller can
 * tell an untouched member by identity).
 *
 * Work is bounded before it is done (contract §17): each operation's cost (the elements an array
 * insert or removal shifts, the members a container copy copies, the tokens a pointer walks) is
 * charged to a budget before the operation runs, and a patch that would pass it is refused with
 * nothing applied. `copy` shares the value instead of cloning it (any later write into either
 * place copies the containers on its path first, as every write does), so 22 copies of a value
 * into itself cost 22 steps, not 4 million nodes; the result's JSON size, which sharing can make
 * exponential, is then measured over the shared graph (each container once) before anyone
 * serialises it.
 *
 * Nesting is bounded too: a value an operation places (added, replaced, moved or copied) may not
 * make the document deeper than `maxDepth`, however small the patch (a pointer adds depth without
 * adding brackets to the body, and a copy into its own deepest point doubles it). Past that, every
 * walk of the data (serialising, querying) would overflow the stack.
 */
import { jsonEqual, JsonNumber } from 'silo-query';
import type { JsonPatchOperation } from '../model/index.js';
import { PatchConflictError, PatchTooCostlyError, PatchTooDeepError, PatchTooLargeError } from './errors.js';
import { arrayIndex, hasMember, isContainerObject, parsePointer, setMember } from './json-pointer.js';

type Container = Record<string, unknown> | unknown[];

export interface ApplyOptions {
  /** Work units the whole patch may spend (an element shifted or copied, a pointer token walked). Default: no limit. */
  maxWork?: number;
  /** Largest JSON text the result may have, in characters, checked when `copy` shared values. Default: no limit. */
  maxResultChars?: number;
  /** Deepest nesting the result may have, the document's own brackets counted (`{"a": []}` is 2). Default: no limit. */
  maxDepth?: number;
}

/** A fair default for `maxWork`: about 100 ms of array shifting and copying on a slow core. */
export const DEFAULT_PATCH_WORK = 50_000_000;

/** One patch application: the containers it made (free to change) and its work budget. */
class Patching {
  /** Containers this patch made: changed in place. A Set, not a WeakSet: it holds only the copies on written paths. */
  private readonly own = new Set<object>();
  private work = 0;
  /**
   * The values `copy` and `move` took: the containers a walk may meet again, in two places at
   * once (parsed JSON is a tree; a copy shares) or in one place after another. Walks remember only
   * these (`Memo`): each is walked once however often it is met, and what the walks remember is
   * as small as the patch.
   */
  readonly taken = new Set<object>();
  /**
   * How deeply each taken container measured so far nests, until a write changes it: every
   * write goes through `parent`, which forgets the containers on its path (a container the patch
   * owns is held in one place only; a shared one is copied before it is written).
   */
  private readonly depths: Memo = { keep: this.taken, known: new Map<object, number>() };

  constructor(
    public root: unknown,
    private readonly maxWork: number,
    private readonly maxDepth: number,
  ) {}

  /** Refuses `value` placed at `tokens` when the document would then nest deeper than maxDepth. */
  private placing(tokens: string[], value: unknown): void {
    if (this.maxDepth === Number.POSITIVE_INFINITY) return;
    const stopAt = this.maxDepth - tokens.length;
    // Each container walked is work charged to the budget, as every other step of the patch.
    if (stopAt < 0 || depthOf(value, stopAt, this.depths, (steps) => this.spend(steps)) > stopAt) throw new PatchTooDeepError(this.maxDepth);
  }

  /** Charges `units` of work, refusing the patch before doing work past the budget. */
  spend(units: number): void {
    this.work += units;
    if (this.work > this.maxWork) throw new PatchTooCostlyError(this.maxWork);
  }

  /** `container` itself if this patch made it, else a shallow copy it now owns. */
  private owned<T extends Container>(container: T): T {
    if (this.own.has(container)) return container;
    this.spend(Array.isArray(container) ? container.length + 1 : Object.keys(container).length + 1);
    const copy = (Array.isArray(container) ? container.slice() : { ...container }) as T;
    this.own.add(copy);
    return copy;
  }

  /**
   * `value` made shared: it and the containers of this patch inside it are no longer the patch's
   * own, so a write through either place that now holds it copies first. Walks only owned
   * containers (a shared one's contents are shared already): at most what the patch made.
   */
  private share(value: unknown): void {
    if (typeof value !== 'object' || value === null || !this.own.delete(value)) return;
    for (const child of Array.isArray(value) ? value : Object.values(value)) this.share(child);
  }

  /** The value at `tokens`, or a conflict naming `pointer`. */
  get(tokens: string[], pointer: string): unknown {
    this.spend(tokens.length);
    let value = this.root;
    for (const token of tokens) {
      if (Array.isArray(value)) {
        const index = arrayIndex(token);
        if (index === undefined || index >= value.length) throw new PatchConflictError(`No element at ${where(pointer)}`);
        value = value[index];
      } else if (isContainerObject(value) && hasMember(value, token)) {
        value = value[token];
      } else {
        throw new PatchConflictError(`No member at ${where(pointer)}`);
      }
    }
    return value;
  }

  /**
   * The parent container of `tokens`' last token, made the patch's own along the way (every
   * ancestor copied if shared and re-linked), so the caller may change it in place.
   */
  private parent(tokens: string[], pointer: string): Container {
    this.spend(tokens.length);
    this.root = this.ownedContainer(this.root, pointer);
    let container = this.root as Container;
    this.depths.known.delete(container);
    for (let i = 0; i < tokens.length - 1; i++) {
      const token = tokens[i]!;
      if (Array.isArray(container)) {
        const index = arrayIndex(token);
        if (index === undefined || index >= container.length) throw new PatchConflictError(`No element at ${where(pointer)}`);
        const child = this.ownedContainer(container[index], pointer);
        container[index] = child;
        container = child;
        this.depths.known.delete(container);
      } else {
        if (!hasMember(container, token)) throw new PatchConflictError(`No member at ${where(pointer)}`);
        const child = this.ownedContainer(container[token], pointer);
        setMember(container, token, child);
        container = child;
        this.depths.known.delete(container);
      }
    }
    return container;
  }

  private ownedContainer(value: unknown, pointer: string): Container {
    if (Array.isArray(value) || isContainerObject(value)) return this.owned(value);
    throw new PatchConflictError(`${where(pointer)} does not lead through objects and arrays`);
  }

  add(tokens: string[], pointer: string, value: unknown): void {
    this.placing(tokens, value);
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(tokens, pointer);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : arrayIndex(last);
      if (index === undefined || index > parent.length) throw new PatchConflictError(`Cannot add at ${where(pointer)}: index out of range`);
      this.spend(parent.length - index);
      if (index === parent.length) parent.push(value);
      else parent.splice(index, 0, value);
    } else {
      setMember(parent, last, value);
    }
  }

  remove(tokens: string[], pointer: string): unknown {
    if (tokens.length === 0) throw new PatchConflictError('Cannot remove the whole document');
    const removed = this.get(tokens, pointer);
    const parent = this.parent(tokens, pointer);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const index = arrayIndex(last)!;
      this.spend(parent.length - index);
      parent.splice(index, 1);
    } else {
      delete parent[last];
    }
    return removed;
  }

  replace(tokens: string[], pointer: string, value: unknown): void {
    this.get(tokens, pointer);
    this.placing(tokens, value);
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(tokens, pointer);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) parent[arrayIndex(last)!] = value;
    else setMember(parent, last, value);
  }

  /** The value at `from`, shared with its new place rather than cloned. */
  copy(from: string[], fromPointer: string): unknown {
    const value = this.get(from, fromPointer);
    this.share(value);
    this.take(value);
    return value;
  }

  /** The value at `from`, removed from there to be placed elsewhere. */
  move(from: string[], fromPointer: string): unknown {
    return this.take(this.remove(from, fromPointer));
  }

  private take(value: unknown): unknown {
    if (typeof value === 'object' && value !== null) this.taken.add(value);
    return value;
  }
}

/** A pointer as a message names it: the empty one, the whole document, by what it is. */
function where(pointer: string): string {
  return pointer === '' ? 'the root ("")' : pointer;
}

function pointerTokens(pointer: string): string[] {
  const tokens = parsePointer(pointer);
  if (!tokens) throw new PatchConflictError(`Not a JSON Pointer: ${JSON.stringify(pointer)}`);
  return tokens;
}

function isProperPrefix(prefix: string[], tokens: string[]): boolean {
  return prefix.length < tokens.length && prefix.every((token, i) => token === tokens[i]);
}

/**
 * `document` with `operations` applied in order (RFC 6902), all or nothing. Throws
 * `PatchConflictError` when an operation cannot apply (a failed `test`, a missing target, an
 * index out of range) and `PatchTooLargeError` past the copy budget. Operations are expected
 * checked by `checkJsonPatch`.
 */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[], options: ApplyOptions = {}): unknown {
  const patching = new Patching(document, options.maxWork ?? Number.POSITIVE_INFINITY, options.maxDepth ?? Number.POSITIVE_INFINITY);
  let shared = false;
  operations.forEach((operation, i) => {
    const path = pointerTokens(operation.path);
    try {
      switch (operation.op) {
        case 'add':
          patching.add(path, operation.path, operation.value);
          break;
        case 'remove':
          patching.remove(path, operation.path);
          break;
        case 'replace':
          patching.replace(path, operation.path, operation.value);
          break;
        case 'move': {
          const from = pointerTokens(operation.from);
          if (isProperPrefix(from, path)) throw new PatchConflictError(`Cannot move ${where(operation.from)} into itself`);
          if (operation.from === operation.path) {
            patching.get(from, operation.from);
            break;
          }
          patching.add(path, operation.path, patching.move(from, operation.from));
          break;
        }
        case 'copy': {
          shared = true;
          patching.add(path, operation.path, patching.copy(pointerTokens(operation.from), operation.from));
          break;
        }
        case 'test':
          // Bounded by the operation's own value (jsonEqual stops at the first difference in size or shape).
          if (!jsonEqual(patching.get(path, operation.path), operation.value)) {
            throw new PatchConflictError(`The test at ${where(operation.path)} failed`);
          }
          break;
      }
    } catch (error) {
      if (error instanceof PatchConflictError) throw new PatchConflictError(`Operation ${i} (${operation.op}): ${error.message}`);
      if (error instanceof PatchTooCostlyError) throw new PatchTooCostlyError(error.limit, i);
      if (error instanceof PatchTooDeepError) throw new PatchTooDeepError(error.limit, i);
      throw error;
    }
  });
  const max = options.maxResultChars;
  if (shared && max !== undefined && jsonChars(patching.root, max, { keep: patching.taken, known: new Map() }) > max) throw new PatchTooLargeError(max);
  return patching.root;
}

/**
 * What a walk of a patched document remembers of the containers it measured: only those in
 * `keep` (the values copied or moved; any other is in one place and met once). Remembering every container
 * would grow a Map to the document's millions of small objects, past the worker's heap (where V8
 * may fail the whole process rather than end the worker).
 */
interface Memo {
  readonly keep: ReadonlySet<object>;
  readonly known: Map<object, number>;
}

/**
 * How deeply `value` nests (a scalar 0, `[]` 1, `[[1]]` 2), saturating just past `stopAt`; by an
 * explicit stack, not recursion, since the value may be as deep as the limit it is checked against.
 * A copied or moved container measured before is not walked again (`memo`, which the patch keeps current);
 * each container walked is charged to `spend` by its members.
 */
function depthOf(value: unknown, stopAt: number, { keep, known }: Memo, spend: (steps: number) => void): number {
  if (typeof value !== 'object' || value === null || value instanceof JsonNumber) return 0;
  interface Frame {
    node: object;
    children: unknown[];
    next: number;
    deepest: number;
  }
  const enter = (node: object): Frame => {
    const children = Array.isArray(node) ? node : Object.values(node);
    spend(children.length + 1);
    return { node, children, next: 0, deepest: 0 };
  };
  const seen = known.get(value);
  if (seen !== undefined) return seen;
  const stack: Frame[] = [enter(value)];
  let depth = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length && top.deepest <= stopAt) {
      const child = top.children[top.next++];
      if (typeof child !== 'object' || child === null || child instanceof JsonNumber) continue;
      const measured = known.get(child);
      if (measured === undefined) stack.push(enter(child));
      else top.deepest = Math.max(top.deepest, measured);
      continue;
    }
    stack.pop();
    depth = Math.min(top.deepest + 1, stopAt + 1);
    // Kept only when exact: a walk cut short says "deeper than stopAt", and the next may ask of another depth.
    if (depth <= stopAt && keep.has(top.node)) known.set(top.node, depth);
    const parent = stack[stack.length - 1];
    if (parent) parent.deepest = Math.max(parent.deepest, depth);
  }
  return depth;
}

/**
 * About the length of `value`'s compact JSON text, counting each container once however often
 * it is shared (the graph a `copy` makes), saturating just past `max` so that the sum of a graph
 * whose text would be exponential stays a small number.
 */
function jsonChars(value: unknown, max: number, memo: Memo): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return String(value).length;
  if (value instanceof JsonNumber) return value.text.length;
  const known = memo.known.get(value);
  if (known !== undefined) return known;
  let chars = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      chars += jsonChars(item, max, memo) + 1;
      if (chars > max) break;
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      chars += key.length + 4 + jsonChars(item, max, memo);
      if (chars > max) break;
    }
  }
  chars = Math.min(chars, max + 1);
  if (memo.keep.has(value)) memo.known.set(value, chars);
  return chars;
}

/**
 * `target` merged with `patch` (RFC 7386): members of an object patch replace the target's, a
 * `null` member removes one, anything else replaces the target. Copy-on-write like the above.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isContainerObject(patch)) return patch;
  const result: Record<string, unknown> = isContainerObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else setMember(result, name, applyMergePatch(hasMember(result, name) ? result[name] : undefined, value));
  }
  return result;
}
