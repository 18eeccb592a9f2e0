/**
 * The bus a Silo uses unless given one: Redis pub/sub when its main store is @keyv/redis (every
 * instance on that Redis, or cluster, hears every write), otherwise this process only.
 */
import type { Keyv } from 'keyv';
import { KeyvTextStore } from '../storage/keyv-text-store.js';
import { RedisNative } from '../storage/redis-native.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from '../storage/storage-guard.js';
import { DEFAULT_PREFIX } from '../storage/storage-keys.js';
import { LocalBus } from './local-bus.js';
import { redisTransport } from './redis-bus.js';
import { SharedBus } from './shared-bus.js';
import type { EventBus } from '../model/index.js';

export function defaultEventBus(
  main: Keyv,
  options: { prefix?: string | undefined; timeoutMs?: number | undefined; onError: (message: string, error: unknown) => void },
): EventBus {
  const text = new KeyvTextStore(main, options.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS);
  const redis = RedisNative.of(main, text);
  if (!redis) return new LocalBus();
  return new SharedBus(redisTransport(redis, redis.redisKey(`${options.prefix ?? DEFAULT_PREFIX}:events`)), options.onError);
}
