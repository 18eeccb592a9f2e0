/**
 * The LIKE matcher over tokens, in time close to linear in the text for every pattern.
 *
 * `%` splits the tokens into segments, each a fixed number of code points (literals and `_`).
 * The first segment must match at the start of the text, the last one at its end; the ones
 * between are found leftmost-first, in order, each after the previous one. Greedy leftmost is
 * exact because every segment has a fixed length: taking the earliest match of a segment leaves
 * the most room for the ones after it.
 *
 * A middle segment's leading and trailing `_` only skip code points (`%__ab_%` is `__%ab%_`),
 * so what is searched is its core, from its first to its last literal: with native `indexOf`
 * when the core is literals only, with a bit-parallel automaton (shift-and.ts) when it holds
 * `_`. Each search starts where the previous one ended, so the text is read about once whatever
 * the number of segments; the anchored first and last segments cost their own length.
 *
 * Positions in the text are UTF-16 indexes, always at code point boundaries; `_` and every
 * literal is one code point (a surrogate pair is one, a lone surrogate is one).
 */
import { ANY_ONE, ANY_RUN } from './like-pattern.js';
import { shiftAndFinder, type RunFinder } from './shift-and.js';

export type LikeMatcher = (text: string) => boolean;

/** A segment between two `%`: `lead` `_`s, then `core` (empty, or from a literal to a literal), then `trail` `_`s. */
interface Middle {
  lead: number;
  core: number[];
  trail: number;
}

/** How a token list is matched. */
export type SegmentPlan =
  | { kind: 'never' }
  | { kind: 'whole'; tokens: number[] }
  | { kind: 'split'; first: number[]; middles: Middle[]; last: number[] };

const isHighSurrogate = (t: number): boolean => t >= 0xd800 && t <= 0xdbff;
const isLowSurrogate = (t: number): boolean => t >= 0xdc00 && t <= 0xdfff;

/**
 * `true` when a core must be matched code point by code point rather than as a string: it holds
 * `_`, or starts with a lone low surrogate or ends with a lone high surrogate (as a string, those
 * could match half of a surrogate pair of the text).
 */
function needsAutomaton(core: readonly number[]): boolean {
  return core.includes(ANY_ONE) || isLowSurrogate(core[0]!) || isHighSurrogate(core[core.length - 1]!);
}

function middleOf(tokens: number[]): Middle {
  let lead = 0;
  while (lead < tokens.length && tokens[lead] === ANY_ONE) lead++;
  let end = tokens.length;
  while (end > lead && tokens[end - 1] === ANY_ONE) end--;
  return { lead, core: tokens.slice(lead, end), trail: tokens.length - end };
}

/** Splits tokens at `%`. A literal lone high surrogate followed by a literal lone low one can never match: text decodes that pair as one code point. */
export function planSegments(tokens: readonly number[]): SegmentPlan {
  for (let i = 1; i < tokens.length; i++) {
    if (isHighSurrogate(tokens[i - 1]!) && isLowSurrogate(tokens[i]!)) return { kind: 'never' };
  }
  const segments: number[][] = [[]];
  for (const t of tokens) {
    if (t === ANY_RUN) segments.push([]);
    else segments[segments.length - 1]!.push(t);
  }
  if (segments.length === 1) return { kind: 'whole', tokens: segments[0]! };
  return { kind: 'split', first: segments[0]!, middles: segments.slice(1, -1).map(middleOf), last: segments[segments.length - 1]! };
}

/** The longest core that the automaton must search (0 when none): what its cost grows with. */
export function automatonSpan(plan: SegmentPlan): number {
  if (plan.kind !== 'split') return 0;
  let longest = 0;
  for (const m of plan.middles) {
    if (m.core.length > 0 && needsAutomaton(m.core)) longest = Math.max(longest, m.core.length);
  }
  return longest;
}

/** Where the `count` code points from `at` end, or -1 when that passes `limit`. */
function skip(text: string, at: number, count: number, limit: number): number {
  let i = at;
  for (let k = 0; k < count; k++) {
    if (i >= limit) return -1;
    const c = text.charCodeAt(i++);
    if (c >= 0xd800 && c <= 0xdbff && i < limit && (text.charCodeAt(i) & 0xfc00) === 0xdc00) i++;
  }
  return i;
}

