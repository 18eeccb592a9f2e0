/**
 * Parses the `filter` parameter (contract §16) into a tree, checking its bounds on the way:
 *
 *   expr      := and ( "or" and )*
 *   and       := unary ( "and" unary )*
 *   unary     := "not" unary | "(" expr ")" | condition
 *   condition := path op literal | path "in" "(" literal ( "," literal )* ")" | path "exists"
 *   op        := eq | ne | gt | lt | ge | le | lk | il | has
 *
 * Recursive descent over the scanners of filter-lexer.ts. A syntax error or a bound stops the
 * parse (nothing after it can be read reliably); a refused LIKE pattern does not (it is about one
 * literal's content), so every refused pattern is reported together.
 *
 * Every problem carries `ctx.position`, the 0-based offset in code points where it was found,
 * and a message that says what was expected there.
 */
import { QUERY_BOUNDS } from './bounds.js';
import { ErrorType } from './errors.js';
import { clip, codePointPosition, describeAt, scanBare, scanNumber, scanPath, scanString, skipSpace, startsBare, type ScanFailure } from './filter-lexer.js';
import { likeRefusal } from './like.js';
import type { Segment } from './path.js';

/** The operators of `path op literal`; the first six are §5's, the others are built from them. */
export type FilterOp = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'lk' | 'il' | 'has';
export const FILTER_OPS: readonly FilterOp[] = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'lk', 'il', 'has'];

/**
 * A parsed filter. `value` is what §5's search would get as `value`: a string literal's content,
 * or the JSON text of a number, `true`, `false` or `null`, exactly as written.
 */
export type FilterNode =
  | { readonly kind: 'condition'; readonly path: readonly Segment[]; readonly op: FilterOp; readonly value: string }
  | { readonly kind: 'in'; readonly path: readonly Segment[]; readonly values: readonly string[] }
  | { readonly kind: 'exists'; readonly path: readonly Segment[] }
  | { readonly kind: 'not'; readonly item: FilterNode }
  | { readonly kind: 'and' | 'or'; readonly items: readonly FilterNode[] };

/** One problem with a filter; `ctx.position` is always set. */
export interface FilterProblem {
  type: ErrorType;
  msg: string;
  ctx: Record<string, number>;
}

export type ParsedFilter = { ok: true; node: FilterNode } | { ok: false; problems: FilterProblem[] };

const OP_LIST = 'eq, ne, gt, lt, ge, le, lk, il, has, in or exists';
const LITERAL = 'a literal (a JSON string in double quotes, a number, true, false or null)';

/** Thrown inside the parser to stop at a syntax error or a bound; never escapes `parseFilter`. */
class Stop {
  constructor(readonly problem: FilterProblem) {}
}

class Parser {
  private pos = 0;
  private conditions = 0;
  /** Problems that do not stop the parse (refused LIKE patterns). */
  readonly problems: FilterProblem[] = [];

  constructor(private readonly text: string) {}

  parse(): FilterNode {
    const node = this.expr(0);
    this.pos = skipSpace(this.text, this.pos);
    if (this.pos < this.text.length) {
      const what = this.text.charCodeAt(this.pos) === 0x29 ? "a ')' without a matching '('" : this.found();
      this.expected(this.pos, "'and', 'or' or the end of the filter", what);
    }
    return node;
  }

  /** A problem at `at`: the message starts with the position (in code points), as does `ctx`. */
  private problem(at: number, type: ErrorType, text: string, ctx: Record<string, number> = {}): FilterProblem {
    const position = codePointPosition(this.text, at);
    return { type, msg: `At position ${position}: ${text}`, ctx: { ...ctx, position } };
  }

  /** Stops the parse with a problem of type `type`. */
  private stop(at: number, type: ErrorType, text: string, ctx?: Record<string, number>): never {
    throw new Stop(this.problem(at, type, text, ctx));
  }

