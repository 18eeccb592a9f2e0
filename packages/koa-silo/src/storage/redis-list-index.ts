/**
 * A per-account sorted index on Redis (the listing, the webhook outbox): one sorted set per
 * account, named by `keyOf(account)`, written only by commits (atomic.ts).
 *
 * The score is minus created_at in epoch milliseconds, so ascending order (ZRANGE) is newest
 * first, and Redis orders equal scores by member, giving ties by file_uuid ascending: the same
 * order as the JSON index. Epoch milliseconds are exact in a double.
 */
import type { RedisNative } from './redis-native.js';
import type { IndexPage, ListIndex } from './types.js';

export class RedisListIndex implements ListIndex {
  constructor(
    private readonly redis: RedisNative,
    private readonly keyOf: (account: string) => string,
  ) {}

  #key(account: string): string {
    return this.redis.redisKey(this.keyOf(account));
  }

  async count(account: string): Promise<number> {
    const key = this.#key(account);
    return Number(await this.redis.send(['ZCARD', key], key));
  }

  async page(account: string, offset: number, limit: number): Promise<IndexPage> {
    const key = this.#key(account);
    // No range for a page of none (ZRANGE 0 -1 would be every member).
    const [total, uuids] = await Promise.all([
      this.redis.send(['ZCARD', key], key),
      limit > 0 ? this.redis.send(['ZRANGE', key, String(offset), String(offset + limit - 1)], key) : [],
    ]);
    return {
      total: Number(total),
      uuids: Array.isArray(uuids) ? uuids.map(String) : [],
    };
  }
}
