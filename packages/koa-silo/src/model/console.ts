/**
 * The console's vocabulary (contract §13), below the layers that use it: console users (people who
 * sign in with a password, each acting for one account) and their sessions.
 */

/** A console user as stored: the scrypt hash of the password, never the password. */
export interface StoredUser {
  name: string;
  account: string;
  /** `scrypt$N$r$p$salt$hash` (see passwords.ts). */
  hash: string;
  created_at: string;
}

/** A console user as listed. */
export type UserInfo = Omit<StoredUser, 'hash'>;

/** A signed-in session, stored under the SHA-256 of its token (the cookie's value). */
/** A client network (an IPv4 address, an IPv6 /64) a user signed in from, and when last (epoch ms). */
export interface KnownNetwork {
  network: string;
  at: number;
}

export interface ConsoleSession {
  user: string;
  account: string;
  /** The user's created_at: a user deleted and made again under the same name starts afresh. */
  user_created_at: string;
  created_at: string;
  /** Last request (epoch ms), for the idle timeout. */
  seen_at: number;
}
