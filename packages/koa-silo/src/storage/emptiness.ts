/**
 * Whether a storage holds nothing of Silo yet (what `silo import` requires of its target). No
 * account is the quick answer that a store is not empty; with none, the main store's keys are
 * listed too, so that a key or silo left without its account still counts. Locks are transient
 * and never count, nor does a list of accounts, keys, webhooks or users that is empty (what removing
 * the last one leaves). A store that cannot list its keys is judged by its accounts alone.
 */
import type { KeyvTextStore } from './keyv-text-store.js';
import { listKeysWithPrefix } from './list-keys.js';
import type { StorageKeys } from './storage-keys.js';

export async function storageIsEmpty(main: KeyvTextStore, keys: StorageKeys, accountNames: () => Promise<string[]>): Promise<boolean> {
  if ((await accountNames()).length > 0) return false;
  // Every key of Silo starts with the prefix and a colon (storage-keys.ts); a lock name with it.
  const lock = keys.lock('');
  const prefix = lock.slice(0, lock.indexOf(':') + 1);
  // Lists that removing their last entry leaves as "[]": of keys, webhooks, hooked accounts, users.
  const lists = [keys.keys(''), keys.webhooks(''), keys.hooked(), keys.users()];
  const names = (await listKeysWithPrefix(main, prefix)) ?? [];
  for (const name of names) {
    if (name.startsWith(lock)) continue;
    if ((name === keys.accounts() || lists.some((list) => name.startsWith(list))) && (await main.get(name)) === '[]') continue;
    return false;
  }
  return true;
}
