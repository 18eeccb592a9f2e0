export { createStorage, type StorageOptions } from './silo-storage.js';
export { DEFAULT_STORAGE_TIMEOUT_MS, StorageTimeoutError } from './storage-guard.js';
export { DEFAULT_LOCK_TIMING, type LockTiming } from './redis-locks.js';
export { DEFAULT_PREFIX, storageKeys, type StorageKeys } from './storage-keys.js';
export type {
  CompareAndSwapAdapter,
  Coordination,
  IndexEntry,
  IndexPage,
  ListIndex,
  Locks,
  SiloStorage,
  SortedIndex,
  SortedIndexAdapter,
  StoredKey,
} from './types.js';
