/**
 * The storage key layout, in one place. Every key starts with the storage's own prefix (default
 * `silo`), so one Keyv (or one Redis database) may hold Silo beside other data, and several Keyv
 * instances may share one adapter: Keyv 5 rewrites a shared adapter's namespace, so Silo never
 * relies on namespaces to keep its records apart.
 *
 * Main store:
 *   <p>:account:<name>          Account JSON
 *   <p>:accounts                JSON array of account names (for listing accounts)
 *   <p>:key:<sha256 hex>        StoredKey JSON (lookup by the hash of a presented key value)
 *   <p>:keys:<account>          JSON array of the account's StoredKeys (listing, name uniqueness)
 *   <p>:head:<uuid>             SiloHead JSON: the silo's current version, its commit point
 *   <p>:ver:<uuid>:<version>    VersionEntry JSON, one per version kept in history
 *   <p>:index:<account>         listing index: a sorted index (Redis sorted set, SQLite table, in-process for a Map)
 *   <p>:lock:<name>             a lock (Redis or compare-and-swap stores only)
 *   <p>:webhooks:<account>      JSON array of the account's webhooks (with their signing secrets)
 *   <p>:hooked                  JSON array of the accounts that have webhooks (for the delivery worker)
 *   <p>:outbox:<account>        sorted index of the account's pending deliveries, by when each is due
 *   <p>:delivery:<id>           one pending delivery (written in the commit of the write it reports)
 *   <p>:deliveries:<account>:<webhook>  JSON array of a webhook's recent delivery attempts
 *   <p>:user:<name>             a console user (StoredUser JSON: the password's scrypt hash)
 *   <p>:users                   JSON array of console user names
 *   <p>:session:<sha256 hex>    a console session, by the hash of its token
 *   <p>:signed-in-from:<name>   JSON array of the networks a console user signed in from lately
 *   <p>:audit:<account>         sorted index of the account's audit entries, newest first (audit-records.ts)
 *   <p>:audit-silo:<account>:<uuid>    ... of one silo's entries
 *   <p>:audit-actor:<account>:<actor>  ... of one actor name's entries
 *   <p>:audit-entry:<account>:<id>     one audit entry (written in the commit of the action it records)
 *   (On a store with an audit log of its own, SQLite's and PostgreSQL's, an entry is a row of that
 *   log instead, and <p>:audit:<account> names the account's log there: audit-log.ts.)
 * Region store of region R:
 *   <p>:blob:<R>:<uuid>:<blob>  the exact JSON text of one version's file_data (immutable)
 *
 * On a Redis Cluster (`clustered`), a multi-key commit must keep its keys in one hash slot, so the
 * keys carry hash tags: the directory (accounts and keys, committed together) shares the tag `{d}`,
 * and everything of one account's silos (heads, history, listing index, write locks, blobs) shares
 * the account's tag `{a:<account>}`, placed right after the prefix:
 *   <p>:{d}:account:<name>, <p>:{d}:accounts, <p>:{d}:key:<hash>, <p>:{d}:keys:<account>,
 *   <p>:{d}:webhooks:<account>, <p>:{d}:hooked, <p>:{d}:user:<name>, <p>:{d}:users,
 *   <p>:{d}:session:<hash> (a sign-in commits its session with its audit entry)
 *   <p>:{a:<account>}:head:<uuid>, ...:ver:<uuid>:<v>, ...:index, ...:blob:<R>:<uuid>:<blob>,
 *   ...:outbox, ...:delivery:<id>, ...:deliveries:<webhook>
 * The audit log has two parts there, one per slot, each with its own indexes and entries: the
 * entries of silo writes in the account's slot (...:audit, ...:audit-silo:<uuid>,
 * ...:audit-actor:<actor>, ...:audit-entry:<id>), those of keys, webhooks, users and sign-ins in the
 * directory's (<p>:{d}:audit:<account>, ...); a listing merges the two. Elsewhere both are one.
 *   <p>:lock:{a:<account>}:<uuid>  a silo's write lock (in the account's slot, for the commit's fence)
 *   <p>:owner:<uuid>            the account that owns a silo (for reads by uuid alone)
 * A cluster spreads accounts over its nodes; one account's silos live on one node.
 *
 * Names chosen by people (accounts) are URI-encoded so that no name can reach into another key
 * (nor hold a brace, which would change a key's hash slot).
 */
import type { Region } from '../model/index.js';

/** The keys of one silo. */
export interface SiloKeys {
  /** Its head: the commit point of every write. */
  readonly head: string;
  /** Its history entry of `version`. */
  version(version: number): string;
  /** One of its blobs in `region`'s store. */
  blob(region: Region, blob: string): string;
}

export interface StorageKeys {
  /** Whether keys carry Redis Cluster hash tags (see above). */
  readonly clustered: boolean;
  account(name: string): string;
  accounts(): string;
  key(hash: string): string;
  keys(account: string): string;
  /** The keys of silo `uuid` of `account` (the account only places them on a cluster). */
  silo(account: string, uuid: string): SiloKeys;
  /** The name of the lock that serialises writes to one silo (for Locks.withLock). */
  siloLock(account: string, uuid: string): string;
  /** The record naming the account that owns silo `uuid` (kept on a cluster only). */
  owner(uuid: string): string;
  index(account: string): string;
  lock(name: string): string;
  webhooks(account: string): string;
  hooked(): string;
  outbox(account: string): string;
  delivery(account: string, id: string): string;
  deliveries(account: string, webhook: string): string;
  user(name: string): string;
  /** The networks a console user signed in from lately (password-work.ts: they go first). */
  signedInFrom(name: string): string;
  users(): string;
  session(hash: string): string;
  /** How to find every blob of `region` (for the orphan sweep). */
  blobs(region: Region): BlobKeys;
  /** The audit log of `account` (see above). */
  audit(account: string): AuditKeys;
}

