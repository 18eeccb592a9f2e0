/**
 * UTF-8 bytes of a response body made of JSON texts, without holding the event loop for a
 * silo-sized stretch: a large text is written in slices of `SLICE_CHARS`, each in a turn of the
 * event loop of its own, given by the process's one line of bulk work (loop-turns.ts), so a tiny
 * read waiting behind the encoding of 10 MB versions waits about a millisecond, not the whole
 * encoding (about 10 ms per 10 MB here, more under GC pressure), however many are encoded at once.
 *
 * The parts are written one after another into one buffer of their exact length: no
 * concatenated string is built (flattening one copies the whole text on the loop).
 */
import { bulkTurns } from './loop-turns.js';

const SLICE_CHARS = 1 << 20;

export async function textBytes(...parts: string[]): Promise<Buffer> {
  // The length too is counted slice by slice: counting 10 MB at once took 3 to 7 ms of the loop.
  let length = 0;
  for (const part of parts) await eachSlice(part, (slice) => (length += Buffer.byteLength(slice, 'utf8')));
  const bytes = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const part of parts) await eachSlice(part, (slice) => (offset += bytes.write(slice, offset, 'utf8')));
  return bytes;
}

/** Calls `use` with `part` in slices of SLICE_CHARS or so, each of a large part in its turn of the bulk work's line. */
async function eachSlice(part: string, use: (slice: string) => void): Promise<void> {
  if (part.length <= SLICE_CHARS) return use(part);
  for (let start = 0; start < part.length; ) {
    let end = Math.min(start + SLICE_CHARS, part.length);
    // Never split a surrogate pair: its halves would each be counted and written as U+FFFD.
    if (end < part.length && isHighSurrogate(part.charCodeAt(end - 1))) end -= 1;
    await bulkTurns.next(end - start);
    use(part.slice(start, end));
    start = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
