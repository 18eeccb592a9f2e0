/**
 * The exact text of a member of a JSON request body, so that file_data is stored as it was sent
 * (numbers as written: `1.0`, `1e400`, `12345678901234567890`), without its insignificant
 * whitespace. The body has already been parsed by JSON.parse, so the text is valid JSON: the
 * scanner only needs to find where values begin and end. One pass, linear in the text.
 */

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index just past the string token that starts at `i` (a `"`). */
function skipString(text: string, i: number): number {
  let close = text.indexOf('"', i + 1);
  for (;;) {
    let backslashes = 0;
    for (let k = close - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    close = text.indexOf('"', close + 1);
  }
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let k = i; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === 0x22) k = skipString(text, k) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return k + 1;
    }
    return text.length;
  }
  let k = i;
  while (k < text.length) {
    const d = text.charCodeAt(k);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isWhitespace(d)) break;
    k++;
  }
  return k;
}

/** `text[start, end)` without whitespace outside strings. */
export function compactJson(text: string, start = 0, end = text.length): string {
  const parts: string[] = [];
  let from = start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = skipString(text, i) - 1;
    } else if (isWhitespace(c)) {
      if (i > from) parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  if (from === start) return text.slice(start, end);
  if (end > from) parts.push(text.slice(from, end));
  return parts.join('');
}

/** Where the value of the top-level member `name` of the JSON object `text` lies (the last one's), or undefined. */
export function memberSpan(text: string, name: string): [start: number, end: number] | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  let found: [number, number] | undefined;
  i = skipWhitespace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) === 0x22) {
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    const matches = key === `"${name}"` || (key.includes('\\') && JSON.parse(key) === name);
    i = skipWhitespace(text, keyEnd) + 1; // past ':'
    const valueStart = skipWhitespace(text, i);
    const valueEnd = skipValue(text, valueStart);
    if (matches) found = [valueStart, valueEnd];
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) === 0x2c) i = skipWhitespace(text, i + 1);
  }
  return found;
}
