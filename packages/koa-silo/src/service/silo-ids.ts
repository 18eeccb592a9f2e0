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

/**
 * A fresh version: 96 random bits in base64url (16 characters of `[A-Za-z0-9_-]`, so the HTTP
 * layer can use it as an ETag as it is). Unique per write, never reused, never ordered.
 */
export function newVersion(): string {
  return randomBytes(12).toString('base64url');
}
