/**
 * Key values: a readable prefix naming the key type, then 32 bytes from the CSPRNG in base64url
 * (43 characters, URL-safe). Only the SHA-256 of a value is ever stored.
 */
import { hash, randomBytes } from 'node:crypto';
import { KEY_PREFIX, type KeyType } from '../model/index.js';

const RANDOM_BYTES = 32;

/** Longer presented values are refused without hashing: no key Silo issues is this long. */
export const MAX_KEY_VALUE_LENGTH = 256;

export function generateKeyValue(type: KeyType): string {
  return KEY_PREFIX[type] + randomBytes(RANDOM_BYTES).toString('base64url');
}

/**
 * SHA-256 as lower-case hex: the lookup key of a stored key. (The one-shot `crypto.hash` costs a
 * third of a Hash object's create, update and digest, and every keyed request pays it.)
 */
export function hashKeyValue(value: string): string {
  return hash('sha256', value, 'hex');
}
