/**
 * RFC 6901 JSON Pointers: parsing, and reading and writing own members of JSON containers.
 *
 * Members are own data properties: `__proto__`, `constructor` and `prototype` are read and
 * written as plain data (never through the prototype chain or its setter).
 */

/** A pointer's reference tokens, or undefined when `text` is not a JSON Pointer. */
export function parsePointer(text: string): string[] | undefined {
  if (text === '') return [];
  if (text.charCodeAt(0) !== 0x2f) return undefined; // '/'
  const tokens = text.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.includes('~')) continue;
    if (/~(?![01])/.test(token)) return undefined;
    tokens[i] = token.replaceAll('~1', '/').replaceAll('~0', '~');
  }
  return tokens;
}

export function isPointer(value: unknown): value is string {
  return typeof value === 'string' && parsePointer(value) !== undefined;
}

/** A JSON object: not null, not an array, and not a number kept as text (silo-query's JsonNumber). */
export function isContainerObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The array index a token names (`0`, `12`; no sign, no leading zero), else undefined. */
export function arrayIndex(token: string): number | undefined {
  return ARRAY_INDEX.test(token) ? Number(token) : undefined;
}

export function hasMember(object: Record<string, unknown>, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, name);
}

export function setMember(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
}
