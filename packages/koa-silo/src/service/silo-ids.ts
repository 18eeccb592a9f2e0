/**
 * Silo identifiers.
 */
import { randomUUID } from 'node:crypto';

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
