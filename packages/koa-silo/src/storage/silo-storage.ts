/**
 * `createStorage`: Silo's typed facade over Keyv. One main store (accounts, keys, silo heads and
 * history, listing index) and one data store per region; any of them may be the same Keyv, since
 * every key carries Silo's own prefix (see storage-keys.ts).
 *
 * Every change that spans several records commits as one atomic batch on the main store
 * (atomic.ts); silo data lives in immutable blobs in the region stores, written before the
 * commit that names them and removed after the commit that stops naming them (versions.ts).
 */
import type { Keyv } from 'keyv';
import { REGIONS, type Account, type KeyType, type NewAuditEntry, type Region } from '../model/index.js';
import { atomicFor } from './atomic.js';
import { createAuditLogRecords, hasAuditLog } from './audit-log.js';
import { createAuditRecords, type AuditStorage } from './audit-records.js';
import { CasLeases, hasCompareAndSwap } from './cas-leases.js';
import { KeyedMutex } from './keyed-mutex.js';
import { storageIsEmpty } from './emptiness.js';
import { createImportSilo } from './import-silo.js';
import { configureKeyv, KeyvTextStore, type StorageErrorListener } from './keyv-text-store.js';
import { DEFAULT_LOCK_TIMING, LeaseLocks, type LockTiming } from './lease-locks.js';
import { RedisLeases } from './redis-leases.js';
import { RedisListIndex } from './redis-list-index.js';
import { RedisNative } from './redis-native.js';
import { SiloOwners } from './silo-owners.js';
import { sortedListIndexFor } from './sorted-list-index.js';
import { DEFAULT_STORAGE_TIMEOUT_MS, type StorageObserver } from './storage-guard.js';
import { storageKeys } from './storage-keys.js';
import type { KeyInsertion, Locks, SiloStorage, StoredKey } from './types.js';
import { createVersions } from './silo-records.js';
import { createWebhookRecords } from './webhook-records.js';
import { readModifyWriteOf, type Decision } from './read-modify-write.js';
import { createConsoleRecords } from './console-records.js';
import { ParsedRecords } from './parsed-records.js';

export interface StorageOptions {
  /** Accounts, keys, silo heads, history and the listing index; also every region without its own store. */
  main: Keyv;
  /** A data store per region; a region left out keeps its data in `main`. */
  regions?: Partial<Record<Region, Keyv>>;
  /** The first segment of every key. Default `silo`. */
  prefix?: string;
  /** Time limit of one storage call in ms (0: none). Default 5000. */
  timeoutMs?: number;
  /** Lock lifetime and waiting limit (Redis and compare-and-swap stores). */
  lockTiming?: Partial<LockTiming>;
  /** Receives errors that Keyv emits (they are also raised to the caller). Default: ignore. */
  onError?: StorageErrorListener;
  /** Told of every storage call's time and failure (metrics). Default: none. */
  observer?: StorageObserver;
}

export class UnsupportedStoreError extends TypeError {
  constructor() {
    super(
      'koa-silo cannot commit atomically on this Keyv store: use an in-memory Keyv, @keyv/redis (a single Redis or a Redis Cluster), ' +
        "silo-server's SqliteStore, or an adapter that implements koa-silo's AtomicAdapter",
    );
    this.name = 'UnsupportedStoreError';
  }
}

function parse<T>(text: string | undefined): T | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

