/**
 * The scanners of the filter language (contract §16): whitespace, words, paths, JSON strings
 * and JSON numbers, each read at a given offset. The parser (filter-parse.ts) calls the one it
 * expects at each point, because the same characters mean different things in different places:
 * `0` is an array index in a path and a number as a literal, `-1` a key or a negative number.
 *
 * Offsets here are UTF-16 indexes into the filter text; the parser turns the offset of a
 * problem into a position in code points when it reports it.
 */
import { isAsciiWhitespace, isJsonNumber } from './numbers.js';
import { internalize, isCanonicalIndex, type Segment } from './path.js';

/** A scanner's failure: where, and what it expected there (English, for the error message). */
export interface ScanFailure {
  ok: false;
  at: number;
  /** An empty path segment (`a..b`, `a.`, `""`) rather than a syntax error: §5's own 422. */
  emptySegment?: true;
  msg: string;
  /** What stands at `at`, when more than the next word (a whole malformed number). */
  found?: string;
}

export type Scan<T> = { ok: true; end: number; value: T } | ScanFailure;

/** Skips whitespace (a `+` or `%20` in a URL arrives as a space). */
export function skipSpace(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && isAsciiWhitespace(text.charCodeAt(i))) i++;
  return i;
}

// A fixed pattern, never built from input: one code point that may appear in a bare segment
// beyond ASCII (a letter of any script, a combining mark, a decimal digit).
const NON_ASCII_SEGMENT_CHAR = /^[\p{L}\p{M}\p{Nd}]$/u;

/**
 * The length in UTF-16 units of the character at `pos` when it may be part of a bare path
 * segment (letters, digits, `_`, `$`, `-`), otherwise 0.
 */
function bareCharLength(text: string, pos: number): number {
  const c = text.charCodeAt(pos);
  if (c < 0x80) {
    const letterOrDigit = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
    return letterOrDigit || c === 0x5f || c === 0x24 || c === 0x2d ? 1 : 0;
  }
  const cp = text.codePointAt(pos);
  if (cp === undefined) return 0;
  const s = String.fromCodePoint(cp);
  return NON_ASCII_SEGMENT_CHAR.test(s) ? s.length : 0;
}

/** The end of the run of bare-segment characters that starts at `pos` (`pos` when there is none). */
export function scanBare(text: string, pos: number): number {
  let i = pos;
  for (;;) {
    const n = i < text.length ? bareCharLength(text, i) : 0;
    if (n === 0) return i;
    i += n;
  }
}

/** `true` when a bare run (or a quoted string) can start at `pos`. */
export function startsBare(text: string, pos: number): boolean {
  return pos < text.length && bareCharLength(text, pos) > 0;
}

const HEX = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A JSON string (RFC 8259) whose opening quote is at `pos`: its content, escapes decoded.
 * Control characters must be escaped, as in JSON.
 */
export function scanString(text: string, pos: number): Scan<string> {
  let out = '';
  let i = pos + 1;
  let run = i; // start of the current stretch without escapes
  for (;;) {
    if (i >= text.length) {
      return { ok: false, at: text.length, msg: 'a closing " to end the string' };
    }
    const c = text.charCodeAt(i);
    if (c === 0x22) return { ok: true, end: i + 1, value: out + text.slice(run, i) };
    if (c < 0x20) return { ok: false, at: i, msg: 'an escape (\\n, \\t, \\u0000, …) instead of a control character inside a string' };
    if (c !== 0x5c) {
      i++;
      continue;
    }
    out += text.slice(run, i);
    const e = text[i + 1];
    if (e === 'u') {
      let code = 0;
      for (let k = 2; k < 6; k++) {
        const h = HEX(text.charCodeAt(i + k));
        if (h < 0) return { ok: false, at: i, msg: 'four hexadecimal digits after \\u' };
        code = code * 16 + h;
      }
      out += String.fromCharCode(code);
      i += 6;
    } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
      out += ESCAPES[e]!;
      i += 2;
    } else {
      return { ok: false, at: i, msg: 'a JSON escape after \\ (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)' };
    }
    run = i;
  }
}

/**
 * A JSON number starting at `pos` (a digit or `-`), exactly as written. The token runs over
 * every character that could continue a number or a word, so `30and` or `1.5.2` is refused as a
 * whole rather than read as `30` followed by something else.
 */
export function scanNumber(text: string, pos: number): Scan<string> {
  let i = pos;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x2e || c === 0x2b) i++;
    else {
      const n = i < text.length ? bareCharLength(text, i) : 0;
      if (n === 0) break;
      i += n;
    }
  }
  const token = text.slice(pos, i);
  if (!isJsonNumber(token)) {
    return {
      ok: false,
      at: pos,
      msg: 'a JSON number (such as 30, -2.5 or 1e3: no leading + or zeros, digits on both sides of a point)',
      found: `'${clip(token)}'`,
    };
  }
  return { ok: true, end: i, value: token };
}

/**
 * A path starting at `pos`: segments joined by `.` with nothing in between, each either bare
 * (letters, digits, `_`, `$`, `-`) or a JSON string (any key, dots included). An empty segment
 * (`a..b`, `a.`, `.a`, `""`) is §5's `path_segment_empty`.
 */
export function scanPath(text: string, pos: number): Scan<Segment[]> {
  const segments: Segment[] = [];
  let i = pos;
  for (;;) {
    let key: string;
    if (text.charCodeAt(i) === 0x22) {
      const s = scanString(text, i);
      if (!s.ok) return s;
      if (s.value.length === 0) return { ok: false, at: i, emptySegment: true, msg: 'a path segment that is not empty' };
      key = s.value;
      i = s.end;
    } else {
      const end = scanBare(text, i);
      if (end === i) {
        const empty = segments.length > 0 || text.charCodeAt(i) === 0x2e;
        return empty
          ? { ok: false, at: i, emptySegment: true, msg: 'a path segment that is not empty' }
          : { ok: false, at: i, msg: 'a path' };
      }
      key = text.slice(i, end);
      i = end;
    }
    const k = internalize(key);
    segments.push({ key: k, index: isCanonicalIndex(k) ? Number(k) : -1 });
    if (text.charCodeAt(i) !== 0x2e) return { ok: true, end: i, value: segments };
    i++;
  }
}

/** At most 24 characters of `s`, for messages. */
export function clip(s: string): string {
  const cps = Array.from(s);
  return cps.length <= 24 ? s : `${cps.slice(0, 24).join('')}…`;
}

/** What stands at `pos`, for messages: a word, one character, or the end. */
export function describeAt(text: string, pos: number): string {
  if (pos >= text.length) return 'the end of the filter';
  const end = scanBare(text, pos);
  if (end > pos) return `'${clip(text.slice(pos, end))}'`;
  const cp = text.codePointAt(pos)!;
  return `'${String.fromCodePoint(cp)}'`;
}

/** The position in code points of the UTF-16 offset `at` (what error messages and `ctx` report). */
export function codePointPosition(text: string, at: number): number {
  let n = at;
  for (let i = 1; i < at && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}
