/**
 * The data texts event streams send (`?data=1`), held in memory only while streams write them:
 * one load per silo version for every stream sending it at the time (100 subscribers of a 10 MB
 * silo hold 10 MB, not 1 GB), charged to the memory budget (admission's `texts` gate) from before
 * it is read until the last stream has written it and LINGER_MS more. Without that, 20 streams of a
 * 10 MB silo read 16 cached texts nobody had accounted for, and RSS reached 790 MB.
 *
 * A stream holds at most one text at a time, and takes nothing else from the budget while it
 * does, so streams cannot each hold what another waits for. When the budget stays full past the
 * gate's wait, the load fails with MemoryBusyError for every stream waiting on it.
 */
import type { MemoryGate, Reservation } from '../limits/admission.js';

/** Where a version's text comes from: its byte length (charged before the read), and the text. */
export interface TextSource {
  size(): Promise<number>;
  read(): Promise<string>;
}

/** A text held by one stream: its bytes (one line: JSON without line breaks), until release(). */
export interface HeldText {
  bytes: Promise<Buffer>;
  /** Idempotent; the text is given back to the budget once no stream holds it. */
  release(): void;
}

/**
 * How long a text nobody holds stays loaded (and charged): streams opened in a burst (clients
 * reconnecting together) catch up one after another, and share one load rather than each reading it.
 */
const LINGER_MS = 1000;

interface Entry {
  holders: number;
  bytes: Promise<Buffer>;
  reservation?: Reservation;
  linger?: NodeJS.Timeout;
  gone: boolean;
}

/** Every JSON line break (whitespace between tokens: strings cannot hold one) made a space, in place. */
function oneLine(bytes: Buffer): Buffer {
  for (const byte of [0x0a, 0x0d]) {
    for (let at = bytes.indexOf(byte); at >= 0; at = bytes.indexOf(byte, at + 1)) bytes[at] = 0x20;
  }
  return bytes;
}

class AbandonedError extends Error {
  constructor() {
    super('no stream holds this text any more');
  }
}

export class SharedTexts {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly gate: MemoryGate) {}

  /** The text of `key` (a silo version), loaded from `source` unless some stream holds it already. */
  hold(key: string, source: TextSource): HeldText {
    let entry = this.#entries.get(key);
    if (entry === undefined) this.#entries.set(key, (entry = this.#load(key, source)));
    const held = entry;
    held.holders++;
    clearTimeout(held.linger);
    let released = false;
    return {
      bytes: held.bytes,
      release: () => {
        if (released) return;
        released = true;
        if (--held.holders > 0) return;
        held.linger = setTimeout(() => held.holders === 0 && this.#forget(key, held), LINGER_MS);
        held.linger.unref();
      },
    };
  }

  #load(key: string, source: TextSource): Entry {
    // `bytes` is set just below: the load needs the entry, to see whether it is still wanted.
    const entry: Entry = { holders: 0, gone: false, bytes: Promise.resolve(Buffer.alloc(0)) };
    entry.bytes = (async () => {
      // The text and its bytes while it is converted; then the bytes alone.
      const reservation = await this.gate.take(2 * (await source.size()));
      entry.reservation = reservation;
      // Every stream that wanted it left while it waited (or it failed): nothing to read.
      if (entry.gone) throw new AbandonedError();
      const text = await source.read();
      if (entry.gone) throw new AbandonedError();
      const bytes = oneLine(Buffer.from(text, 'utf8'));
      reservation.shrinkTo(bytes.length);
      return bytes;
    })();
    entry.bytes.catch(() => this.#forget(key, entry));
    return entry;
  }

  /** Unloaded: no longer given to new holders, and given back to the budget (the bytes are garbage once the last write of them is done). */
  #forget(key: string, entry: Entry): void {
    entry.gone = true;
    clearTimeout(entry.linger);
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    entry.reservation?.release();
  }
}
