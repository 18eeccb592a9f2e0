/**
 * Parsed records by their stored text: a silo's head is read on every request, and parsing its
 * JSON was the largest cost of Silo's own on a cached read. The same text always parses to the
 * same value, so the value is kept (frozen: it is shared by every caller) for the texts seen
 * last; a record that changed is new text, parsed once. Holds at most `max` entries, dropping the
 * oldest eighth when full (bounded-map.ts).
 */
import { BoundedMap } from '../limits/bounded-map.js';

export class ParsedRecords<T extends object> {
  readonly #byText: BoundedMap<string, Readonly<T>>;

  constructor(max = 2000) {
    this.#byText = new BoundedMap(max);
  }

  parse(text: string): Readonly<T> {
    let value = this.#byText.get(text);
    if (value === undefined) {
      value = deepFreeze(JSON.parse(text) as T);
      this.#byText.set(text, value);
    }
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
