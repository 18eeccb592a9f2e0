/**
 * The listing index on Redis: one sorted set per account, atomic across every process on that
 * Redis (ZADD and ZREM are single commands, so concurrent creates never lose an entry).
 *
 * The score is minus created_at in epoch milliseconds, so ascending order (ZRANGE) is newest
 * first, and Redis orders equal scores by member, giving ties by file_uuid ascending: the same
 * order as the JSON index. Epoch milliseconds are exact in a double.
 */
import type { RedisNative } from './redis-native.js';
import type { StorageKeys } from './storage-keys.js';
import type { IndexEntry, IndexPage, ListIndex } from './types.js';

export class RedisListIndex implements ListIndex {
  constructor(
    private readonly redis: RedisNative,
    private readonly keys: StorageKeys,
  ) {}

  #key(account: string): string {
    return this.redis.redisKey(this.keys.index(account));
  }

  async add(account: string, entry: IndexEntry): Promise<void> {
    await this.redis.send(['ZADD', this.#key(account), String(-entry.createdAtMs), entry.uuid]);
  }

  async remove(account: string, uuid: string): Promise<void> {
    await this.redis.send(['ZREM', this.#key(account), uuid]);
  }

  async page(account: string, offset: number, limit: number): Promise<IndexPage> {
    const key = this.#key(account);
    const [total, uuids] = await Promise.all([
      this.redis.send(['ZCARD', key]),
      this.redis.send(['ZRANGE', key, String(offset), String(offset + limit - 1)]),
    ]);
    return {
      total: Number(total),
      uuids: Array.isArray(uuids) ? uuids.map(String) : [],
    };
  }
}
