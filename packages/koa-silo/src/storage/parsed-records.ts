/**
 * Parsed records by their stored text: a silo's head is read on every request, and parsing its
 * JSON was the largest cost of Silo's own on a cached read. The same text always parses to the
 * same value, so the value is kept (frozen: it is shared by every caller) for the texts seen
 * last; a record that changed is new text, parsed once. Holds at most `max` entries, dropping the
 * oldest first.
 */
export class ParsedRecords<T extends object> {
  readonly #byText = new Map<string, Readonly<T>>();

  constructor(private readonly max = 2000) {}

  parse(text: string): Readonly<T> {
    let value = this.#byText.get(text);
    if (value === undefined) {
      value = deepFreeze(JSON.parse(text) as T);
      if (this.#byText.size >= this.max) this.#byText.delete(this.#byText.keys().next().value!);
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
