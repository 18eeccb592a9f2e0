/**
 * A SortedIndex in this process, for Keyv's in-memory Map store (which has no such capability of
 * its own). One per Map, whichever storage objects share it, so that storages over one Map see one
 * index; entries are named by the key as the Map receives it (Keyv's namespace included).
 *
 * Each index key keeps two parallel arrays sorted in DESCENDING (score, member) order, so that the
 * newest silo (the lowest score, minus created_at) lands at the end: an insert is a binary search
 * plus a splice near the end (usually an append), a removal a binary search plus one splice, a
 * page a slice read backwards. Nothing is parsed or copied whole.
 */
import type { SortedIndex } from './types.js';

class Sorted {
  readonly scores: number[] = [];
  readonly members: string[] = [];
  readonly byMember = new Map<string, number>();

  /** The position of (score, member) in descending order: the first entry that sorts below it. */
  position(score: number, member: string): number {
    const { scores, members } = this;
    let lo = 0;
    let hi = scores.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = scores[mid]!;
      // Entry `mid` sorts above (comes earlier in descending order) when it is greater.
      if (s > score || (s === score && members[mid]! > member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(score: number, member: string): void {
    const current = this.byMember.get(member);
    if (current === score) return;
    if (current !== undefined) this.remove(member);
    const at = this.position(score, member);
    if (at === this.scores.length) {
      this.scores.push(score);
      this.members.push(member);
    } else {
      this.scores.splice(at, 0, score);
      this.members.splice(at, 0, member);
    }
    this.byMember.set(member, score);
  }

  remove(member: string): void {
    const score = this.byMember.get(member);
    if (score === undefined) return;
    const at = this.position(score, member);
    this.scores.splice(at, 1);
    this.members.splice(at, 1);
    this.byMember.delete(member);
  }

  /** Ascending order: position `offset` from the end, walking backwards. */
  range(offset: number, limit: number): string[] {
    const out: string[] = [];
    const { members } = this;
    for (let i = members.length - 1 - offset; i >= 0 && out.length < limit; i--) out.push(members[i]!);
    return out;
  }
}

export class MemorySortedIndex implements SortedIndex {
  readonly #sets = new Map<string, Sorted>();

  add(indexKey: string, score: number, member: string): void {
    let set = this.#sets.get(indexKey);
    if (!set) {
      set = new Sorted();
      this.#sets.set(indexKey, set);
    }
    set.add(score, member);
  }

  remove(indexKey: string, member: string): void {
    const set = this.#sets.get(indexKey);
    if (!set) return;
    set.remove(member);
    if (set.byMember.size === 0) this.#sets.delete(indexKey);
  }

  count(indexKey: string): number {
    return this.#sets.get(indexKey)?.byMember.size ?? 0;
  }

  range(indexKey: string, offset: number, limit: number): string[] {
    return this.#sets.get(indexKey)?.range(offset, limit) ?? [];
  }
}

const perMap = new WeakMap<Map<unknown, unknown>, MemorySortedIndex>();

/** The index that goes with `map` (made on first use). */
export function memorySortedIndexOf(map: Map<unknown, unknown>): MemorySortedIndex {
  let index = perMap.get(map);
  if (!index) {
    index = new MemorySortedIndex();
    perMap.set(map, index);
  }
  return index;
}
