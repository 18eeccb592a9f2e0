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
 * Region store of region R:
 *   <p>:blob:<R>:<uuid>:<blob>  the exact JSON text of one version's file_data (immutable)
 *
 * Written by Silo before versions existed, read once and upgraded in place (legacy.ts):
 *   <p>:meta:<uuid>             SiloRecord JSON
 *   <p>:data:<R>:<uuid>         header line (SiloRecord JSON), "\n", the JSON text
 *
 * Names chosen by people (accounts) are URI-encoded so that no name can reach into another key.
 */
import type { Region } from '../service/types.js';

export interface StorageKeys {
  account(name: string): string;
  accounts(): string;
  key(hash: string): string;
  keys(account: string): string;
  head(uuid: string): string;
  version(uuid: string, version: number): string;
  index(account: string): string;
  lock(name: string): string;
  blob(region: Region, uuid: string, blob: string): string;
  /** Where every blob of `region` starts (for the orphan sweep). */
  blobPrefix(region: Region): string;
  legacyMeta(uuid: string): string;
  legacyData(region: Region, uuid: string): string;
}

export const DEFAULT_PREFIX = 'silo';

export function storageKeys(prefix: string = DEFAULT_PREFIX): StorageKeys {
  const enc = encodeURIComponent;
  return {
    account: (name) => `${prefix}:account:${enc(name)}`,
    accounts: () => `${prefix}:accounts`,
    key: (hash) => `${prefix}:key:${hash}`,
    keys: (account) => `${prefix}:keys:${enc(account)}`,
    head: (uuid) => `${prefix}:head:${uuid}`,
    version: (uuid, version) => `${prefix}:ver:${uuid}:${version}`,
    index: (account) => `${prefix}:index:${enc(account)}`,
    lock: (name) => `${prefix}:lock:${name}`,
    blob: (region, uuid, blob) => `${prefix}:blob:${region}:${uuid}:${blob}`,
    blobPrefix: (region) => `${prefix}:blob:${region}:`,
    legacyMeta: (uuid) => `${prefix}:meta:${uuid}`,
    legacyData: (region, uuid) => `${prefix}:data:${region}:${uuid}`,
  };
}
