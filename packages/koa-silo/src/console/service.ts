/**
 * Console users and sessions (contract §13): a user signs in with a password and acts for its
 * account; the session lives in storage (every instance honours it, and a sign-out or the user's
 * deletion ends it everywhere at its next request). No HTTP here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type AuditActor, auditEntryOf, type AuditSource, BadRequestError, type Clock, ConflictError, isoTime, type KnownNetwork, NotFoundError, PROGRAM_ACTOR, type StoredUser, systemClock, type UserInfo } from '../model/index.js';
import { userNameProblem } from '../schemas/names.js';
import type { SiloStorage } from '../storage/index.js';
import { BoundedMap } from '../limits/bounded-map.js';
import { PasswordWork } from './password-work.js';
import { generatePassword, hashPassword, verifyPassword } from './passwords.js';

/** A session unused this long has ended. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session this old has ended however often it is used: a stolen cookie does not last for ever. */
export const SESSION_MAX_MS = 7 * 24 * 3_600_000;
/** A session's last use is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000;

/** How long a sign-in from a network makes that network first in line for the user (password-work.ts). */
export const KNOWN_FOR_MS = 30 * 24 * 3_600_000;
/** Networks kept per user, the latest. */
const KNOWN_PER_USER = 8;

/** A user's failed sign-ins make at most one audit entry this often (see recordFailure). */
export const FAILED_ENTRY_EVERY_MS = 10_000;

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

export interface SignedIn {
  user: string;
  account: string;
}

/**
 * Users and sessions. A change's `by` says who acts, for the audit log (default: the programmatic
 * API's actor); a sign-in's and sign-out's actor is the user, `from` the client's address.
 */
export interface ConsoleService {
  /** Makes a user of `account`; without `password`, one is generated (and returned: shown once). */
  createUser(input: { account: string; name: string; password?: string }, by?: AuditSource): Promise<UserInfo & { password: string }>;
  listUsers(account?: string): Promise<UserInfo[]>;
  /** Throws BadRequestError when `confirm !== name`, NotFoundError when there is no such user. */
  deleteUser(name: string, confirm: string, by?: AuditSource): Promise<void>;
  /**
   * The new session's token, or undefined for an unknown user or a wrong password alike. A wrong
   * password of a known user is recorded (`console.sign_in_failed`) in a commit of its own, after
   * the answer: its time must not tell a known user from an unknown one. `from.network` (the
   * client's address, or its IPv6 /64) places the attempt in the password check's line
   * (password-work.ts): SignInBusyError (503) when that line is full.
   */
  signIn(name: string, password: string, from?: { address?: string | null; network?: string }): Promise<{ token: string; who: SignedIn } | undefined>;
  /** Who holds session `token`; undefined when it ended (signed out, idle, user deleted). */
  resolve(token: string): Promise<SignedIn | undefined>;
  signOut(token: string, from?: { address?: string | null }): Promise<void>;
  /** Waits for the audit entries of failed sign-ins still being written. */
  settled(): Promise<void>;
}

export interface ConsoleServiceOptions {
  now?: Clock;
  /** Who a change without an AuditSource acts as in the audit log. Default: the programmatic API's actor. */
  actor?: AuditActor;
  /** Told of a failed sign-in's entry that could not be written. */
  onError?: (message: string, error: unknown) => void;
  /** Where password hashes wait for their turn. Default: one of its own, one hash at a time. */
  passwordWork?: PasswordWork;
}

const sessionKey = (token: string) => createHash('sha256').update(token).digest('hex');

function infoOf(user: StoredUser): UserInfo {
  return { name: user.name, account: user.account, created_at: user.created_at };
}