export function createStorage(options: StorageOptions): SiloStorage {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS;
  const onError = options.onError ?? (() => undefined);
  const stores = new Map<Keyv, KeyvTextStore>();
  const textStore = (keyv: Keyv): KeyvTextStore => {
    let store = stores.get(keyv);
    if (!store) {
      configureKeyv(keyv, onError);
      store = new KeyvTextStore(keyv, timeoutMs, options.observer);
      stores.set(keyv, store);
    }
    return store;
  };
  const main = textStore(options.main);
  const regionStores = Object.fromEntries(
    REGIONS.map((region) => [region, textStore(options.regions?.[region] ?? options.main)]),
  ) as Record<Region, KeyvTextStore>;

  const redis = RedisNative.of(main.keyv, main);
  const keys = storageKeys(options.prefix, redis?.isCluster ?? false);
  const atomic = atomicFor(main, redis, onError);
  const indexOf = (keyOf: (account: string) => string) => (redis ? new RedisListIndex(redis, keyOf) : sortedListIndexFor(main, keyOf));
  const index = indexOf((account) => keys.index(account));
  const outbox = indexOf((account) => keys.outbox(account));
  // The audit log's indexes are named by their whole key (audit-records.ts).
  const auditIndex = indexOf((key) => key);
  if (!atomic || !index || !outbox || !auditIndex) throw new UnsupportedStoreError();
  const timing = { ...DEFAULT_LOCK_TIMING, ...options.lockTiming };
  const adapter: unknown = main.keyv.store;
  const lockKey = (name: string) => keys.lock(name);
  const locks: Locks = redis
    ? new LeaseLocks(new RedisLeases(redis), lockKey, timing)
    : hasCompareAndSwap(adapter)
      ? new LeaseLocks(new CasLeases(adapter, main), lockKey, timing)
      : new KeyedMutex();
  const owners = keys.clustered ? new SiloOwners(main, keys) : undefined;
  const generic = createAuditRecords({ main, keys, atomic, index: auditIndex });
  // A store's own audit log (one row per entry) where it has one; the generic layout elsewhere.
  const audit: AuditStorage = !redis && hasAuditLog(adapter) ? createAuditLogRecords({ main, keys, atomic, log: adapter.auditLog, legacy: generic }) : generic;
  const { auditWrites, appendAudit, listAudit, pruneAudit, importAudit } = audit;
  const versions = createVersions({ main, regions: regionStores, keys, atomic, locks, owners, audit });

  const readModifyWrite = readModifyWriteOf(main, atomic);

  /** A read-modify-write of a JSON list, committed only if the list is unchanged meanwhile; false when `decide` declines. */
  function changeList<T>(
    listKey: string,
    decide: (list: T[], raw: string | undefined) => Omit<Decision<boolean>, 'result'> | undefined,
  ): Promise<boolean> {
    return readModifyWrite([listKey], ([raw]) => {
      const plan = decide(parse<T[]>(raw) ?? [], raw);
      return plan ? { result: true, ...plan } : { result: false };
    });
  }

  const keyRecords = new ParsedRecords<StoredKey>();

  return {
    coordination: atomic.coordination,
    locks,
    index,

    async getAccount(name) {
      return parse<Account>(await main.get(keys.account(name)));
    },

    insertAccount(account) {
      const accountKey = keys.account(account.name);
      return locks.withLock(keys.accounts(), async () => {
        if ((await main.get(accountKey)) !== undefined) return false;
        // The list names every account, so checking it inside the compare-and-swap keeps two
        // writers of one name apart even when one of them went ahead without the lock.
        return changeList<string>(keys.accounts(), (names) =>
          names.includes(account.name)
            ? undefined
            : { set: [[accountKey, JSON.stringify(account)], [keys.accounts(), JSON.stringify([...names, account.name])]] },
        );
      });
    },

    async listAccountNames() {
      return parse<string[]>(await main.get(keys.accounts())) ?? [];
    },

    removeAccount(name) {
      const listKey = keys.accounts();
      const keyList = keys.keys(name);
      return locks.withLock(listKey, () =>
        // Its emptied list of keys goes too, and the list of accounts once it is empty: an import
        // undone leaves no record at all behind.
        readModifyWrite([listKey, keyList], ([raw, keysRaw]) => {
          const names = parse<string[]>(raw) ?? [];
          if (!names.includes(name)) return { result: false };
          if (keysRaw !== undefined && keysRaw !== '[]') throw new Error(`account ${JSON.stringify(name)} still has keys: remove them first`);
          const rest = names.filter((n) => n !== name);
          return {
            result: true,
            set: rest.length > 0 ? [[listKey, JSON.stringify(rest)]] : [],
            delete: [keys.account(name), ...(keysRaw !== undefined ? [keyList] : []), ...(rest.length > 0 ? [] : [listKey])],
          };
        }),
      );
    },

    isEmpty() {
      return storageIsEmpty(main, keys, async () => parse<string[]>(await main.get(keys.accounts())) ?? []);
    },

    async getKeyByHash(hash) {
      // Read on every keyed request: parsed once per stored text, like a silo's head.
      const text = await main.get(keys.key(hash));
      return text === undefined ? undefined : keyRecords.parse(text);
    },

    async listKeys(account) {
      return parse<StoredKey[]>(await main.get(keys.keys(account))) ?? [];
    },

    insertKey(key, entry?: NewAuditEntry, maxKeys = Number.POSITIVE_INFINITY) {
      const listKey = keys.keys(key.account);
      return locks.withLock(listKey, async () => {
        // Judged on the list the commit expects (judged again when it changed meanwhile).
        let outcome: KeyInsertion = 'inserted';
        await changeList<StoredKey>(listKey, (list) => {
          outcome = list.some((k) => k.type === key.type && k.name === key.name) ? 'taken' : list.length >= maxKeys ? 'full' : 'inserted';
          if (outcome !== 'inserted') return undefined;
          const recorded = auditWrites(entry, 'directory');
          return {
            set: [
              [keys.key(key.hash), JSON.stringify(key)],
              [listKey, JSON.stringify([...list, key])],
              ...recorded.set,
            ],
            indexAdd: recorded.indexAdd,
            auditAdd: recorded.auditAdd,
          };
        });
        return outcome;
      });
    },

    removeKey(account: string, type: KeyType, name: string, entry?: NewAuditEntry) {
      const listKey = keys.keys(account);
      return locks.withLock(listKey, async () => {
        let found: StoredKey | undefined;
        await changeList<StoredKey>(listKey, (list) => {
          found = list.find((k) => k.type === type && k.name === name);
          if (!found) return undefined;
          const recorded = auditWrites(entry, 'directory');
          return { set: [[listKey, JSON.stringify(list.filter((k) => k !== found))], ...recorded.set], delete: [keys.key(found.hash)], indexAdd: recorded.indexAdd, auditAdd: recorded.auditAdd };
        });
        return found;
      });
    },

    ...versions,
    ...createWebhookRecords({ main, keys, atomic, outbox, audit }),
    ...createConsoleRecords({ main, keys, readModifyWrite, audit }),
    appendAudit,
    listAudit,
    pruneAudit,
    importAudit,

    importSilo: createImportSilo({ main, regions: regionStores, keys, atomic, owners }),

    async close() {
      await Promise.all([...stores.keys()].map((keyv) => keyv.disconnect()));
    },
  };
}
