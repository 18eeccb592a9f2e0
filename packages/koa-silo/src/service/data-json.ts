/**
 * Stored data is JSON text kept exactly as it was sent. When the service must work on it as a
 * value (a patch), it parses and writes it with these two, which keep every number as written.
 */
import { parseJson, toJSON } from 'silo-query';

export function parseData(text: string): unknown {
  return parseJson(text);
}

export function writeData(value: unknown): string {
  return toJSON(value);
}

/** A JSON object (not an array, not a number kept as text). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