export function createConsoleService(storage: SiloStorage, options: ConsoleServiceOptions = {}): ConsoleService {
  const now = options.now ?? systemClock;
  const programmatic: AuditSource = { actor: options.actor ?? PROGRAM_ACTOR, address: null };
  const passwords = options.passwordWork ?? new PasswordWork();
  const recording = new Set<Promise<unknown>>();
  const asUser = (user: string, address: string | null | undefined): AuditSource => ({ actor: { type: 'console', name: user }, address: address ?? null });

  /** Keeps `network` first among the networks `user` signed in from lately (its next sign-ins there go first). */
  async function remember(user: string, network: string, before: readonly KnownNetwork[], at: number): Promise<void> {
    const kept = before.filter((n) => n.network !== network && at - n.at < KNOWN_FOR_MS).slice(0, KNOWN_PER_USER - 1);
    // Not worth a failed sign-in: the next one from here is only not first in line.
    await storage.putSignedInFrom(user, [{ network, at }, ...kept]).catch((error: unknown) => options.onError?.('silo: a sign-in\'s network could not be remembered', error));
  }

  /** Each user's last failed-sign-in entry of this process, and the failures since left out. */
  const failedEntries = new BoundedMap<string, { at: number; leftOut: number }>(10_000);

  /**
   * A failed sign-in's entry, written after the answer (tracked until written): at most one per
   * user every FAILED_ENTRY_EVERY_MS, whose `subject` counts the failures left out since the last
   * (a flood of guesses had filled the log with a thousand entries in minutes).
   */
  function recordFailure(user: StoredUser, address: string | null | undefined): void {
    const at = now();
    const last = failedEntries.get(user.name);
    if (last && at - last.at < FAILED_ENTRY_EVERY_MS) {
      last.leftOut++;
      return;
    }
    failedEntries.set(user.name, { at, leftOut: 0 });
    const subject = last && last.leftOut > 0 ? `${last.leftOut} more failed since the previous entry` : undefined;
    const entry = { ...auditEntryOf('console.sign_in_failed', user.account, asUser(user.name, address), isoTime(at), undefined, subject), outcome: 'failure' as const };
    const write = storage.appendAudit(entry).catch((error: unknown) => options.onError?.('silo: a failed sign-in could not be recorded in the audit log', error));
    recording.add(write);
    void write.finally(() => recording.delete(write));
  }

  return {
    async createUser({ account, name, password }, by = programmatic) {
      const badName = userNameProblem(name);
      if (badName) throw new BadRequestError(badName);
      if (password !== undefined && (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)) {
        throw new BadRequestError(`A password is ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
      }
      if (!(await storage.getAccount(account))) throw new NotFoundError('Account not found');
      const chosen = password ?? generatePassword();
      const user: StoredUser = { name, account, hash: await passwords.operator(() => hashPassword(chosen)), created_at: isoTime(now()) };
      const entry = auditEntryOf('user.create', account, by, user.created_at, undefined, name);
      if (!(await storage.insertUser(user, entry))) throw new ConflictError(`A console user named "${name}" exists`);
      return { ...infoOf(user), password: chosen };
    },

    async listUsers(account) {
      const users = await storage.listUsers();
      return users
        .filter((u) => account === undefined || u.account === account)
        .map(infoOf)
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async deleteUser(name, confirm, by = programmatic) {
      if (confirm !== name) throw new BadRequestError('The confirmation does not match the user name');
      const entryOf = (user: StoredUser) => auditEntryOf('user.delete', user.account, by, isoTime(now()), undefined, name);
      if (!(await storage.removeUser(name, entryOf))) throw new NotFoundError(`No console user named "${name}"`);
    },

    async signIn(name, password, from) {
      const plausible = name.length <= 64 && password.length <= MAX_PASSWORD;
      // Read whether or not the user exists (the same reads for a name nobody has): the answer's
      // timing tells nothing, nor does the scrypt work below, the same for both.
      const [user, signedInFrom] = plausible ? await Promise.all([storage.getUser(name), storage.getSignedInFrom(name)]) : [undefined, []];
      const network = from?.network ?? from?.address ?? '';
      const asked = now();
      const known = user !== undefined && signedInFrom.some((n) => n.network === network && asked - n.at < KNOWN_FOR_MS);
      const matches = await passwords.signIn(known, network, () => verifyPassword(password.slice(0, MAX_PASSWORD), user?.hash));
      if (user && !matches) recordFailure(user, from?.address);
      if (!user || !matches) return undefined;
      await remember(user.name, network, signedInFrom, asked);
      const token = randomBytes(32).toString('base64url');
      const at = now();
      const session = { user: user.name, account: user.account, user_created_at: user.created_at, created_at: isoTime(at), seen_at: at };
      await storage.putSession(sessionKey(token), session, auditEntryOf('console.sign_in', user.account, asUser(user.name, from?.address), session.created_at));
      return { token, who: { user: user.name, account: user.account } };
    },

    async resolve(token) {
      if (token.length === 0 || token.length > 100) return undefined;
      const key = sessionKey(token);
      const [session, at] = [await storage.getSession(key), now()];
      if (!session) return undefined;
      if (at - session.seen_at >= SESSION_IDLE_MS || at - Date.parse(session.created_at) >= SESSION_MAX_MS) {
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

    async signOut(token, from) {
      if (token.length === 0 || token.length > 100) return;
      await storage.deleteSession(sessionKey(token), (session) => auditEntryOf('console.sign_out', session.account, asUser(session.user, from?.address), isoTime(now())));
    },

    async settled() {
      await Promise.all([...recording]);
    },
  };
}
