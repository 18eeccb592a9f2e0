/**
 * Silo identifiers and versions.
 */
import { randomBytes, randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newSiloUuid(): string {
  return randomUUID();
}

/**
 * The canonical (lower-case) form of a uuid, or undefined for anything else. Lookups only ever
 * build storage keys from this form, so no path segment can reach into another key.
 */
export function canonicalUuid(value: string): string | undefined {
  return UUID.test(value) ? value.toLowerCase() : undefined;
}

const PREFIX_CHARS = 10;
const COUNTER_CHARS = 6;
const COUNTER_LIMIT = 36 ** COUNTER_CHARS;

let prefix = '';
let counter = COUNTER_LIMIT;

/**
 * A fresh version: 16 characters of `[A-Za-z0-9_-]` (so the HTTP layer can use it as an ETag as it
 * is), a random prefix of this process (60 bits in base64url, drawn again every 36^6 versions)
 * then a counter in base 36. Unique per write across every process sharing the storage, never
 * reused, never ordered; one random draw per two billion writes instead of one per write.
 */
export function newVersion(): string {
  if (counter >= COUNTER_LIMIT) {
    prefix = randomBytes(8).toString('base64url').slice(0, PREFIX_CHARS);
    counter = 0;
  }
  return prefix + (counter++).toString(36).padStart(COUNTER_CHARS, '0');
}
