/**
 * `parseJson`: `JSON.parse` that keeps every number exactly as written.
 *
 * Numbers whose text survives `JSON.parse` + `JSON.stringify` unchanged come back as plain
 * numbers; the others (`1.0`, `1e2`, `-0`, `12345678901234567890`, `1e400`, long decimals) as
 * `JsonNumber`s holding their text. Everything else is what `JSON.parse` makes: plain objects
 * (with own data properties, `__proto__` included; a repeated key: the last wins, in the place
 * of the first), arrays, strings, booleans, `null`.
 *
 * Fast path: one linear scan looks at every number token outside the strings; when all of them
 * round-trip, the text goes to `JSON.parse` itself. When a few do not, `JSON.parse` reads the
 * text with placeholders in the place of those numbers, which a walk then replaces; when many do
 * not, or placeholders cannot be sure, an iterative parser here reads the text. Invalid text throws a `SyntaxError`, as
 * `JSON.parse` does.
 */
import { INEXACT, JsonNumber, roundTrips, tokenShape, UNKNOWN } from './json-number.js';
import { isJsonNumber } from './numbers.js';

/** Skips a string whose opening quote is at `i`: the index after its closing quote, or -1. */
function skipString(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  while (j !== -1) {
    // The quote is escaped when an odd number of backslashes precede it.
    let k = j - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if (((j - k) & 1) === 1) return j + 1;
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

/*
 * What the scan can skip natively, in one regular expression run: anything that is neither a
 * string nor a number; whole strings (with up to 64 escapes); and the number tokens whose
 * spelling is sure to round-trip (see `tokenShape`): `0`, integers of up to 15 digits, decimals
 * with at most 7 + 7 digits around the point and no trailing zero, `0.`, up to five zeros and
 * at most 9 significant digits. The group repeats at most 2048 times per run, so the engine's
 * backtracking stack stays small however long the text (an unbounded `*` overflows it on large
 * texts: RangeError); `scanNumbers` runs it again from where it stopped. Linear: the number
 * alternatives are of bounded length, a string alternative that fails (more than 64 escapes,
 * no closing quote) gives up after one pass over the string, and the loop never backtracks into
 * an earlier repeat (nothing follows it in the pattern).
 */
const SKIP =
  /(?:[^"\-0-9]+|"[^"\\]*(?:\\[^][^"\\]*){0,64}"|0(?![0-9.eE])|-?[1-9][0-9]{0,14}(?![0-9.eE])|-?[1-9][0-9]{0,6}\.[0-9]{0,6}[1-9](?![0-9eE])|-?0\.0{0,5}[1-9](?:[0-9]{0,7}[1-9])?(?![0-9eE])){1,2048}/y;

/** Number tokens collected for one native check. */
const BATCH = 512;

/** `true` when every token (valid JSON numbers) is written exactly as JSON.stringify writes it. */
function allRoundTrip(tokens: string[]): boolean {
  const s = '[' + tokens.join(',') + ']';
  try {
    return JSON.stringify(JSON.parse(s)) === s;
  } catch {
    return false; // not JSON numbers: the parser reports it
  }
}

/**
 * Settles a batch of tokens whose shape did not tell. Returns `true` when one of them does not
 * round-trip. With `out`, also marks the ones that do as settled (`out[at] = -1`).
 */
function settle(batch: string[], batchAt: number[], out: number[] | undefined): boolean {
  if (allRoundTrip(batch)) {
    if (out !== undefined) for (const k of batchAt) out[k] = -1;
    return false;
  }
  if (out === undefined) return true;
  let any = false;
  for (let j = 0; j < batch.length; j++) {
    const t = batch[j]!;
    if ('' + Number(t) === t) out[batchAt[j]!] = -1;
    else any = true;
  }
  return any;
}

/**
 * The scan behind `hasInexactNumbers` and `parseJson`. Without `out`, returns at the first
 * number token that does not round-trip. With `out`, scans the whole text and leaves in `out`
 * the token positions `start, end` of every such token, in text order (a settled candidate has
 * its start set to -1); returns whether there is any.
 */
function scanNumbers(text: string, out: number[] | undefined): boolean {
  const n = text.length;
  const re = SKIP;
  let batch: string[] = [];
  let batchAt: number[] = [];
  let found = false;
  let i = 0;
  while (i < n) {
    re.lastIndex = i;
    if (re.test(text)) i = re.lastIndex;
    if (i >= n) break;
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string with many escapes, or the repeat limit: skip it here.
      i = skipString(text, i);
      if (i < 0) break; // unterminated: JSON.parse reports it
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const start = i;
      let d = c;
      do d = text.charCodeAt(++i);
      while ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d);
      const shape = tokenShape(text, start, i);
      if (shape === INEXACT) {
        if (out === undefined) return true;
        out.push(start, i);
        found = true;
      } else if (shape === UNKNOWN) {
        batch.push(text.slice(start, i));
        if (out !== undefined) {
          batchAt.push(out.length);
          out.push(start, i);
        }
        if (batch.length === BATCH) {
          if (settle(batch, batchAt, out)) {
            if (out === undefined) return true;
            found = true;
          }
          batch = [];
          batchAt = [];
        }
      }
    } else i++; // SKIP stopped at its repeat limit
  }
  return (batch.length > 0 && settle(batch, batchAt, out)) || found;
}

/**
 * `true` when some number token of the JSON `text` (outside strings) does not survive
 * `JSON.parse` + `JSON.stringify` unchanged, i.e. when `JSON.parse` would lose something and
 * `parseJson` makes a `JsonNumber`. Linear; meant for valid JSON (on invalid text the answer
 * is only a hint: `parseJson` still throws a `SyntaxError`).
 *
 * A regular expression skips strings, punctuation and the common number spellings natively;
 * the tokens it stops at are settled by their shape (`tokenShape`) or, when that needs a
 * conversion (16 and 17 digit decimals, exponents), collected and checked in batches by
 * `JSON.parse` + `JSON.stringify`, which convert faster than `Number` + `String` one by one.
 */
export function hasInexactNumbers(text: string): boolean {
  return scanNumbers(text, undefined);
}

/**
 * Parses JSON text, keeping numbers exact: a plain number when `JSON.parse` keeps the number's
 * text, else a `JsonNumber`. Otherwise the same value `JSON.parse(text)` returns. Invalid
 * text: `SyntaxError`.
 *
 * Three ways, fastest first: no inexact number → `JSON.parse(text)`; a few → `JSON.parse` of
 * the text with each inexact number replaced by a placeholder string, then the placeholders
 * replaced by `JsonNumber`s (see `withPlaceholders`); many, or when placeholders cannot be sure,
 * the parser below.
 */
export function parseJson(text: string): unknown {
  if (typeof text !== 'string') text = String(text);
  const at: number[] = [];
  if (!scanNumbers(text, at)) return JSON.parse(text) as unknown;
  if (inexactCount(at) * PLACEHOLDERS_PAY_FROM > text.length) return parseWithParser(text);
  return placeholdersOrParser(text, at);
}

/** The placeholder path whatever the count of inexact numbers (for tests: parseJson takes it only for a few). */
export function parseWithPlaceholders(text: string): unknown {
  const at: number[] = [];
  if (!scanNumbers(text, at)) return JSON.parse(text) as unknown;
  return placeholdersOrParser(text, at);
}

function placeholdersOrParser(text: string, at: number[]): unknown {
  const value = withPlaceholders(text, at);
  return value !== UNSURE ? value : parseWithParser(text);
}

/** The slow path on its own (for tests): always the parser below. */
export function parseWithParser(text: string): unknown {
  return new Parser(text).parse();
}

const UNSURE: unique symbol = Symbol('unsure');

/**
 * Characters of text per inexact number from which placeholders beat the parser. Each placeholder
 * costs about 1.5 µs and 130 bytes of transient heap (its parts, its string, the number): a text
 * of nothing but `-0` took 4 times the parser's time and a peak of 3 times its heap (450 MB for
 * 7 MB), enough to end a worker, where records with an inexact number every 200 characters parse
 * faster with placeholders (Node 20, measured on 11 MB).
 */
const PLACEHOLDERS_PAY_FROM = 100;

/** How many of the tokens `scanNumbers` left in `at` are inexact (settled ones have start -1). */
function inexactCount(at: number[]): number {
  let count = 0;
  for (let k = 0; k < at.length; k += 2) if (at[k]! >= 0) count++;
  return count;
}

/**
 * `JSON.parse` with each inexact number token replaced by a placeholder string: U+0000 and the
 * token's ordinal. No string of the data can hold U+0000 when the text has no `\u0000` escape
 * (JSON text cannot hold it raw), so every string starting with U+0000 is a placeholder. Each
 * placeholder must then be found exactly once as a value: a placeholder standing where a number
 * cannot (an object key: `{1.0: 2}`), or lost to a repeated key, means `UNSURE`, as does any
 * `SyntaxError` (the parser reports it with the position in the caller's text).
 */
function withPlaceholders(text: string, at: number[]): unknown {
  if (text.indexOf('\\u0000') !== -1) return UNSURE;
  const numbers: JsonNumber[] = [];
  const parts: string[] = [];
  let last = 0;
  for (let k = 0; k < at.length; k += 2) {
    const start = at[k]!;
    if (start < 0) continue;
    const end = at[k + 1]!;
    const token = text.slice(start, end);
    if (!isJsonNumber(token)) return UNSURE;
    parts.push(text.slice(last, start), '"\\u0000', String(numbers.length), '"');
    numbers.push(new JsonNumber(token));
    last = end;
  }
  parts.push(text.slice(last));
  let root: unknown;
  try {
    root = JSON.parse(parts.join(''));
  } catch {
    return UNSURE;
  }
  // Replace the placeholders, walking the value with a stack (no recursion limit).
  let found = 0;
  if (typeof root === 'string') return root.charCodeAt(0) === 0 && numbers.length === 1 ? numbers[0] : UNSURE;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const e: unknown = x[i];
        if (typeof e === 'string') {
          if (e.charCodeAt(0) === 0) {
            x[i] = numbers[+e.slice(1)];
            found++;
          }
        } else if (typeof e === 'object' && e !== null) stack.push(e);
      }
    } else {
      const o = x as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        const e = o[key];
        if (typeof e === 'string') {
          if (e.charCodeAt(0) === 0) {
            o[key] = numbers[+e.slice(1)]; // an own data property: never a setter, not even __proto__'s
            found++;
          }
        } else if (typeof e === 'object' && e !== null) stack.push(e);
      }
    }
  }
  return found === numbers.length ? root : UNSURE;
}