  /** Stops at a syntax error: what was expected at `at`, and what stands there instead. */
  private expected(at: number, what: string, found = describeAt(this.text, at)): never {
    this.stop(at, ErrorType.filterSyntax, `expected ${what}; found ${found}${this.lowercaseHint(at)}`);
  }

  private scanFailed(f: ScanFailure): never {
    if (f.emptySegment) {
      this.stop(f.at, ErrorType.pathSegmentEmpty, 'expected a path segment that is not empty (segments are separated by single dots)');
    }
    this.expected(f.at, f.msg, f.found);
  }

  private found(): string {
    return describeAt(this.text, this.pos);
  }

  /** When the word at `at` is a filter word in the wrong case, says so. */
  private lowercaseHint(at: number): string {
    const w = this.text.slice(at, scanBare(this.text, at));
    const lower = w.toLowerCase();
    const words = ['and', 'or', 'not', 'in', 'exists', 'true', 'false', 'null', ...FILTER_OPS];
    return w !== lower && words.includes(lower) ? ' (words are lowercase)' : '';
  }

  /** Consumes the keyword `word` when it stands next (a whole bare run, not the start of a path). */
  private keyword(word: string): boolean {
    const at = skipSpace(this.text, this.pos);
    const end = scanBare(this.text, at);
    if (end - at !== word.length || !this.text.startsWith(word, at) || this.text.charCodeAt(end) === 0x2e) return false;
    this.pos = end;
    return true;
  }

