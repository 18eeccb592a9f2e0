/**
 * What the storage facade stores and the capabilities it offers the service layer.
 * The service layer composes these into the contract's rules; nothing here knows those rules.
 */
import type { Account, AuditEntry, ConsoleSession, DeliveryAttempt, KeyInfo, KnownNetwork, NewAuditEntry, PendingDelivery, Region, SiloRecord, StoredUser, StoredWebhook, VersionInfo } from '../model/index.js';

/** A key as stored: its public facts plus the SHA-256 (hex) of its value. Never the value. */
export interface StoredKey extends KeyInfo {
  hash: string;
}

/** What `insertKey` did. */
export type KeyInsertion = 'inserted' | 'taken' | 'full';

/**
 * The record that makes a silo what it is: its current version's metadata, and where that
 * version's data lies. Writing it is a write's commit point; readers go through it only.
 */
export interface SiloHead extends SiloRecord {
  /** The blob (in the head's region) holding this version's file_data. */
  blob: string;
  /**
   * Blobs of elements appended to an array silo since `blob` was written, in order: the data is
   * `blob`'s array with each tail's elements added at its end (see blob-text.ts). Absent: none.
   */
  tail?: string[];
  /** The oldest version still in history; every version from it to `version` is kept. */
  oldest: number;
}

/** One version in history (the current one included). */
export interface VersionEntry extends VersionInfo {
  /** Opaque tag of this version (the ETag it had). */
  etag: string;
  blob: string;
  tail?: string[];
}

/** Which silo: its uuid and the account that owns it (which places its keys on some stores). */
export type SiloRef = Pick<SiloHead, 'account' | 'file_uuid'>;

/** One page of an account's listing index: silo uuids newest first, and the true total. */
export interface IndexPage {
  total: number;
  uuids: string[];
}

/** Reads the per-account listing index (written only within commits). */
export interface ListIndex {
  /** `offset` entries skipped, at most `limit` returned. */
  page(account: string, offset: number, limit: number): Promise<IndexPage>;
  /** How many entries the index holds (one count, no member read). */
  count(account: string): Promise<number>;
}

/** Mutual exclusion by name, for read-modify-write sequences. */
export interface Locks {
  /**
   * Runs `fn` while holding the lock `name` within this process (callers of one name run one
   * after another). Where the lock is shared with other processes, `fn` starts without the
   * shared part: its commits carry `lock.fence()`, so that they fail while another process holds
   * the lock, and after a failed commit it calls `lock.contended()`, which waits for the shared
   * lock and holds it from then on.
   */
  withLock<T>(name: string, fn: (lock: HeldLock) => Promise<T>): Promise<T>;
}

/** What a caller of Locks.withLock holds. */
export interface HeldLock {
  /** Expectations for a commit: that nobody else holds the shared lock ([] once this caller holds it). */
  fence(): [key: string, value: undefined][];
  /** Takes the shared lock (waiting for its holder), for the attempts after a failed commit. */
  contended(): Promise<void>;
}

/** How far the atomicity of this storage reaches. */
export type Coordination =
  /** Redis native commands: atomic across every process sharing the Redis. */
  | 'redis'
  /** The store adapter's own transactions: atomic across every process sharing the store. */
  | 'store'
  /** In-process: atomic within this storage object only (an in-memory Map). */
  | 'in-process';

/**
 * Several keys changed as one: applied only if every `expect`ed key holds exactly the given text
 * (undefined: absent), all or nothing, never seen half-done by any reader, and durable once the
 * call resolves true. Keys are Silo's (the facade maps them to what the backend sees).
 */
export interface AtomicBatch {
  expect: [key: string, value: string | undefined][];
  set: [key: string, value: string][];
  delete: string[];
  /** Sorted index entries to add (or re-score) and remove: the listing index. */
  indexAdd: [indexKey: string, score: number, member: string][];
  indexRemove: [indexKey: string, member: string][];
  /**
   * Writes to other stores that this one's transaction reaches (see AtomicAdapter.joins): a
   * region's blobs kept in another table of the same database, for example.
   */
  joined?: JoinedWrites[];
  /**
   * Audit entries to insert into the store's audit log (AuditLogAdapter only: Silo sends none to
   * other stores). One whose log and id exist already fails the batch with an error (nothing
   * written): ids are unique, so only an import can meet one.
   */
  auditAdd?: AuditRow[];
}

/**
 * One audit entry as a store's audit log keeps it (AuditLogAdapter): a row, with the columns its
 * listings filter and order by, and the entry's text.
 */
