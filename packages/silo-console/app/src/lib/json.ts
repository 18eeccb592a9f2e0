import { JsonNumber, parseJson, toJSON, type JsonValue } from 'silo-query';

/**
 * Pretty-prints JSON with exact numbers: a JsonNumber (from silo-query's parseJson) keeps its
 * text, so a silo opened in the editor and saved unchanged does not turn 12345678901234567890
 * into 12345678901234567000 or 1.50 into 1.5.
 */
export function formatJson(value: JsonValue, indent = '  ', depth = 0): string {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return toJSON(value);
  const pad = indent.repeat(depth + 1);
  const end = indent.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + formatJson(v, indent, depth + 1)).join(',\n')}\n${end}]`;
  }
  const entries = Object.entries(value as { [key: string]: JsonValue });
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${formatJson(v, indent, depth + 1)}`).join(',\n')}\n${end}}`;
}

/** silo-query's parseJson, typed: it returns only JSON values (plain ones and JsonNumbers). */
export function parseExact(text: string): JsonValue {
  return parseJson(text) as JsonValue;
}

/** The result of checking the editor's text as a silo's data. */
export type DataCheck = { ok: true; value: JsonValue } | { ok: false; message: string };

/** What create and update accept as file_data: an object, or an array whose items are all objects. */
export function checkSiloData(text: string): DataCheck {
  let value: JsonValue;
  try {
    value = parseExact(text);
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const isObject = (v: JsonValue) => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
  if (Array.isArray(value)) {
    const bad = value.findIndex((v) => !isObject(v));
    if (bad >= 0) return { ok: false, message: `Item ${bad} of the array is not an object: silo data is an object, or an array of objects.` };
    return { ok: true, value };
  }
  if (!isObject(value)) return { ok: false, message: 'Silo data must be an object, or an array of objects.' };
  return { ok: true, value };
}

/**
 * The stored text of a silo from the raw get-silo answer `{"data": <text>}`: parsed with exact
 * numbers and printed for the editor.
 */
export function dataFromGetSilo(raw: string): string {
  return formatJson(dataMember(parseExact(raw)));
}

/** The `data` member of a parsed `{"data": ...}` answer (get-silo, a version). */
export function dataMember(parsed: JsonValue): JsonValue {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || parsed instanceof JsonNumber) {
    throw new SyntaxError('The answer is not a JSON object');
  }
  const record = parsed as { [key: string]: JsonValue };
  if (!Object.hasOwn(record, 'data')) throw new SyntaxError('The answer has no "data" member');
  return record['data'] ?? null;
}
