/**
 * Reaching past Keyv to the Redis client of a @keyv/redis adapter, for the few things a key-value
 * interface cannot do atomically across processes (sorted sets, locks).
 *
 * koa-silo does not depend on @keyv/redis: the adapter is recognised by its shape, and only
 * `sendCommand` of its client is used, so any node-redis 4/5 client works.
 */
import type { Keyv } from 'keyv';
import type { KeyvTextStore } from './keyv-text-store.js';
import { createHash } from 'node:crypto';
import { guarded } from './storage-guard.js';

const shas = new Map<string, string>();

function sha1Of(script: string): string {
  let sha = shas.get(script);
  if (sha === undefined) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
}

/** The one method of a node-redis client that Silo uses. */
export interface RedisCommandSender {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** The part of @keyv/redis's KeyvRedis that Silo relies on. */
interface KeyvRedisLike {
  getClient(): Promise<RedisCommandSender>;
  readonly client?: unknown;
  createKeyPrefix(key: string, namespace?: string): string;
  namespace?: string | undefined;
  isCluster(): boolean;
  opts: { dialect?: string };
}

function isKeyvRedis(store: unknown): store is KeyvRedisLike {
  if (typeof store !== 'object' || store === null) return false;
  const candidate = store as Partial<KeyvRedisLike>;
  return (
    typeof candidate.getClient === 'function' &&
    typeof candidate.createKeyPrefix === 'function' &&
    typeof candidate.isCluster === 'function' &&
    candidate.opts?.dialect === 'redis'
  );
}

/** Native commands on the Redis behind one Keyv, with key names exactly as Keyv would write them. */
export class RedisNative {
  constructor(
    private readonly adapter: KeyvRedisLike,
    private readonly text: KeyvTextStore,
  ) {}

  /**
   * A @keyv/redis adapter on a single Redis (or a sentinel group), else undefined. A Redis Cluster
   * is not used natively: Silo's multi-key scripts would need hash tags to stay in one slot.
   */
  static of(keyv: Keyv, text: KeyvTextStore): RedisNative | undefined {
    const store: unknown = keyv.store;
    if (!isKeyvRedis(store) || store.isCluster()) return undefined;
    return new RedisNative(store, text);
  }

  /** Whether `other` talks to Redis through the same client (so one script reaches both). */
  sharesClient(other: RedisNative): boolean {
    return this.adapter.client !== undefined && this.adapter.client === other.adapter.client;
  }

  /** The Redis key of a Silo key: Keyv's namespace prefix, then the adapter's. */
  redisKey(key: string): string {
    return this.adapter.createKeyPrefix(this.text.keyvKey(key), this.adapter.namespace);
  }

  /** One command, under the same time limit and error mapping as every other storage call. */
  send(args: readonly string[]): Promise<unknown> {
    return guarded(`redis ${args[0] ?? ''}`, this.text.timeoutMs, async () => {
      const client = await this.adapter.getClient();
      return client.sendCommand(args);
    });
  }

  /**
   * A Lua script by its SHA1 (EVALSHA), loaded with EVAL the first time the server lacks it: the
   * script text, and its hashing on the server, are not paid on every call.
   */
  script(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return guarded('redis EVALSHA', this.text.timeoutMs, async () => {
      const client = await this.adapter.getClient();
      const sha = sha1Of(script);
      try {
        return await client.sendCommand(['EVALSHA', sha, String(keys.length), ...keys, ...args]);
      } catch (error) {
        if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) throw error;
        return client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args]);
      }
    });
  }
}