export interface AuditRow {
  /** The account's log: Silo's key of it (storage prefix and account), mapped as every key of a batch. */
  log: string;
  /** The entry's time in epoch ms (what its id starts with). */
  time: number;
  /** Unique within the log; entries of one millisecond list in ascending order of id. */
  id: string;
  /** The silo the entry is on, if any: what the `silo` filter matches. */
  silo?: string;
  /** The actor's name: what the `actor` filter matches. */
  actor: string;
  /** The entry's JSON text, read back exactly. */
  entry: string;
}

/** Which entries of one log a listing or count matches (every one that is given must hold). */
export interface AuditLogFilter {
  /** At or after this time (epoch ms). */
  since?: number;
  silo?: string;
  actor?: string;
}

/**
 * An audit log kept by the store itself (an optional capability, see AuditLogAdapter): rows
 * written inside AtomicBatches (`auditAdd`), read newest first, that is in descending order of
 * time and, within one millisecond, ascending order of id. Logs are as the adapter receives keys.
 */
export interface AuditLog {
  /** How many entries of `log` match `filter`. */
  count(log: string, filter: AuditLogFilter): Promise<number> | number;
  /** The texts of the matching entries, newest first, `offset` skipped, at most `limit`. */
  list(log: string, filter: AuditLogFilter, offset: number, limit: number): Promise<string[]> | string[];
  /**
   * Removes the oldest entries of `log` older than `before` (epoch ms, a safe integer), at most
   * `max`, in one commit; how many went.
   */
  prune(log: string, before: number, max: number): Promise<number> | number;
}

/**
 * An optional capability of a Keyv store adapter: an audit log of its own, one row per entry
 * (silo-server's SqliteStore and PostgresStore). An adapter that offers it must also be an
 * AtomicAdapter whose `atomic` applies `auditAdd` in the batch's transaction: Silo then writes
 * every entry that way, and reads and prunes through `auditLog`.
 */
export interface AuditLogAdapter {
  readonly auditLog: AuditLog;
}

/** Writes of one batch to another store: `store` is its adapter, keys as that adapter receives them. */
export interface JoinedWrites {
  store: unknown;
  set: [key: string, value: string][];
  delete: string[];
}

/**
 * The capability a Keyv store adapter needs for Silo (besides an in-memory Map and @keyv/redis,
 * which Silo drives itself): apply an AtomicBatch in one transaction, atomic across every process
 * sharing the store. Keys are as the adapter receives them from Keyv; values are the strings Silo
 * stores. silo-server's SqliteStore implements it.
 */
export interface AtomicAdapter {
  atomic(batch: AtomicBatch): Promise<boolean> | boolean;
  /** Whether this adapter's batches can carry writes to `other` (another adapter) in `joined`. */
  joins?(other: unknown): boolean;
}

/** A new silo: what its first version's head says, before storage adds blob and history. */
export type NewSilo = Omit<SiloHead, 'blob' | 'oldest' | 'version' | 'etag'>;

/** The next version of a silo: its fields, and its data (unchanged when `text` is undefined). */
export interface NextVersion {
  file_name: string;
  region_name: Region;
  is_public: boolean;
  updated_at: string;
  /**
   * New file_data: its exact text and UTF-8 size. Undefined keeps the current data. `appended`
   * says that the text is the current array with these elements (their texts, comma-separated)
   * added at its end: storage may then store only them, and `text` may be a loader of the whole
   * text, called only when storage does need it (a move, or a tail to fold into one blob).
   */
  data?: { text: string; size: number; appended?: string } | { text: () => Promise<string>; size: number; appended: string };
}

/** A silo as an import gives it (see SiloStorage.importSilo): its head's facts, without where its data lies. */
export type ImportedSilo = Omit<SiloHead, 'blob' | 'tail'>;

/** One kept version of an imported silo: its history entry without blobs, and its data's exact text. */
export interface ImportedVersion {
  entry: Omit<VersionEntry, 'blob' | 'tail'>;
  text: string;
}

export interface SweepReport {
  /** Blobs removed because no committed version names them. */
  removed: number;
  /** Blobs looked at. */
  scanned: number;
}

