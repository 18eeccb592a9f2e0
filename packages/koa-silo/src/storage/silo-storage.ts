/**
 * `createStorage`: Silo's typed facade over Keyv. One main store (accounts, keys, silo metadata,
 * listing index) and one data store per region; any of them may be the same Keyv, since every
 * key carries Silo's own prefix (see storage-keys.ts).
 *
 * Atomicity is chosen by what the main store can do (see `Coordination`): Redis native commands,
 * an adapter's compare-and-swap, or in-process mutexes.
 */
import type { Keyv } from 'keyv';
import { REGIONS, type Account, type KeyType, type Region, type SiloDataRecord, type SiloRecord } from '../service/types.js';
import { CasLocks, hasCompareAndSwap } from './cas-locks.js';
import { decodeDataRecord, encodeDataRecord } from './data-record.js';
import { KeyedMutex } from './keyed-mutex.js';
import { configureKeyv, KeyvTextStore, type StorageErrorListener } from './keyv-text-store.js';
import { DEFAULT_LOCK_TIMING, RedisLocks, type LockTiming } from './redis-locks.js';
import { RedisListIndex } from './redis-list-index.js';
import { RedisNative } from './redis-native.js';
import { listIndexFor } from './sorted-list-index.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from './storage-guard.js';
import { storageKeys, type StorageKeys } from './storage-keys.js';
import type { Coordination, ListIndex, Locks, SiloStorage, StoredKey } from './types.js';

export interface StorageOptions {
  /** Accounts, keys, silo metadata and the listing index; also every region without its own. */
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
}

function parse<T>(text: string | undefined): T | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

interface Coordinated {
  coordination: Coordination;
  locks: Locks;
  index: ListIndex;
}

function coordinate(main: KeyvTextStore, keys: StorageKeys, timing: LockTiming): Coordinated {
  const redis = RedisNative.of(main.keyv, main);
  if (redis) {
    return { coordination: 'redis', locks: new RedisLocks(redis, keys, timing), index: new RedisListIndex(redis, keys) };
  }
  const adapter: unknown = main.keyv.store;
  if (hasCompareAndSwap(adapter)) {
    const locks = new CasLocks(adapter, main, keys, timing);
    return { coordination: 'compare-and-swap', locks, index: listIndexFor(main, keys, locks) };
  }
  const locks = new KeyedMutex();
  return { coordination: 'in-process', locks, index: listIndexFor(main, keys, locks) };
}

export function createStorage(options: StorageOptions): SiloStorage {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS;
  const onError = options.onError ?? (() => undefined);
  const keys = storageKeys(options.prefix);
  const stores = new Map<Keyv, KeyvTextStore>();
  const textStore = (keyv: Keyv): KeyvTextStore => {
    let store = stores.get(keyv);
    if (!store) {
      configureKeyv(keyv, onError);
      store = new KeyvTextStore(keyv, timeoutMs);
      stores.set(keyv, store);
    }
    return store;
  };
  const main = textStore(options.main);
  const regionStores = Object.fromEntries(
    REGIONS.map((region) => [region, textStore(options.regions?.[region] ?? options.main)]),
  ) as Record<Region, KeyvTextStore>;
  const { coordination, locks, index } = coordinate(main, keys, { ...DEFAULT_LOCK_TIMING, ...options.lockTiming });

  return {
    coordination,
    locks,
    index,

    async getAccount(name) {
      return parse<Account>(await main.get(keys.account(name)));
    },

    insertAccount(account) {
      return locks.withLock(keys.accounts(), async () => {
        if ((await main.get(keys.account(account.name))) !== undefined) return false;
        await main.set(keys.account(account.name), JSON.stringify(account));
        const names = parse<string[]>(await main.get(keys.accounts())) ?? [];
        if (!names.includes(account.name)) names.push(account.name);
        await main.set(keys.accounts(), JSON.stringify(names));
        return true;
      });
    },

    async listAccountNames() {
      return parse<string[]>(await main.get(keys.accounts())) ?? [];
    },

    async getKeyByHash(hash) {
      return parse<StoredKey>(await main.get(keys.key(hash)));
    },

    async listKeys(account) {
      return parse<StoredKey[]>(await main.get(keys.keys(account))) ?? [];
    },

    insertKey(key) {
      const listKey = keys.keys(key.account);
      return locks.withLock(listKey, async () => {
        const list = parse<StoredKey[]>(await main.get(listKey)) ?? [];
        if (list.some((k) => k.type === key.type && k.name === key.name)) return false;
        // The lookup record first: a key listed but not yet usable is harmless, the reverse is not.
        await main.set(keys.key(key.hash), JSON.stringify(key));
        list.push(key);
        await main.set(listKey, JSON.stringify(list));
        return true;
      });
    },

    removeKey(account: string, type: KeyType, name: string) {
      const listKey = keys.keys(account);
      return locks.withLock(listKey, async () => {
        const list = parse<StoredKey[]>(await main.get(listKey)) ?? [];
        const found = list.find((k) => k.type === type && k.name === name);
        if (!found) return undefined;
        // Unusable first, unlisted second: a crash in between leaves a listed key that fails.
        await main.delete(keys.key(found.hash));
        await main.set(listKey, JSON.stringify(list.filter((k) => k !== found)));
        return found;
      });
    },

    async getMeta(uuid) {
      return parse<SiloRecord>(await main.get(keys.meta(uuid)));
    },

    async getMetas(uuids) {
      const texts = await main.getMany(uuids.map((uuid) => keys.meta(uuid)));
      return texts.map((text) => parse<SiloRecord>(text));
    },

    async putMeta(record) {
      await main.set(keys.meta(record.file_uuid), JSON.stringify(record));
    },

    async deleteMeta(uuid) {
      await main.delete(keys.meta(uuid));
    },

    async getData(region, uuid): Promise<SiloDataRecord | undefined> {
      const raw = await regionStores[region].get(keys.data(region, uuid));
      return raw === undefined ? undefined : decodeDataRecord(raw);
    },

    async putData(region, record, text) {
      if (record.region_name !== region) throw new TypeError('a data record must live in its own region');
      await regionStores[region].set(keys.data(region, record.file_uuid), encodeDataRecord(record, text));
    },

    async deleteData(region, uuid) {
      await regionStores[region].delete(keys.data(region, uuid));
    },

    async close() {
      await Promise.all([...stores.keys()].map((keyv) => keyv.disconnect()));
    },
  };
}
