/**
 * `koa-silo/testing`: the storage contract suite every storage engine runs (vitest; a dev
 * dependency of whoever runs it).
 */
export { storageContract, type StorageContractOptions } from './storage-contract.js';
