/** A stored JSON record read back: its value, or `fallback` when the record is absent. */
export function parseOr<T>(text: string | undefined, fallback: T): T {
  return text === undefined ? fallback : (JSON.parse(text) as T);
}
