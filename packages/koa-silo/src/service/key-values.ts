/**
 * Key values: a readable prefix naming the key type, then 32 bytes from the CSPRNG in base64url
 * (43 characters, URL-safe). Only the SHA-256 of a value is ever stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { KEY_PREFIX, type KeyType } from '../model/index.js';

const RANDOM_BYTES = 32;

/** Longer presented values are refused without hashing: no key Silo issues is this long. */
export const MAX_KEY_VALUE_LENGTH = 256;

export function generateKeyValue(type: KeyType): string {
  return KEY_PREFIX[type] + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** SHA-256 as lower-case hex: the lookup key of a stored key. */
export function hashKeyValue(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