/** The webhooks, their outbox and delivery attempts, as storage keeps them (webhook-records.ts). */
export interface WebhookRecords {
  listWebhooks(account: string): Promise<StoredWebhook[]>;
  /** Adds `hook` unless its account has `max` already; false then. `audit` is committed with it. */
  insertWebhook(hook: StoredWebhook, max: number, audit?: NewAuditEntry): Promise<boolean>;
  /** Applies `change` to the account's webhook `id`; undefined when there is none. */
  updateWebhook(account: string, id: string, change: (hook: StoredWebhook) => StoredWebhook): Promise<StoredWebhook | undefined>;
  /** Removes the webhook, its pending deliveries stay until the worker meets them (and drops them). `audit` is committed with it. */
  removeWebhook(account: string, id: string, audit?: NewAuditEntry): Promise<StoredWebhook | undefined>;
  /** Accounts with webhooks, or pending deliveries of removed ones (the worker's round). */
  hookedAccounts(): Promise<string[]>;
  /** Takes the account off the worker's round if it has no webhook (its outbox is empty: the caller checked). */
  unhookIfIdle(account: string): Promise<void>;
  /** The account's first `limit` pending deliveries by due time, with the text each was read as. */
  pendingDeliveries(account: string, limit: number): Promise<{ delivery: PendingDelivery; text: string }[]>;
  /**
   * Replaces a pending delivery read as `text` with `next` (undefined: removes it), only if it is
   * still `text`: false when another instance changed it first.
   */
  replaceDelivery(account: string, id: string, text: string, next: PendingDelivery | undefined): Promise<boolean>;
  /** Appends an attempt to the webhook's list (the newest ATTEMPTS_KEPT are kept). */
  recordAttempt(account: string, webhook: string, attempt: DeliveryAttempt): Promise<void>;
  listAttempts(account: string, webhook: string): Promise<DeliveryAttempt[]>;
  /** How many deliveries the account's outbox holds (one count). */
  outboxSize(account: string): Promise<number>;
}

/** Console users and sessions, as storage keeps them (console-records.ts). */
export interface ConsoleRecords {
  getUser(name: string): Promise<StoredUser | undefined>;
  /** Stores the user unless one of that name exists; false when it does. `audit` is committed with it. */
  insertUser(user: StoredUser, audit?: NewAuditEntry): Promise<boolean>;
  /** Removes the user; `audit` (made from the user removed) is committed with it. */
  removeUser(name: string, audit?: (user: StoredUser) => NewAuditEntry): Promise<StoredUser | undefined>;
  listUsers(): Promise<StoredUser[]>;
  /** The networks user `name` signed in from lately ([] when none, or no such user). */
  getSignedInFrom(name: string): Promise<KnownNetwork[]>;
  putSignedInFrom(name: string, networks: readonly KnownNetwork[]): Promise<void>;
  getSession(hash: string): Promise<ConsoleSession | undefined>;
  /** Stores a session; `audit` (a sign-in) is committed with it. */
  putSession(hash: string, session: ConsoleSession, audit?: NewAuditEntry): Promise<void>;
  /** Removes a session; `audit` (a sign-out, made from the session removed) is committed with it, only when there was one. */
  deleteSession(hash: string, audit?: (session: ConsoleSession) => NewAuditEntry): Promise<void>;
}

/** What a listing of an account's audit log asks storage for. */
export interface AuditListing {
  offset: number;
  limit: number;
  /** Entries at or after this time (epoch ms). */
  since?: number;
  silo?: string;
  actor?: string;
}

/** The audit log, as storage keeps it (audit-records.ts); the entries of actions are written by their commits. */
export interface AuditRecords {
  /** One entry in a commit of its own (a failed sign-in, an import: actions that commit nothing else). */
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  /** The account's entries, newest first, and how many match. */
  listAudit(account: string, query: AuditListing): Promise<{ total: number; entries: AuditEntry[] }>;
  /** Removes up to `max` of the account's entries older than `before` (epoch ms); how many went. */
  pruneAudit(account: string, before: number, max?: number): Promise<number>;
  /** Writes entries exactly as given (ids, times): an import. Throws when one exists. */
  importAudit(entries: readonly AuditEntry[]): Promise<void>;
}

export interface SiloStorage extends WebhookRecords, ConsoleRecords, AuditRecords {
  readonly coordination: Coordination;
  readonly locks: Locks;
  readonly index: ListIndex;

  getAccount(name: string): Promise<Account | undefined>;
  /** Stores the account unless one of that name exists; false when it does. Atomic. */
  insertAccount(account: Account): Promise<boolean>;
  listAccountNames(): Promise<string[]>;
  /**
   * Removes the account record and its name from the list; false when there is none. Its keys and
   * silos are the caller's to remove first (an import undoing what it wrote). Atomic.
   */
  removeAccount(name: string): Promise<boolean>;
  /** Whether the main store holds no record of Silo at all: no account, key or silo (locks aside). */
  isEmpty(): Promise<boolean>;