  private expr(depth: number): FilterNode {
    const items = [this.and(depth)];
    while (this.keyword('or')) items.push(this.and(depth));
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(depth: number): FilterNode {
    const items = [this.unary(depth)];
    while (this.keyword('and')) items.push(this.unary(depth));
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  /** `(` and `not` open a level; the depth bound is checked before going down into it. */
  private enter(at: number, depth: number): number {
    const max = QUERY_BOUNDS.filterMaxDepth;
    if (depth + 1 > max) {
      this.stop(at, ErrorType.filterTooDeep, `the filter nests too deep: parentheses and 'not' may nest at most ${max} levels, and this one opens level ${depth + 1}`,
        { max_depth: max });
    }
    return depth + 1;
  }

  private unary(depth: number): FilterNode {
    this.pos = skipSpace(this.text, this.pos);
    const at = this.pos;
    if (this.text.charCodeAt(at) === 0x28) {
      const inner = this.enter(at, depth);
      this.pos++;
      const node = this.expr(inner);
      this.pos = skipSpace(this.text, this.pos);
      if (this.text.charCodeAt(this.pos) !== 0x29) {
        this.expected(this.pos, `'and', 'or' or ')' to close the '(' at position ${codePointPosition(this.text, at)}`);
      }
      this.pos++;
      return node;
    }
    if (this.keyword('not')) return { kind: 'not', item: this.unary(this.enter(at, depth)) };
    return this.condition();
  }

  private count(at: number): void {
    const max = QUERY_BOUNDS.filterMaxConditions;
    if (++this.conditions > max) {
      this.stop(at, ErrorType.filterTooManyConditions,
        `the filter has too many conditions: at most ${max} are allowed (each value of an 'in' list counts as one), and this is number ${this.conditions}`,
        { max_conditions: max });
    }
  }

  private condition(): FilterNode {
    const at = this.pos;
    const c = this.text.charCodeAt(at);
    if (c !== 0x22 && c !== 0x2e && !startsBare(this.text, at)) {
      this.expected(at, "a condition (a path such as price or \"first name\".city, then an operator), '(' or 'not'");
    }
    const scanned = scanPath(this.text, at);
    if (!scanned.ok) this.scanFailed(scanned);
    const path = scanned.value;
    this.pos = skipSpace(this.text, scanned.end);
    const opAt = this.pos;
    const opEnd = scanBare(this.text, opAt);
    const word = this.text.slice(opAt, opEnd);
    if (word === 'exists') {
      this.count(at);
      this.pos = opEnd;
      return { kind: 'exists', path };
    }
    if (word === 'in') {
      this.pos = skipSpace(this.text, opEnd);
      if (this.text.charCodeAt(this.pos) !== 0x28) this.expected(this.pos, "'(' to open the list after 'in'");
      this.pos++;
      const values: string[] = [];
      for (;;) {
        this.pos = skipSpace(this.text, this.pos);
        this.count(this.pos);
        values.push(this.literal());
        this.pos = skipSpace(this.text, this.pos);
        const sep = this.text.charCodeAt(this.pos);
        if (sep === 0x29) break;
        if (sep !== 0x2c) this.expected(this.pos, "',' or ')' in the 'in' list");
        this.pos++;
      }
      this.pos++;
      return { kind: 'in', path, values };
    }
    if (!(FILTER_OPS as readonly string[]).includes(word)) this.expected(opAt, `an operator (${OP_LIST}) after the path`);
    this.count(at);
    const op = word as FilterOp;
    this.pos = skipSpace(this.text, opEnd);
    const literalAt = this.pos;
    const value = this.literal();
    if (op === 'lk' || op === 'il') this.checkLike(value, literalAt);
    return { kind: 'condition', path, op, value };
  }

  /** A literal at the current position: the `value` §5's search would get for it. */
  private literal(): string {
    const at = this.pos;
    const c = this.text.charCodeAt(at);
    if (c === 0x22) {
      const s = scanString(this.text, at);
      if (!s.ok) this.scanFailed(s);
      this.pos = s.end;
      return s.value;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const n = scanNumber(this.text, at);
      if (!n.ok) this.scanFailed(n);
      this.pos = n.end;
      return n.value;
    }
    const end = scanBare(this.text, at);
    const word = this.text.slice(at, end);
    if (word === 'true' || word === 'false' || word === 'null') {
      this.pos = end;
      return word;
    }
    const quote = end > at && !this.lowercaseHint(at) ? ` (a string goes in double quotes: "${clip(word)}")` : '';
    this.expected(at, `${LITERAL}${quote}`);
  }

  /** A LIKE pattern must pass §5's limits; refused ones are listed and the parse goes on. */
  private checkLike(pattern: string, at: number): void {
    const refusal = likeRefusal(pattern);
    if (refusal === undefined) return;
    switch (refusal.reason) {
      case 'trailing_escape':
        this.problems.push(this.problem(at, ErrorType.likePatternInvalid,
          'the LIKE pattern ends with an unescaped backslash; write \\\\\\\\ in the JSON string for a literal backslash'));
        return;
      case 'too_long':
        this.problems.push(this.problem(at, ErrorType.likePatternTooLong,
          `the LIKE pattern is too long: it has ${refusal.length} characters, at most ${refusal.max} are allowed`,
          { max_length: refusal.max }));
        return;
      case 'span_too_long':
        this.problems.push(this.problem(at, ErrorType.likePatternTooLong,
          `the LIKE pattern has a part between two % that contains _ and spans ${refusal.span} characters; such a part may span at most ${refusal.max}`,
          { max_span: refusal.max }));
        return;
    }
  }
}

/** The number of code points of `s`, counting no further than `stop`. */
function codePointsUpTo(s: string, stop: number): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= stop; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/** Parses a filter, or lists its problems (bounds first: nothing is parsed past the length bound). */
export function parseFilter(text: string): ParsedFilter {
  const max = QUERY_BOUNDS.filterMaxLength;
  if (text.length > max && codePointsUpTo(text, max) > max) {
    return {
      ok: false,
      problems: [{
        type: ErrorType.filterTooLong,
        msg: `At position ${max}: the filter is too long; at most ${max} characters are allowed`,
        ctx: { max_length: max, position: max },
      }],
    };
  }
  const parser = new Parser(text);
  try {
    const node = parser.parse();
    return parser.problems.length > 0 ? { ok: false, problems: parser.problems } : { ok: true, node };
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { ok: false, problems: [...parser.problems, e.problem] };
  }
}
