export { createStorage, UnsupportedStoreError, type StorageOptions } from './silo-storage.js';
export { DEFAULT_STORAGE_TIMEOUT_MS, StorageTimeoutError, type StorageObserver } from './storage-guard.js';
export { AuditScanTooLargeError, MAX_AUDIT_SCAN } from './audit-records.js';
export { DEFAULT_LOCK_TIMING, type LockTiming } from './lease-locks.js';
export { DEFAULT_PREFIX, storageKeys, type StorageKeys } from './storage-keys.js';
export { DEFAULT_SWEEP_GRACE_MS } from './silo-records.js';
export type { KeyListingAdapter } from './list-keys.js';
export { eventTransportOf } from './redis-events.js';
export { runPeriodically, startSweeper } from './sweeper.js';
export type { HeldLock } from './types.js';
export type {
  AtomicAdapter,
  AtomicBatch,
  AuditListing,
  AuditLog,
  AuditLogAdapter,
  AuditLogFilter,
  AuditRecords,
  AuditRow,
  CompareAndSwapAdapter,
  Coordination,
  ImportedSilo,
  ImportedVersion,
  IndexPage,
  KeyInsertion,
  ListIndex,
  Locks,
  NewSilo,
  NextVersion,
  SiloHead,
  SiloStorage,
  SortedIndex,
  SortedIndexAdapter,
  StoredKey,
  SweepReport,
  VersionEntry,
} from './types.js';