  /** The key stored under `hash`: a shared, frozen record (read on every keyed request). */
  getKeyByHash(hash: string): Promise<Readonly<StoredKey> | undefined>;
  listKeys(account: string): Promise<StoredKey[]>;
  /**
   * Stores the key unless its account has a key of that type and name (`taken`) or already
   * `maxKeys` keys (`full`), both judged on the list it commits against: two inserts racing never
   * pass either. Atomic, with `audit`.
   */
  insertKey(key: StoredKey, audit?: NewAuditEntry, maxKeys?: number): Promise<KeyInsertion>;
  /** Removes the key of that account, type and name and returns it; undefined when none. Atomic, with `audit`. */
  removeKey(account: string, type: KeyInfo['type'], name: string, audit?: NewAuditEntry): Promise<StoredKey | undefined>;

  /**
   * The committed head of a silo (what every read goes through). With `account`, only a silo of
   * that account is found (where storage places silos by account, no lookup of the owner first).
   */
  getHead(uuid: string, account?: string): Promise<SiloHead | undefined>;
  /** Heads of many silos of `account` in one go (listing); undefined where a silo has none. */
  getHeads(account: string, uuids: string[]): Promise<(SiloHead | undefined)[]>;
  /** History entries of a silo (undefined where pruned or never written). */
  getVersions(silo: SiloRef, versions: number[]): Promise<(VersionEntry | undefined)[]>;
  /** The data of one version (a history entry) of a silo in its region, or undefined when its blobs are gone. */
  getVersionData(silo: SiloRef & Pick<SiloHead, 'region_name'>, entry: Pick<VersionEntry, 'blob' | 'tail' | 'size'>): Promise<string | undefined>;
  /** The name of the lock (in `locks`) that serialises the writes of one silo. */
  siloLock(account: string, uuid: string): string;
  /**
   * The data of `head`'s version, also when a move or a prune since the head was read took its
   * blob away (then from the silo's new region, or the newest version's, with that head).
   * Undefined when the silo is gone.
   */
  readData(head: SiloHead): Promise<{ head: SiloHead; text: string } | undefined>;

  /** Writes version 1 of a new silo and lists it (and records `outbox`'s webhook deliveries and the `audit` entry), as one commit. */
  createSilo(silo: NewSilo, text: string, outbox?: readonly PendingDelivery[], audit?: NewAuditEntry): Promise<SiloHead>;
  /**
   * Commits the version after `current`, keeping `keep` versions (the new one included) and
   * moving the whole history when the region changes. Undefined when `current` was no longer
   * the silo's head (a concurrent writer won): nothing was committed.
   */
  writeVersion(
    current: SiloHead,
    next: NextVersion,
    keep: number,
    fence?: HeldLock['fence'],
    outbox?: readonly PendingDelivery[],
    audit?: NewAuditEntry,
  ): Promise<SiloHead | undefined>;
  /**
   * Writes a silo with its kept history exactly as given (uuid, versions `oldest` to `version`,
   * etags, times) and lists it, as one commit, as createSilo does. `versions` are in order, the
   * last one the head's. Throws when a silo of that uuid exists (nothing is written then).
   */
  importSilo(silo: ImportedSilo, versions: ImportedVersion[]): Promise<SiloHead>;
  /** Removes the silo, its history and its listing entry as one commit; false as writeVersion. */
  deleteSilo(current: SiloHead, fence?: HeldLock['fence'], outbox?: readonly PendingDelivery[], audit?: NewAuditEntry): Promise<boolean>;

  /** Removes blobs that no committed version names (left by a crash), older than `graceMs`. */
  sweep(graceMs?: number): Promise<SweepReport>;

  /** Disconnects every distinct Keyv given to the storage. */
  close(): Promise<void>;
}

/**
 * An optional capability of a Keyv store adapter for locks that span processes: an atomic
 * compare-and-swap on one key (silo-server's SqliteStore has it).
 */
export interface CompareAndSwapAdapter {
  /**
   * Sets `key` to `next` (deletes it when `next` is undefined) if and only if its current value is
   * `expected` (undefined: the key is absent). True when it did, in one atomic step.
   */
  compareAndSwap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> | boolean;
}

/**
 * Sorted sets kept by the store itself (an optional capability, see `SortedIndexAdapter`): each
 * `indexKey` holds distinct members, each with an integer score, read in ascending order of
 * (score, member) as Redis's ZRANGE reads them. Keys are as the adapter receives them from Keyv.
 * Writes happen inside AtomicBatches only.
 */
export interface SortedIndex {
  /** How many members `indexKey` holds; cost independent of that number. */
  count(indexKey: string): Promise<number> | number;
  /** Members in ascending (score, member) order, `offset` skipped, at most `limit`. */
  range(indexKey: string, offset: number, limit: number): Promise<string[]> | string[];
}

/** An optional capability of a Keyv store adapter: a native sorted index read by the listing. */
export interface SortedIndexAdapter {
  readonly sortedIndex: SortedIndex;
}