/** One part of an account's audit log: its index, an index per actor name, its entries. */
export interface AuditShard {
  readonly index: string;
  actor(name: string): string;
  entry(id: string): string;
}

/** An account's audit log: the part silo writes commit with, the part the directory's records do, one index per silo. */
export interface AuditKeys {
  readonly silos: AuditShard;
  readonly directory: AuditShard;
  /** The index of one silo's entries (in the silos' part). */
  silo(uuid: string): string;
}

/**
 * The blob keys of one region: every key that starts with `prefix` and, where `then` is given,
 * holds `then` further on; `parse` reads a silo and blob from such a key (undefined: not a blob).
 */
export interface BlobKeys {
  prefix: string;
  then?: string;
  parse(key: string): { account: string; uuid: string; blob: string } | undefined;
}

export const DEFAULT_PREFIX = 'silo';

/** `uuid:blob` → its two parts. */
function uuidAndBlob(rest: string): { uuid: string; blob: string } | undefined {
  const colon = rest.indexOf(':');
  return colon < 0 ? undefined : { uuid: rest.slice(0, colon), blob: rest.slice(colon + 1) };
}

export function storageKeys(prefix: string = DEFAULT_PREFIX, clustered = false): StorageKeys {
  const enc = encodeURIComponent;
  const prefix_ = `${prefix}:`;
  /** Where a record of the directory starts: `<p>:` or `<p>:{d}:`. */
  const dir = clustered ? `${prefix}:{d}:` : `${prefix}:`;
  const tag = (account: string) => `{a:${enc(account)}}`;
  /** Where a record of `account`'s silos starts: `<p>:` or `<p>:{a:<account>}:`. */
  const of = (account: string) => (clustered ? `${prefix}:${tag(account)}:` : `${prefix}:`);
  return {
    clustered,
    account: (name) => `${dir}account:${enc(name)}`,
    accounts: () => `${dir}accounts`,
    key: (hash) => `${dir}key:${hash}`,
    keys: (account) => `${dir}keys:${enc(account)}`,
    silo(account, uuid) {
      const at = of(account);
      return {
        head: `${at}head:${uuid}`,
        version: (version) => `${at}ver:${uuid}:${version}`,
        blob: (region, blob) => `${at}blob:${region}:${uuid}:${blob}`,
      };
    },
    siloLock: (account, uuid) => (clustered ? `${tag(account)}:${uuid}` : `silo:${uuid}`),
    owner: (uuid) => `${prefix}:owner:${uuid}`,
    index: (account) => (clustered ? `${of(account)}index` : `${prefix}:index:${enc(account)}`),
    lock: (name) => `${prefix}:lock:${name}`,
    webhooks: (account) => `${dir}webhooks:${enc(account)}`,
    hooked: () => `${dir}hooked`,
    outbox: (account) => (clustered ? `${of(account)}outbox` : `${prefix}:outbox:${enc(account)}`),
    delivery: (account, id) => `${of(account)}delivery:${id}`,
    deliveries: (account, webhook) => (clustered ? `${of(account)}deliveries:${webhook}` : `${prefix}:deliveries:${enc(account)}:${webhook}`),
    user: (name) => `${dir}user:${enc(name)}`,
    signedInFrom: (name) => `${dir}signed-in-from:${enc(name)}`,
    users: () => `${dir}users`,
    session: (hash) => `${dir}session:${hash}`,
    audit(account) {
      const a = enc(account);
      const shard = (at: string, tail: string): AuditShard => ({
        index: `${at}audit${tail}`,
        actor: (name) => `${at}audit-actor${tail}:${enc(name)}`,
        entry: (id) => `${at}audit-entry${tail}:${id}`,
      });
      if (!clustered) {
        const one = shard(prefix_, `:${a}`);
        return { silos: one, directory: one, silo: (uuid) => `${prefix_}audit-silo:${a}:${uuid}` };
      }
      return { silos: shard(of(account), ''), directory: shard(dir, `:${a}`), silo: (uuid) => `${of(account)}audit-silo:${uuid}` };
    },
    blobs(region) {
      if (!clustered) {
        // The account does not place keys here: any name reads the silo.
        const start = `${prefix_}blob:${region}:`;
        return {
          prefix: start,
          parse(key) {
            const rest = key.startsWith(start) ? uuidAndBlob(key.slice(start.length)) : undefined;
            return rest && { account: '', ...rest };
          },
        };
      }
      const start = `${prefix_}{a:`;
      const then = `}:blob:${region}:`;
      return {
        prefix: start,
        then,
        parse(key) {
          const end = key.indexOf(then, start.length);
          const rest = end < 0 || !key.startsWith(start) ? undefined : uuidAndBlob(key.slice(end + then.length));
          return rest && { account: decodeURIComponent(key.slice(start.length, end)), ...rest };
        },
      };
    },
  };
}
