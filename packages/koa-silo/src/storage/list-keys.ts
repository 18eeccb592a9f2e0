/**
 * Listing the keys under a prefix, for the orphan sweep: SCAN on Redis, a key range on an adapter
 * that offers one (silo-server's SqliteStore), the keys of an in-memory Map. Undefined for a store
 * that cannot list (its orphans, if any, stay).
 */
import type { KeyvTextStore } from './keyv-text-store.js';
import { RedisNative } from './redis-native.js';

/** An optional capability of a Keyv store adapter: the keys that start with a prefix. */
export interface KeyListingAdapter {
  keysWithPrefix(prefix: string): Promise<string[]> | string[];
}

function hasKeyListing(store: unknown): store is KeyListingAdapter {
  return typeof store === 'object' && store !== null && 'keysWithPrefix' in store && typeof store.keysWithPrefix === 'function';
}

/** Glob characters of Redis's MATCH, escaped. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Silo keys (as Silo names them) that start with `prefix` and, when `then` is given, hold `then`
 * somewhere after it.
 */
export async function listKeysWithPrefix(store: KeyvTextStore, prefix: string, then?: string): Promise<string[] | undefined> {
  const full = store.keyvKey(prefix);
  const strip = (key: string, fullPrefix: string) => prefix + key.slice(fullPrefix.length);
  const holdsThen = (key: string) => then === undefined || key.indexOf(then, prefix.length) >= 0;
  const redis = RedisNative.of(store.keyv, store);
  if (redis) {
    const redisPrefix = redis.redisKey(prefix);
    const pattern = `${globEscape(redisPrefix)}*${then === undefined ? '' : `${globEscape(then)}*`}`;
    return (await redis.scan(pattern)).map((key) => strip(key, redisPrefix));
  }
  const adapter: unknown = store.keyv.store;
  if (hasKeyListing(adapter)) return (await adapter.keysWithPrefix(full)).map((key) => strip(key, full)).filter(holdsThen);
  if (adapter instanceof Map) {
    return [...adapter.keys()]
      .filter((k): k is string => typeof k === 'string' && k.startsWith(full))
      .map((k) => strip(k, full))
      .filter(holdsThen);
  }
  return undefined;
}