const OP = Object.prototype;

/** Sets an own data property, as `JSON.parse` does (never a setter, not even `__proto__`'s). */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key in OP) Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Plain string content: anything but `"`, `\` and control characters. */
const PLAIN = /[^"\\\u0000-\u001f]*/y;

interface Frame {
  /** The array being filled, or the object with the key awaiting its value. */
  readonly container: unknown[] | Record<string, unknown>;
  readonly isArray: boolean;
  key: string;
}

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  private fail(what?: string): never {
    const at = this.i;
    if (at >= this.text.length) throw new SyntaxError('Unexpected end of JSON input');
    const ch = this.text[at]!;
    throw new SyntaxError(`${what ?? `Unexpected token ${JSON.stringify(ch)}`} in JSON at position ${at}`);
  }

  private ws(): number {
    const t = this.text;
    let i = this.i;
    let c = t.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++i);
    this.i = i;
    return c; // NaN at the end
  }

  parse(): unknown {
    const t = this.text;
    const stack: Frame[] = [];
    let value: unknown;
    for (;;) {
      // Read one value, or open a container.
      let c = this.ws();
      let opened = false;
      switch (c) {
        case 0x7b: { // {
          this.i++;
          const obj: Record<string, unknown> = {};
          c = this.ws();
          if (c === 0x7d) {
            this.i++;
            value = obj;
          } else {
            const key = this.key();
            stack.push({ container: obj, isArray: false, key });
            opened = true;
          }
          break;
        }
        case 0x5b: { // [
          this.i++;
          const arr: unknown[] = [];
          c = this.ws();
          if (c === 0x5d) {
            this.i++;
            value = arr;
          } else {
            stack.push({ container: arr, isArray: true, key: '' });
            opened = true;
          }
          break;
        }
        case 0x22:
          value = this.string();
          break;
        case 0x74:
          value = this.literal('true', true);
          break;
        case 0x66:
          value = this.literal('false', false);
          break;
        case 0x6e:
          value = this.literal('null', null);
          break;
        default:
          if ((c >= 0x30 && c <= 0x39) || c === 0x2d) value = this.number();
          else this.fail();
      }
      if (opened) continue;
      // Store the value in its container; close every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.ws();
          if (this.i < t.length) this.fail(); // trailing text
          return value;
        }
        if (top.isArray) (top.container as unknown[]).push(value);
        else put(top.container as Record<string, unknown>, top.key, value);
        c = this.ws();
        if (c === 0x2c) { // ,
          this.i++;
          if (!top.isArray) {
            this.ws();
            top.key = this.key();
          }
          break;
        }
        if (c === (top.isArray ? 0x5d : 0x7d)) {
          this.i++;
          value = top.container;
          stack.pop();
          continue;
        }
        this.fail();
      }
    }
  }

  /** An object key and its colon. */
  private key(): string {
    if (this.text.charCodeAt(this.i) !== 0x22) this.fail();
    const key = this.string();
    if (this.ws() !== 0x3a) this.fail();
    this.i++;
    return key;
  }

  private literal<T>(word: string, v: T): T {
    if (!this.text.startsWith(word, this.i)) this.fail();
    this.i += word.length;
    return v;
  }

  /** A string whose opening quote is at `i`. */
  private string(): string {
    const t = this.text;
    const start = this.i + 1;
    PLAIN.lastIndex = start;
    PLAIN.test(t);
    let j = PLAIN.lastIndex;
    let c = t.charCodeAt(j);
    if (c === 0x22) {
      this.i = j + 1;
      return t.slice(start, j);
    }
    // Escapes: find the end, then let JSON.parse decode (and check) the escapes.
    while (c !== 0x22) {
      if (c === 0x5c) j++;
      else if (!(c >= 0x20)) { // a control character, or the end (NaN)
        this.i = j;
        this.fail(j >= t.length ? 'Unterminated string' : 'Bad control character in string literal');
      }
      c = t.charCodeAt(++j);
    }
    this.i = j + 1;
    return JSON.parse(t.slice(start - 1, j + 1)) as string;
  }

  /** A number token, checked against the JSON grammar. */
  private number(): number | JsonNumber {
    const t = this.text;
    const start = this.i;
    let i = start;
    let c = t.charCodeAt(i);
    if (c === 0x2d) c = t.charCodeAt(++i);
    if (c === 0x30) c = t.charCodeAt(++i);
    else if (c >= 0x31 && c <= 0x39) {
      do c = t.charCodeAt(++i);
      while (c >= 0x30 && c <= 0x39);
    } else this.at(i, 'No number after minus sign');
    if (c === 0x2e) {
      c = t.charCodeAt(++i);
      if (!(c >= 0x30 && c <= 0x39)) this.at(i, 'Unterminated fractional number');
      do c = t.charCodeAt(++i);
      while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45) {
      c = t.charCodeAt(++i);
      if (c === 0x2b || c === 0x2d) c = t.charCodeAt(++i);
      if (!(c >= 0x30 && c <= 0x39)) this.at(i, 'Exponent part is missing a number');
      do c = t.charCodeAt(++i);
      while (c >= 0x30 && c <= 0x39);
    }
    this.i = i;
    const token = t.slice(start, i);
    return roundTrips(t, start, i) ? Number(token) : new JsonNumber(token);
  }

  private at(i: number, what: string): never {
    this.i = i;
    return this.fail(i >= this.text.length ? undefined : what);
  }
}
