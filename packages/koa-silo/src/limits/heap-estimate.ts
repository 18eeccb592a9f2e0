/**
 * How much V8 heap the parsed value of a JSON text holds, estimated in one pass over the text, so
 * that the parsed-data cache and the memory budget charge what a value really costs rather than
 * its text length: `[{},{},...]` holds 21 bytes of heap per byte of text, a few long strings 1.
 * The pass takes 25-60 ms per 10 MB (2-core machine, idle): about half of JSON.parse for records,
 * a twentieth for dense data; it runs once per silo version parsed, not on cache hits.
 *
 * The model is V8's layout on 64-bit Node without pointer compression (8-byte words), measured
 * with `--expose-gc` (heap used after gc() with the value alive, minus before), Node 20:
 *
 *   value (as an element of an array)        measured   model
 *   {}                                        64         8 slot + 24 object + 32 spare in-object slots
 *   {"a":1}  {"a":1,"b":2}  6 properties      40 48 80   8 + 24 + 8 per property
 *   [] [1] [1,2] [1,2,3,4]                    40 64 72 88  8 + 32, + 16 + 8 per element when not empty
 *   1  true  (small integers, literals)       8          8 (the slot; no object)
 *   {"a":0.5}                                 56         a non-integer number: + 16 (a HeapNumber)
 *   unique strings of 12, 30, 100 chars       40 56 128  8 + 16 + length rounded up to 8
 *   {"k<i>":1}, a distinct key in each       184        + 72 + length per distinct key, + 64 + 48 (a new map, below)
 *
 * Whole 10 MB texts, measured → estimated: `[{},...]` 213 → 213 MB; `[[],...]` 133 → 133 MB;
 * records `{"id":1,"name":"n1","ok":true}` 14 → 20 MB; records of five fields with e-mail, tags
 * and a double 19 → 27 MB; `{"x":0.5,"y":0.3}` objects 27 → 43 MB; a distinct key in every object
 * 87 → 86 MB; one object with 600 000 keys 68 → 125 MB; GeoJSON points 19 → 51 MB; ten 1 MB
 * strings 10 → 10 MB; strings of `é` 5 → 5 MB (Latin-1: one byte a character), of `中` 6.7 → 6.7 MB.
 * Short strings (10 characters or fewer) repeated across the data are shared by V8 and cost only
 * their slot, doubles in arrays are unboxed: both are charged as the general case, so the estimate
 * errs high (up to about 3x), never more than a little low. Numbers that silo-query keeps as
 * written (`1.0`, `1e3`, `-0`, `0.0000001`, over 15 digits) are charged as the small object and string they become.
 */

/**
 * The most heap a value can hold per character of its text, with a margin: `[[{}],[{}],...]` (an
 * array and an empty object in every 5 characters, 120 bytes) is the worst shape found, at 24;
 * `[{},{},...]` holds 21.
 */
export const WORST_BYTES_PER_CHAR = 25;

/** A distinct-key set this large is enough to see that keys repeat (records); past it, new keys are charged. */
const KEYS_TRACKED = 4096;
/** Key orders tracked (see NEW_MAP); past it, an order not among them is charged as new. */
const SHAPES_TRACKED = 65_536;

const NOT_LATIN1 = /[^\u0000-\u00ff]/;

const WORD = 8;
const OBJECT = 3 * WORD;
/** `{}` gets four in-object property slots it never fills. */
const EMPTY_OBJECT_EXTRA = 4 * WORD;
const ARRAY = 4 * WORD;
/** Header of the elements store of a non-empty array. */
const ELEMENTS = 2 * WORD;
const STRING = 2 * WORD;
const HEAP_NUMBER = 2 * WORD;
/** A number kept as its text: a JsonNumber object and its string. */
const KEPT_NUMBER = OBJECT + WORD + STRING + 3 * WORD;
/** A key seen for the first time: its string, and the hidden class of an object holding only it. */
const NEW_KEY = 72;
/**
 * V8 gives each distinct order of keys its own chain of hidden classes: every distinct prefix of
 * an object's key order is a map (NEW_MAP), and every distinct whole order keeps a descriptor array
 * of its own (LEAF_KEY per key). Objects whose keys come in shuffled orders or as varying subsets
 * (optional fields) hold far more than their values: 20 keys shuffled, 9.5 MB of text, 124 MB of
 * heap (the key-only model said 12); 20 optional keys 80 MB (14). Fitted on such texts: 57 bytes
 * a prefix, 42 a key of a whole order.
 */
