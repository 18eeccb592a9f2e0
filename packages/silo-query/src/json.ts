/**
 * `toJSON`: the JSON text of a query result. Exactly `JSON.stringify`, except that a `bigint`
 * (what `output=int` returns beyond the safe integer range) is written as its plain integer
 * digits, exactly, wherever it is; and a value JSON cannot hold at the top (`undefined`) is
 * written as `null`.
 */

type WithToJSON = { toJSON(key: string): unknown };

function hasToJSON(v: object): v is WithToJSON {
  return typeof (v as Partial<WithToJSON>).toJSON === 'function';
}

/** The slow path, only taken when the value holds a bigint below the top level. */
function write(value: unknown, key: string, ancestors: Set<object>): string | undefined {
  let v = value;
  if (typeof v === 'object' && v !== null && hasToJSON(v)) v = v.toJSON(key);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return JSON.stringify(v);
  if (ancestors.has(v)) throw new TypeError('Converting circular structure to JSON');
  ancestors.add(v);
  let out: string;
  if (Array.isArray(v)) {
    const parts = new Array<string>(v.length);
    for (let i = 0; i < v.length; i++) parts[i] = write(v[i], String(i), ancestors) ?? 'null';
    out = `[${parts.join(',')}]`;
  } else {
    const parts: string[] = [];
    for (const k of Object.keys(v)) {
      const s = write((v as Record<string, unknown>)[k], k, ancestors);
      if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`);
    }
    out = `{${parts.join(',')}}`;
  }
  ancestors.delete(v);
  return out;
}

export function toJSON(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    // JSON.stringify refuses a nested bigint with a TypeError (so does a cycle: `write` throws
    // the same TypeError again for it).
    if (!(err instanceof TypeError)) throw err;
    text = write(value, '', new Set());
  }
  return text ?? 'null';
}
