/**
 * Accounts and their keys: creation, listing, revocation, and the check of a presented key.
 *
 * Key lookups are never cached: every authentication reads the store, so a revocation takes
 * effect on the next request of every instance sharing the storage (the contract allows 1 s).
 */
import { type Account, type AuditActor, auditEntryOf, type AuditSource, BadRequestError, type Clock, ConflictError, type CreatedKey, type CreateKeyInput, DEFAULT_MAX_KEYS, DEFAULT_PLAN_NAME, isoTime, KEY_HEADER, KEY_PREFIX, type KeyInfo, type KeyType, MANAGE_KEY_DURATIONS, type ManageKeyDuration, MAX_KEY_SILOS, NotFoundError, type PlanLimits, type Plans, type Principal, systemClock, UnauthorizedError, ValidationError, withDefaultPlan , DEFAULT_PLAN, planNamed, PROGRAM_ACTOR } from '../model/index.js';
import type { SiloStorage, StoredKey } from '../storage/index.js';
import { generateKeyValue, hashKeyValue, MAX_KEY_VALUE_LENGTH } from './key-values.js';
import { foreignSilos } from './foreign-silos.js';
import { cachedPlanNames } from './plan-names.js';
import { canonicalUuid } from './silo-ids.js';
import { type AccountService } from './types.js';

export interface AccountServiceOptions {
  /** Plans an account may be given; `default` is always there. */
  plans?: Plans;
  now?: Clock;
  /** Who a key change without an AuditSource acts as in the audit log. Default: the programmatic API's actor. */
  actor?: AuditActor;
}

const DAY_MS = 86_400_000;
const DURATION_DAYS: Record<Exclude<ManageKeyDuration, 'never'>, number> = { '7d': 7, '30d': 30, '90d': 90, '365d': 365 };
export const DEFAULT_MANAGE_KEY_DURATION: ManageKeyDuration = '30d';

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const KEY_NAME_MAX = 100;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

