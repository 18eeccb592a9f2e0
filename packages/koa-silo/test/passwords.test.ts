/**
 * Console password hashes (console/passwords.ts): verified only within the parameters this server
 * may afford; anything else never matches and costs what any check costs (no 500, no minutes of
 * scrypt from a record that came in by import).
 */
import { describe, expect, it } from 'vitest';
import { hashPassword, isPasswordHash, verifyPassword } from '../src/console/passwords.js';

describe('password hashes', () => {
  it('verifies its own hashes, and tells no wrong password from a hash it cannot use', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(isPasswordHash(stored)).toBe(true);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('wrong', stored)).toBe(false);
    const [, , , , salt, hash] = stored.split('$');
    for (const [n, r, p] of [[2 ** 30, 8, 1], [32768, 8, 1_000_000], [2, 8, 1], [32769, 8, 1], [32768, 1000, 1]]) {
      const odd = ['scrypt', n, r, p, salt, hash].join('$');
      expect(isPasswordHash(odd), odd).toBe(false);
      // The dummy hash's work, then false: not scrypt's RangeError (a 500), nor its minutes.
      expect(await verifyPassword('correct horse battery', odd)).toBe(false);
    }
    expect(await verifyPassword('x', 'plain')).toBe(false);
  });
});
