/**
 * RFC 6902 JSON Patch and RFC 7386 JSON Merge Patch, applied copy-on-write: the document given
 * is never changed, and parts a patch does not touch are shared with the result (so a caller can
 * tell an untouched member by identity).
 *
 * Work is bounded by the document and the patch: each container on a written path is copied at
 * most once per patch (the copies are the patch's own and change in place afterwards), and what
 * `copy` operations duplicate is counted against a budget.
 */
import { jsonEqual } from 'silo-query';
import type { JsonPatchOperation } from './check.js';
import { PatchConflictError, PatchTooLargeError } from './errors.js';
import { arrayIndex, hasMember, isContainerObject, parsePointer, setMember } from './json-pointer.js';

type Container = Record<string, unknown> | unknown[];

export interface ApplyOptions {
  /** How many bytes (roughly, as JSON text) `copy` operations may duplicate in all. */
  maxCopyBytes?: number;
}

/** One patch application: the containers it made (free to change) and its copy budget. */
class Patching {
  private readonly own = new WeakSet<object>();
  private copyBudget: number;

  constructor(
    public root: unknown,
    private readonly maxCopyBytes: number,
  ) {
    this.copyBudget = maxCopyBytes;
  }

  /** `container` itself if this patch made it, else a shallow copy it now owns. */
  private owned<T extends Container>(container: T): T {
    if (this.own.has(container)) return container;
    const copy = (Array.isArray(container) ? container.slice() : { ...container }) as T;
    this.own.add(copy);
    return copy;
  }

  /** The value at `tokens`, or a conflict naming `pointer`. */
  get(tokens: string[], pointer: string): unknown {
    let value = this.root;
    for (const token of tokens) {
      if (Array.isArray(value)) {
        const index = arrayIndex(token);
        if (index === undefined || index >= value.length) throw new PatchConflictError(`No element at ${pointer}`);
        value = value[index];
      } else if (isContainerObject(value) && hasMember(value, token)) {
        value = value[token];
      } else {
        throw new PatchConflictError(`No member at ${pointer}`);
      }
    }
    return value;
  }

  /**
   * The parent container of `tokens`' last token, made the patch's own along the way (every
   * ancestor copied if shared and re-linked), so the caller may change it in place.
   */
  private parent(tokens: string[], pointer: string): Container {
    this.root = this.ownedContainer(this.root, pointer);
    let container = this.root as Container;
    for (let i = 0; i < tokens.length - 1; i++) {
      const token = tokens[i]!;
      if (Array.isArray(container)) {
        const index = arrayIndex(token);
        if (index === undefined || index >= container.length) throw new PatchConflictError(`No element at ${pointer}`);
        const child = this.ownedContainer(container[index], pointer);
        container[index] = child;
        container = child;
      } else {
        if (!hasMember(container, token)) throw new PatchConflictError(`No member at ${pointer}`);
        const child = this.ownedContainer(container[token], pointer);
        setMember(container, token, child);
        container = child;
      }
    }
    return container;
  }

  private ownedContainer(value: unknown, pointer: string): Container {
    if (Array.isArray(value) || isContainerObject(value)) return this.owned(value);
    throw new PatchConflictError(`${pointer} does not lead through objects and arrays`);
  }

  add(tokens: string[], pointer: string, value: unknown): void {
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(tokens, pointer);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : arrayIndex(last);
      if (index === undefined || index > parent.length) throw new PatchConflictError(`Cannot add at ${pointer}: index out of range`);
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
    if (Array.isArray(parent)) parent.splice(arrayIndex(last)!, 1);
    else delete parent[last];
    return removed;
  }

  replace(tokens: string[], pointer: string, value: unknown): void {
    this.get(tokens, pointer);
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(tokens, pointer);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) parent[arrayIndex(last)!] = value;
    else setMember(parent, last, value);
  }

  /** A deep copy of `value` (its containers the patch's own), counted against the budget. */
  clone(value: unknown): unknown {
    if (Array.isArray(value)) {
      this.spend(2 + value.length);
      const copy = value.map((item) => this.clone(item));
      this.own.add(copy);
      return copy;
    }
    if (isContainerObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        this.spend(key.length + 4);
        setMember(copy, key, this.clone(item));
      }
      this.spend(2);
      this.own.add(copy);
      return copy;
    }
    this.spend(typeof value === 'string' ? value.length + 2 : String(value).length);
    return value;
  }

  private spend(bytes: number): void {
    this.copyBudget -= bytes;
    if (this.copyBudget < 0) throw new PatchTooLargeError(this.maxCopyBytes);
  }
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
  const patching = new Patching(document, options.maxCopyBytes ?? Number.POSITIVE_INFINITY);
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
          if (isProperPrefix(from, path)) throw new PatchConflictError(`Cannot move ${operation.from} into itself`);
          if (operation.from === operation.path) {
            patching.get(from, operation.from);
            break;
          }
          patching.add(path, operation.path, patching.remove(from, operation.from));
          break;
        }
        case 'copy': {
          const from = pointerTokens(operation.from);
          patching.add(path, operation.path, patching.clone(patching.get(from, operation.from)));
          break;
        }
        case 'test':
          if (!jsonEqual(patching.get(path, operation.path), operation.value)) {
            throw new PatchConflictError(`The test at ${operation.path} failed`);
          }
          break;
      }
    } catch (error) {
      if (error instanceof PatchConflictError) throw new PatchConflictError(`Operation ${i} (${operation.op}): ${error.message}`);
      throw error;
    }
  });
  return patching.root;
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
