/**
 * `toJSON`: the JSON text of a query result. Exactly `JSON.stringify`, except that a `bigint`
 * (what `output=int` returns beyond the safe integer range) is written as its plain integer
 * digits, exactly, wherever it is; a `JsonNumber` as its exact text, wherever it is; and a
 * value JSON cannot hold at the top (`undefined`) is written as `null`.
 */
import { JsonNumber } from './json-number.js';

type WithToJSON = { toJSON(key: string): unknown };

function hasToJSON(v: object): v is WithToJSON {
  return typeof (v as Partial<WithToJSON>).toJSON === 'function';
}

/**
 * Below a value that `JSON.stringify` refused, this many levels of plain containers are first
 * offered to `JSON.stringify` again, one child at a time: the children without a bigint or a
 * `JsonNumber` (usually most of them) are then written natively. Past that depth everything is
 * written here, so a refused attempt re-reads any part of the value at most this many times.
 */
const NATIVE_LEVELS = 4;

/**
 * A container being written by `write`: whether its members are still offered to
 * `JSON.stringify` first. Each refusal costs a partial write and a throw, so after a few more
 * refusals than successes the rest of the container's members are written here directly.
 */
class Natively {
  private credit = 4;
  constructor(readonly levels: number) {}
  get worth(): boolean {
    return this.levels > 0 && this.credit > 0;
  }
  result(ok: boolean): void {
    this.credit += ok ? (this.credit < 64 ? 1 : 0) : -1;
  }
}

/** One member of a container being written by `write`. */
function member(v: unknown, key: string, ancestors: Set<object>, native: Natively): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? '' + v : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      if (v instanceof JsonNumber) return v.text;
      if (native.worth && !hasToJSON(v)) {
        try {
          const text = JSON.stringify(v);
          native.result(true);
          return text;
        } catch (err) {
          if (!(err instanceof TypeError)) throw err;
          native.result(false);
        }
      }
      return write(v, key, ancestors, native.levels);
    default:
      return write(v, key, ancestors, native.levels);
  }
}

/** The slow path, only taken when the value holds a bigint or a `JsonNumber` below the top level. */
function write(value: unknown, key: string, ancestors: Set<object>, native: number): string | undefined {
  let v = value;
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'object' && v !== null && hasToJSON(v)) v = v.toJSON(key);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof JsonNumber) return v.text; // a toJSON that returned one
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return JSON.stringify(v);
  if (ancestors.has(v)) throw new TypeError('Converting circular structure to JSON');
  ancestors.add(v);
  const below = new Natively(native - 1);
  let out: string;
  if (Array.isArray(v)) {
    const parts = new Array<string>(v.length);
    for (let i = 0; i < v.length; i++) parts[i] = member(v[i], String(i), ancestors, below) ?? 'null';
    out = `[${parts.join(',')}]`;
  } else {
    const parts: string[] = [];
    for (const k of Object.keys(v)) {
      const s = member((v as Record<string, unknown>)[k], k, ancestors, below);
      if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`);
    }
    out = `{${parts.join(',')}}`;
  }
  ancestors.delete(v);
  return out;
}

export function toJSON(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof JsonNumber) return value.text;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    // JSON.stringify refuses a nested bigint with a TypeError, and a JsonNumber's own toJSON
    // throws one. A cycle too: `write` throws the same TypeError again for it.
    if (!(err instanceof TypeError)) throw err;
    text = write(value, '', new Set(), NATIVE_LEVELS + 1);
  }
  return text ?? 'null';
}