const NEW_MAP = 64;
const LEAF_KEY = 48;
/** The key order of an object that has no keys yet (FNV-1a's offset basis). */
const NO_KEYS = 0x811c9dc5 | 0;

/** Estimated bytes of V8 heap held by the value `JSON.parse(text)` (or silo-query's parseJson) returns. */
export function estimateParsedBytes(text: string): number {
  const n = text.length;
  // V8 keeps a string of Latin-1 characters in one byte per character, any other in two.
  const charBytes = NOT_LATIN1.test(text) ? 2 : 1;
  let bytes = 0;
  let containers = 0;
  let commas = 0;
  const keys = new Set<number>();
  // The open objects' key orders so far (as hashes) and key counts, innermost last.
  const orders: number[] = [];
  const counts: number[] = [];
  const prefixes = new Set<number>();
  const wholes = new Set<number>();
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      if (end === -1) break; // not JSON: the parser reports it
      let next = end + 1;
      while (next < n && isSpace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === 0x3a /* : */) {
        const hash = hashOf(text, i + 1, end);
        if (!keys.has(hash)) {
          if (keys.size < KEYS_TRACKED) keys.add(hash);
          bytes += NEW_KEY + charBytes * (end - i - 1);
        }
        const top = orders.length - 1;
        if (top >= 0) {
          const order = Math.imul(orders[top]! ^ hash, 0x01000193);
          orders[top] = order;
          counts[top]!++;
          if (!prefixes.has(order)) {
            if (prefixes.size < SHAPES_TRACKED) prefixes.add(order);
            bytes += NEW_MAP;
          }
        }
      } else {
        bytes += STRING + roundUp(charBytes * (end - i - 1));
      }
      i = end + 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      let next = i + 1;
      while (next < n && isSpace(text.charCodeAt(next))) next++;
      const d = text.charCodeAt(next);
      const empty = d === 0x7d || d === 0x5d;
      if (c === 0x7b) {
        bytes += OBJECT + (empty ? EMPTY_OBJECT_EXTRA : 0);
        orders.push(NO_KEYS);
        counts.push(0);
      } else bytes += ARRAY + (empty ? 0 : ELEMENTS);
      if (!empty) containers++;
      i++;
    } else if (c === 0x7d /* } */) {
      const order = orders.pop();
      const count = counts.pop() ?? 0;
      if (order !== undefined && count > 0 && !wholes.has(order)) {
        if (wholes.size < SHAPES_TRACKED) wholes.add(order);
        bytes += LEAF_KEY * count;
      }
      i++;
    } else if (c === 0x2c /* , */) {
      commas++;
      i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let fraction = false;
      let exponent = false;
      do {
        const d = text.charCodeAt(++i);
        if (d === 0x2e) fraction = true;
        else if (d === 0x65 || d === 0x45) exponent = true;
        else if (!(d >= 0x30 && d <= 0x39) && d !== 0x2b && d !== 0x2d) break;
      } while (i < n);
      const length = i - start;
      if (exponent || length > 15 || (fraction && text.charCodeAt(i - 1) === 0x30) || writtenOtherwise(text, start, length, fraction)) {
        bytes += KEPT_NUMBER + roundUp(length);
      } else if (fraction || length > 9) bytes += HEAP_NUMBER;
    } else {
      i++;
    }
  }
  // Every value inside an array or object takes one slot: a comma separates two, and each
  // non-empty container holds one more than its commas. The model errs high, most for short
  // kept numbers (`[-0,-0,...]`: 29 bytes a character charged, 22 held): never past the worst.
  return Math.min(bytes + WORD * (commas + containers), WORST_BYTES_PER_CHAR * n);
}

/**
 * The short numbers JavaScript writes otherwise, which silo-query keeps as JsonNumbers too: `-0`
 * (written `0`) and decimals under 1e-6 (written `1e-7`). Missed, a silo of millions of `-0` was
 * charged 18 MB for 140 MB of heap.
 */
function writtenOtherwise(text: string, start: number, length: number, fraction: boolean): boolean {
  const from = text.charCodeAt(start) === 0x2d /* - */ ? start + 1 : start;
  if (!fraction) return from > start && length === 2 && text.charCodeAt(from) === 0x30;
  return text.startsWith('0.000000', from);
}

function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    let backslashes = 0;
    for (let k = close - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** FNV-1a of text[start, end), as a small integer for a Set. */
function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  return h | 0;
}

function roundUp(length: number): number {
  return (length + WORD - 1) & ~(WORD - 1);
}
