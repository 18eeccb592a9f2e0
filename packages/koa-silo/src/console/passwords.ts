/**
 * Console passwords: scrypt (memory-hard, in node:crypto) with a random salt per password, stored
 * as `scrypt$N$r$p$<salt>$<hash>` (base64url) so that the cost can grow without breaking old hashes.
 * Verifying an unknown user's password runs the same work against a fixed hash, so an answer takes
 * as long for an unknown user as for a wrong password.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
/** scrypt needs 128·N·r bytes; the default limit (32 MiB) is exactly that, so give it room. */
const MAX_MEMORY = 64 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_BYTES, { ...options, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH = /^scrypt\$([1-9][0-9]{0,9})\$([1-9][0-9]{0,2})\$([1-9][0-9]{0,2})\$([A-Za-z0-9_-]{22,})\$([A-Za-z0-9_-]{43})$/;

/**
 * Whether `stored` is a hash this module can verify, at a cost it may take: N a power of two from
 * 2^14 (weaker is no protection) with 128·N·r within MAX_MEMORY, p at most 4, a salt of 16 bytes
 * or more, a 32-byte hash. An imported record with other parameters is refused at import; one
 * that got into storage otherwise never matches (scrypt would refuse it, or take minutes).
 */
export function isPasswordHash(stored: string): boolean {
  const m = HASH.exec(stored);
  if (!m) return false;
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return n >= 2 ** 14 && (n & (n - 1)) === 0 && 128 * n * r <= MAX_MEMORY && p <= 4;
}

/** Whether `password` matches `stored`; with no stored hash, or one it cannot verify, the same work and false. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const usable = stored !== undefined && isPasswordHash(stored);
  const [, n, r, p, salt, hash] = (usable ? stored : DUMMY).split('$');
  const expected = Buffer.from(hash!, 'base64url');
  const key = await scrypt(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return usable && key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password for people to copy: 20 characters of base64url (120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

/** The hash an unknown user is checked against (of a random password nobody knows). */
const DUMMY = ['scrypt', COST.N, COST.r, COST.p, randomBytes(16).toString('base64url'), randomBytes(KEY_BYTES).toString('base64url')].join('$');