/** Where the last `count` code points of `text` start, or -1 when that is before `floor`. */
function skipBackFromEnd(text: string, count: number, floor: number): number {
  let i = text.length;
  for (let k = 0; k < count; k++) {
    if (i <= floor) return -1;
    const c = text.charCodeAt(--i);
    if (c >= 0xdc00 && c <= 0xdfff && i > floor && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800) i--;
  }
  return i;
}

/** Where `tokens` (no `%`) matching at `at` ends, or -1 when they do not match there. */
function matchAt(tokens: readonly number[], text: string, at: number): number {
  const n = text.length;
  let i = at;
  for (let p = 0; p < tokens.length; p++) {
    if (i >= n) return -1;
    let c = text.charCodeAt(i++);
    if (c >= 0xd800 && c <= 0xdbff && i < n) {
      const low = text.charCodeAt(i);
      if ((low & 0xfc00) === 0xdc00) {
        c = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    const t = tokens[p]!;
    if (t !== ANY_ONE && t !== c) return -1;
  }
  return i;
}

/**
 * Native search for a literal core. A match always lies on code point boundaries: the core
 * neither starts with a low surrogate nor ends with a high one, and has no high-low pair of
 * lone surrogates (planSegments), so its units pair up in the text exactly as in the pattern.
 */
function literalFinder(literal: string): RunFinder {
  const length = literal.length;
  return (text, from, limit) => {
    if (limit - from < length) return -1;
    const at = text.indexOf(literal, from);
    return at < 0 || at + length > limit ? -1 : at + length;
  };
}

function middleFinder({ lead, core, trail }: Middle): RunFinder {
  if (core.length === 0) return (text, from, limit) => skip(text, from, lead, limit);
  const find = needsAutomaton(core) ? shiftAndFinder(core) : literalFinder(String.fromCodePoint(...core));
  if (lead === 0 && trail === 0) return find;
  return (text, from, limit) => {
    const start = skip(text, from, lead, limit);
    const end = start < 0 ? -1 : find(text, start, limit);
    return end < 0 ? -1 : skip(text, end, trail, limit);
  };
}

/** A literal-only run that string comparison matches exactly (see literalFinder), as a string; else undefined. */
function asString(tokens: readonly number[]): string | undefined {
  if (tokens.length === 0) return '';
  return needsAutomaton(tokens) ? undefined : String.fromCodePoint(...tokens);
}

/** Where the first segment, matched at the start of the text, ends; -1 when it does not match. */
function startMatcher(tokens: readonly number[]): (text: string) => number {
  const literal = asString(tokens);
  if (literal === undefined) return (text) => matchAt(tokens, text, 0);
  return (text) => (text.startsWith(literal) ? literal.length : -1);
}

/** Where the last segment, matched at the end of the text, starts; -1 when it does not match there or starts before `floor`. */
function endMatcher(tokens: readonly number[]): (text: string, floor: number) => number {
  const literal = asString(tokens);
  if (literal === undefined) {
    return (text, floor) => {
      const start = skipBackFromEnd(text, tokens.length, floor);
      return start < 0 || matchAt(tokens, text, start) < 0 ? -1 : start;
    };
  }
  return (text, floor) => {
    const start = text.length - literal.length;
    return start < floor || !text.endsWith(literal) ? -1 : start;
  };
}

/** The case-sensitive matcher of a plan (`automatonSpan(plan)` must be at most SHIFT_AND_MAX_TOKENS). */
export function segmentMatcher(plan: SegmentPlan): LikeMatcher {
  if (plan.kind === 'never') return () => false;
  if (plan.kind === 'whole') {
    const tokens = plan.tokens;
    const literal = asString(tokens);
    if (literal !== undefined) return (text) => text === literal;
    return (text) => matchAt(tokens, text, 0) === text.length;
  }
  const head = startMatcher(plan.first);
  const tail = endMatcher(plan.last);
  const finders = plan.middles.map(middleFinder);
  if (plan.first.length === 0 && plan.last.length === 0 && finders.length === 1) {
    const find = finders[0]!; // `%…%`, the most common search: one call per text
    return (text) => find(text, 0, text.length) >= 0;
  }
  return (text) => {
    const from = head(text);
    if (from < 0) return false;
    const limit = tail(text, from);
    if (limit < 0) return false;
    let at = from;
    for (let i = 0; i < finders.length; i++) {
      at = finders[i]!(text, at, limit);
      if (at < 0) return false;
    }
    return true;
  };
}
