/**
 * Console users and sessions (contract §13): a user signs in with a password and acts for its
 * account; the session lives in storage (every instance honours it, and a sign-out or the user's
 * deletion ends it everywhere at its next request). No HTTP here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { BadRequestError, type Clock, ConflictError, isoTime, NotFoundError, type StoredUser, systemClock, type UserInfo } from '../model/index.js';
import { userNameProblem } from '../schemas/names.js';
import type { SiloStorage } from '../storage/index.js';
import { generatePassword, hashPassword, verifyPassword } from './passwords.js';

/** A session unused this long has ended. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session's last use is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000;

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

export interface SignedIn {
  user: string;
  account: string;
}

export interface ConsoleService {
  /** Makes a user of `account`; without `password`, one is generated (and returned: shown once). */
  createUser(input: { account: string; name: string; password?: string }): Promise<UserInfo & { password: string }>;
  listUsers(account?: string): Promise<UserInfo[]>;
  /** Throws BadRequestError when `confirm !== name`, NotFoundError when there is no such user. */
  deleteUser(name: string, confirm: string): Promise<void>;
  /** The new session's token, or undefined for an unknown user or a wrong password alike. */
  signIn(name: string, password: string): Promise<{ token: string; who: SignedIn } | undefined>;
  /** Who holds session `token`; undefined when it ended (signed out, idle, user deleted). */
  resolve(token: string): Promise<SignedIn | undefined>;
  signOut(token: string): Promise<void>;
}

const sessionKey = (token: string) => createHash('sha256').update(token).digest('hex');

function infoOf(user: StoredUser): UserInfo {
  return { name: user.name, account: user.account, created_at: user.created_at };
}

export function createConsoleService(storage: SiloStorage, options: { now?: Clock } = {}): ConsoleService {
  const now = options.now ?? systemClock;

  return {
    async createUser({ account, name, password }) {
      const badName = userNameProblem(name);
      if (badName) throw new BadRequestError(badName);
      if (password !== undefined && (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)) {
        throw new BadRequestError(`A password is ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
      }
      if (!(await storage.getAccount(account))) throw new NotFoundError('Account not found');
      const chosen = password ?? generatePassword();
      const user: StoredUser = { name, account, hash: await hashPassword(chosen), created_at: isoTime(now()) };
      if (!(await storage.insertUser(user))) throw new ConflictError(`A console user named "${name}" exists`);
      return { ...infoOf(user), password: chosen };
    },

    async listUsers(account) {
      const users = await storage.listUsers();
      return users
        .filter((u) => account === undefined || u.account === account)
        .map(infoOf)
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async deleteUser(name, confirm) {
      if (confirm !== name) throw new BadRequestError('The confirmation does not match the user name');
      if (!(await storage.removeUser(name))) throw new NotFoundError(`No console user named "${name}"`);
    },

    async signIn(name, password) {
      const user = name.length <= 64 && password.length <= MAX_PASSWORD ? await storage.getUser(name) : undefined;
      // The same scrypt work whether or not the user exists: the answer's timing tells nothing.
      const matches = await verifyPassword(password.slice(0, MAX_PASSWORD), user?.hash);
      if (!user || !matches) return undefined;
      const token = randomBytes(32).toString('base64url');
      const at = now();
      await storage.putSession(sessionKey(token), {
        user: user.name,
        account: user.account,
        user_created_at: user.created_at,
        created_at: isoTime(at),
        seen_at: at,
      });
      return { token, who: { user: user.name, account: user.account } };
    },

    async resolve(token) {
      if (token.length === 0 || token.length > 100) return undefined;
      const key = sessionKey(token);
      const [session, at] = [await storage.getSession(key), now()];
      if (!session) return undefined;
      if (at - session.seen_at >= SESSION_IDLE_MS) {
        await storage.deleteSession(key);
        return undefined;
      }
      const user = await storage.getUser(session.user);
      if (!user || user.created_at !== session.user_created_at) {
        await storage.deleteSession(key);
        return undefined;
      }
      if (at - session.seen_at >= TOUCH_EVERY_MS) await storage.putSession(key, { ...session, seen_at: at });
      return { user: session.user, account: session.account };
    },

    async signOut(token) {
      await storage.deleteSession(sessionKey(token));
    },
  };
}
