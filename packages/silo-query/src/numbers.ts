/**
 * Number grammar helpers shared by conversions and comparisons. Loops, no regular expressions.
 */

/** ASCII whitespace as WHATWG defines it: TAB, LF, FF, CR, SPACE. */
export function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** `s` without leading and trailing ASCII whitespace (TAB, LF, FF, CR, SPACE). */
export function trimAsciiWhitespace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isAsciiWhitespace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * `true` when `s[from..]` is exactly a JSON number (RFC 8259):
 * `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. No leading `+`, no whitespace, no `.5`,
 * no `1.`, no `Infinity`, no hexadecimal.
 */
export function isJsonNumber(s: string, from = 0): boolean {
  const n = s.length;
  let i = from;
  if (i < n && s.charCodeAt(i) === 0x2d) i++; // -
  if (i >= n) return false;
  let c = s.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) {
    i++;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  } else return false;
  if (i < n && s.charCodeAt(i) === 0x2e) { // .
    i++;
    if (i >= n || !isDigit(s.charCodeAt(i))) return false;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  if (i < n) {
    c = s.charCodeAt(i);
    if (c !== 0x65 && c !== 0x45) return false; // e E
    i++;
    if (i < n) {
      c = s.charCodeAt(i);
      if (c === 0x2b || c === 0x2d) i++; // + -
    }
    if (i >= n || !isDigit(s.charCodeAt(i))) return false;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  return i === n;
}

/** `true` when `s` is `[+-]?[0-9]+` (at least one digit, nothing else). */
export function isIntegerString(s: string): boolean {
  const n = s.length;
  let i = 0;
  if (n > 0) {
    const c = s.charCodeAt(0);
    if (c === 0x2b || c === 0x2d) i = 1;
  }
  if (i >= n) return false;
  for (; i < n; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}