function checkAccountName(name: string): void {
  if (!ACCOUNT_NAME.test(name)) {
    throw new BadRequestError(
      'An account name is 1 to 64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
}

function checkKeyName(name: string): void {
  if (name.trim().length === 0 || name.length > KEY_NAME_MAX || CONTROL_CHARS.test(name)) {
    throw new BadRequestError(`A key name is 1 to ${KEY_NAME_MAX} characters, not blank, without control characters`);
  }
}

/** A scoped key's silos: canonical uuids, each once, 1 to MAX_KEY_SILOS of them. */
function scopeOf(silos: readonly string[]): string[] {
  const uuids = silos.map((s) => canonicalUuid(s.trim()));
  if (uuids.length === 0 || uuids.length > MAX_KEY_SILOS) {
    throw new BadRequestError(`A scoped access key names 1 to ${MAX_KEY_SILOS} silos by their file_uuid`);
  }
  // Which one, by its place: the value itself is not repeated (an answer never echoes arbitrary input).
  const bad = uuids.indexOf(undefined);
  if (bad >= 0) {
    throw new BadRequestError(`A scoped access key names silos by their file_uuid: silos.${bad} (counting from 0) is not one (36 characters such as 0b6f7a52-3c1e-4a8e-9d2f-1c2b3a4d5e6f)`);
  }
  return [...new Set(uuids as string[])];
}

function isDuration(value: string): value is ManageKeyDuration {
  return (MANAGE_KEY_DURATIONS as readonly string[]).includes(value);
}

/** What a key's record shows: everything but its hash. */
function publicInfo(key: StoredKey): KeyInfo {
  const info: KeyInfo = { type: key.type, name: key.name, account: key.account, created_at: key.created_at };
  if (key.type === 'manage') {
    info.duration = key.duration ?? DEFAULT_MANAGE_KEY_DURATION;
    info.expires_at = key.expires_at ?? null;
  } else if (key.duration !== undefined) {
    // An access key has an expiry only when one was chosen at create (by default it never expires).
    info.duration = key.duration;
    info.expires_at = key.expires_at ?? null;
  }
  if (key.silos) info.silos = [...key.silos];
  return info;
}

function isExpired(key: StoredKey, nowMs: number): boolean {
  if (key.expires_at === undefined || key.expires_at === null) return false;
  return nowMs >= Date.parse(key.expires_at);
}

export function createAccountService(storage: SiloStorage, options: AccountServiceOptions = {}): AccountService {
  const plans = withDefaultPlan<PlanLimits>(options.plans, DEFAULT_PLAN);
  const now = options.now ?? systemClock;
  const planOf = cachedPlanNames((name) => storage.getAccount(name));
  const programmatic: AuditSource = { actor: options.actor ?? PROGRAM_ACTOR, address: null };

  async function existingAccount(name: string): Promise<Account> {
    const account = await storage.getAccount(name);
    if (!account) throw new NotFoundError('Account not found');
    return account;
  }

  return {
    async createAccount(name, plan = DEFAULT_PLAN_NAME) {
      checkAccountName(name);
      if (!Object.hasOwn(plans, plan)) throw new BadRequestError(`Unknown plan "${plan}"`);
      const account: Account = { name, plan, created_at: isoTime(now()) };
      if (!(await storage.insertAccount(account))) throw new ConflictError(`An account named "${name}" exists`);
      return account;
    },

    getAccount(name) {
      return storage.getAccount(name);
    },

    planOf,

    async listAccounts() {
      const names = await storage.listAccountNames();
      const accounts = await Promise.all(names.map((name) => storage.getAccount(name)));
      return accounts.filter((a): a is Account => a !== undefined);
    },

    async createKey(input: CreateKeyInput, by: AuditSource = programmatic): Promise<CreatedKey> {
      const { account, type, name } = input;
      if (type !== 'manage' && type !== 'access') throw new BadRequestError('A key type is "manage" or "access"');
      checkKeyName(name);
      const owner = await existingAccount(account);
      const { maxKeys = DEFAULT_MAX_KEYS } = planNamed(plans, owner.plan);
      const full = () =>
        new ValidationError([
          { loc: ['body'], msg: `An account may have at most ${maxKeys} keys: revoke one first`, type: 'too_many_keys', ctx: { max: maxKeys } },
        ]);
      // Refused early when already full (no key value made); the insert checks again, atomically.
      if ((await storage.listKeys(account)).length >= maxKeys) throw full();
      const nowMs = now();
      const stored: StoredKey = { type, name, account, created_at: isoTime(nowMs), hash: '' };
      // A manage key expires after its duration (30 days unless chosen); an access key only when
      // given one (`never`, or none, keeps it valid until revoked).
      const duration = input.duration ?? (type === 'manage' ? DEFAULT_MANAGE_KEY_DURATION : undefined);
      if (duration !== undefined && !isDuration(duration)) {
        throw new BadRequestError(`A key duration is one of ${MANAGE_KEY_DURATIONS.join(', ')}`);
      }
      if (duration !== undefined && (type === 'manage' || duration !== 'never')) {
        stored.duration = duration;
        stored.expires_at = duration === 'never' ? null : isoTime(nowMs + DURATION_DAYS[duration] * DAY_MS);
      }
      if (input.silos !== undefined) {
        if (type !== 'access') throw new BadRequestError('Only access keys are scoped to silos');
        stored.silos = scopeOf(input.silos);
        // Of its account only, as a webhook's filter: 422 silo_not_found for any other, or none.
        const foreign = await foreignSilos(storage, account, input.silos.map((s) => s.trim()));
        if (foreign.length > 0) throw new ValidationError(foreign);
      }
      const value = generateKeyValue(type);
      stored.hash = hashKeyValue(value);
      const entry = auditEntryOf('key.create', account, by, stored.created_at, undefined, `${type}:${name}`);
      const inserted = await storage.insertKey(stored, entry, maxKeys);
      if (inserted === 'full') throw full();
      if (inserted === 'taken') {
        throw new ConflictError(`The account already has ${type === 'access' ? 'an access' : 'a manage'} key named "${name}"`);
      }
      return { ...publicInfo(stored), key: value };
    },

    async listKeys(account) {
      await existingAccount(account);
      const keys = await storage.listKeys(account);
      return keys
        .map(publicInfo)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
    },

    async revokeKey({ account, type, name, confirm }, by: AuditSource = programmatic) {
      if (confirm !== name) throw new BadRequestError('The confirmation does not match the key name');
      const entry = auditEntryOf('key.revoke', account, by, isoTime(now()), undefined, `${type}:${name}`);
      const removed = await storage.removeKey(account, type, name, entry);
      if (!removed) throw new NotFoundError(`No ${type} key named "${name}" in account "${account}"`);
    },

    async deleteAccount(name, confirm) {
      if (confirm !== name) throw new BadRequestError('The confirmation does not match the account name');
      await existingAccount(name);
      const [keys, silos, hooks, users] = await Promise.all([
        storage.listKeys(name),
        storage.index.page(name, 0, 1),
        storage.listWebhooks(name),
        storage.listUsers(),
      ]);
      const left = [
        keys.length > 0 ? `${keys.length} key(s)` : '',
        silos.total > 0 ? `${silos.total} silo(s)` : '',
        hooks.length > 0 ? `${hooks.length} webhook(s)` : '',
        users.some((u) => u.account === name) ? 'console users' : '',
      ].filter(Boolean);
      if (left.length > 0) throw new ConflictError(`Account "${name}" still has ${left.join(', ')}: remove them first`);
      await storage.unhookIfIdle(name);
      // Its audit log goes with it: kept, it would be the log of the next account of that name.
      await storage.pruneAudit(name, Number.POSITIVE_INFINITY);
      if (!(await storage.removeAccount(name))) throw new NotFoundError('Account not found');
    },

    async authenticate(value: string | undefined, type: KeyType): Promise<Principal> {
      const header = KEY_HEADER[type];
      if (value === undefined || value === '') throw new UnauthorizedError(`${header} header missing`);
      // One message for every other failure: it names the header, never the value, and does not
      // tell an unknown key from a revoked, expired or wrong-type one (beyond what its prefix says).
      // (Built only when thrown: an error's stack trace is costly, and most keys are valid.)
      const invalid = () => new UnauthorizedError(`Invalid ${type} key in ${header}: unknown, revoked or expired`);
      const other: KeyType = type === 'manage' ? 'access' : 'manage';
      // The commonest mix-up, told by the prefix the caller sent (whether that key is valid is not looked up).
      if (value.startsWith(KEY_PREFIX[other])) {
        throw new UnauthorizedError(`${header} holds ${other === 'access' ? 'an access' : 'a manage'} key (${KEY_PREFIX[other]}…): it goes in ${KEY_HEADER[other]}; ${header} takes ${type === 'access' ? 'an access' : 'a manage'} key (${KEY_PREFIX[type]}…)`);
      }
      if (value.length > MAX_KEY_VALUE_LENGTH || !value.startsWith(KEY_PREFIX[type])) throw invalid();
      const hash = hashKeyValue(value);
      const key = await storage.getKeyByHash(hash);
      // The record was found by this hash; comparing it again guards against a store that answers
      // another key's record. (Not in constant time: the hash is of the caller's own value, and
      // timing its comparison could at most tell them a stored hash, which no one can invert.)
      if (!key || key.type !== type || key.hash !== hash || isExpired(key, now())) throw invalid();
      return { account: key.account, keyType: key.type, keyName: key.name, ...(key.silos ? { silos: key.silos } : {}) };
    },
  };
}
