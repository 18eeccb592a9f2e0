/**
 * SQL LIKE (`lk`) and ILIKE (`il`) over code points, with loops only (no regular expression).
 *
 * Pattern (like-pattern.ts): `%` matches any run of code points (also none), `_` exactly one
 * code point (so one emoji, even though it is two UTF-16 units), `\` makes the next code point
 * literal (`\%`, `\_`, `\\`); the pattern must match the whole text. `il` compares code points
 * after simple case folding.
 *
 * The matcher (like-segments.ts) reads the text about once for any pattern: segments between
 * `%` are found left to right with `indexOf`, or with a one-word bit-parallel automaton when
 * they hold `_`. Two limits keep every search cheap, checked before any work starts:
 * - a pattern has at most LIKE_MAX_PATTERN_LENGTH code points;
 * - between two `%`, a stretch holding `_` spans at most LIKE_MAX_SEARCHED_SPAN code points
 *   from its first to its last literal (the automaton's one word; two words cost twice).
 */
import { foldText } from './casefold.js';
import { automatonSpan, planSegments, segmentMatcher, type LikeMatcher, type SegmentPlan } from './like-segments.js';
import { ANY_ONE, ANY_RUN, codePointLength, tokenize } from './like-pattern.js';
import { SHIFT_AND_MAX_TOKENS } from './shift-and.js';

export type { LikeMatcher } from './like-segments.js';

/**
 * The most code points a pattern may have. The search's cost does not grow with the pattern
 * (measured: see the README's LIKE limits); this bounds compiling (about 10 ms at the limit)
 * while leaving room for long literal patterns (the reliability suite sends 6 000).
 */
export const LIKE_MAX_PATTERN_LENGTH = 10_000;

/** The longest stretch with `_` that is searched for between two `%` (one automaton word). */
export const LIKE_MAX_SEARCHED_SPAN = SHIFT_AND_MAX_TOKENS;

/** Why a pattern is refused. */
export type LikeRefusal =
  | { reason: 'trailing_escape' }
  | { reason: 'too_long'; length: number; max: number }
  | { reason: 'span_too_long'; span: number; max: number };

export type LikeCompileResult = { ok: true; match: LikeMatcher } | ({ ok: false } & LikeRefusal);

/**
 * `true` when the engine's `toLowerCase` gives the same ILIKE answer as simple case folding,
 * so the text can skip the fold table: the pattern has no `_` and its literals are ASCII other
 * than `i`, `k`, `s` (folded). Then only ASCII text characters can match a literal, and both
 * mappings treat ASCII alike (A-Z to a-z). Outside ASCII they differ only in ways no such
 * literal can see: the code points that fold or lowercase to ASCII are U+212A KELVIN SIGN (k),
 * U+017F LONG S (s) and U+0130 (lowercases to i + U+0307, which also changes the length, harmless
 * without `_`: `%` absorbs it and it matches no literal either way).
 */
function lowerCaseIsEnough(tokens: readonly number[]): boolean {
  for (const t of tokens) {
    if (t === ANY_RUN) continue;
    if (t === ANY_ONE || t >= 0x80 || t === 0x69 || t === 0x6b || t === 0x73) return false;
  }
  return true;
}

/** Reads a pattern's tokens and plan, or says why it is refused (no matcher built). */
function readPattern(pattern: string, fold: boolean): { tokens: number[]; plan: SegmentPlan } | LikeRefusal {
  const length = codePointLength(pattern);
  if (length > LIKE_MAX_PATTERN_LENGTH) return { reason: 'too_long', length, max: LIKE_MAX_PATTERN_LENGTH };
  const tokens = tokenize(pattern, fold);
  if (tokens === undefined) return { reason: 'trailing_escape' };
  const plan = planSegments(tokens);
  const span = automatonSpan(plan);
  if (span > LIKE_MAX_SEARCHED_SPAN) return { reason: 'span_too_long', span, max: LIKE_MAX_SEARCHED_SPAN };
  return { tokens, plan };
}

/** Why `pattern` is refused, or `undefined` when it can be compiled (for validation: builds nothing). */
export function likeRefusal(pattern: string): LikeRefusal | undefined {
  const read = readPattern(pattern, false);
  return 'reason' in read ? read : undefined;
}

/**
 * Compiles a LIKE pattern, or says why it is refused. `caseInsensitive` gives ILIKE, which is
 * LIKE of the case-folded text against the case-folded pattern: simple case folding maps each
 * code point to one code point of the same UTF-16 length, so folding first changes nothing but
 * the case (and neither limit). The result takes a string; callers decide what happens to
 * non-strings (search: never a match).
 */
export function compileLike(pattern: string, caseInsensitive: boolean): LikeCompileResult {
  const read = readPattern(pattern, caseInsensitive);
  if ('reason' in read) return { ok: false, ...read };
  const { tokens, plan } = read;
  const exact = segmentMatcher(plan);
  if (!caseInsensitive || (tokens.length === 1 && tokens[0] === ANY_RUN)) return { ok: true, match: exact };
  if (lowerCaseIsEnough(tokens)) return { ok: true, match: (text) => exact(text.toLowerCase()) };
  return { ok: true, match: (text) => exact(foldText(text)) };
}

/** Convenience: does `text` match `pattern`? Throws a plain Error for a refused pattern. */
export function like(text: string, pattern: string, caseInsensitive = false): boolean {
  const r = compileLike(pattern, caseInsensitive);
  if (!r.ok) throw new Error(`LIKE pattern refused: ${r.reason}`);
  return r.match(text);
}
