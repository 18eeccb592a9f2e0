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

/** The same method of a node-redis cluster client: the first key routes the command to its slot's node. */
export interface RedisClusterCommandSender {
  sendCommand(firstKey: string, isReadonly: boolean, args: readonly string[]): Promise<unknown>;
}

/** The part of @keyv/redis's KeyvRedis that Silo relies on. */
interface KeyvRedisLike {
  getClient(): Promise<(RedisCommandSender | RedisClusterCommandSender) & { duplicate(): unknown }>;
  /** The client itself on a single Redis; a client per master on a cluster. */
  getMasterNodes(): Promise<RedisCommandSender[]>;
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
    typeof candidate.getMasterNodes === 'function' &&
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
   * A @keyv/redis adapter (on a single Redis, a sentinel group or a Redis Cluster), else undefined.
   * On a cluster, every command names the key that routes it, and Silo's keys carry hash tags
   * (storage-keys.ts) so that each multi-key script stays within one slot.
   */
  static of(keyv: Keyv, text: KeyvTextStore): RedisNative | undefined {
    const store: unknown = keyv.store;
    if (!isKeyvRedis(store)) return undefined;
    return new RedisNative(store, text);
  }

  /** Whether this Redis is a cluster (keys must then be placed in slots with hash tags). */
  get isCluster(): boolean {
    return this.adapter.isCluster();
  }

  /** Whether `other` talks to Redis through the same client (so one script reaches both). */
  sharesClient(other: RedisNative): boolean {
    return this.adapter.client !== undefined && this.adapter.client === other.adapter.client;
  }

  /** The Redis key of a Silo key: Keyv's namespace prefix, then the adapter's. */
  redisKey(key: string): string {
    return this.adapter.createKeyPrefix(this.text.keyvKey(key), this.adapter.namespace);
  }

  /**
   * One command, under the same time limit and error mapping as every other storage call.
   * `routingKey` (a Redis key) picks the node on a cluster: the command's key, or for SCAN a key of
   * the slot to scan.
   */
  send(args: readonly string[], routingKey: string): Promise<unknown> {
    return guarded(`redis ${args[0] ?? ''}`, this.text, () => this.#sendNow(args, routingKey));
  }

  async #sendNow(args: readonly string[], routingKey: string | undefined): Promise<unknown> {
    const client = await this.adapter.getClient();
    return this.adapter.isCluster()
      ? (client as RedisClusterCommandSender).sendCommand(routingKey ?? '', false, args)
      : (client as RedisCommandSender).sendCommand(args);
  }

  /** The database number the client uses (0 on a cluster, which has no other). */
  async database(): Promise<number> {
    if (this.adapter.isCluster()) return 0;
    const client = (await this.adapter.getClient()) as { options?: { database?: number } };
    return client.options?.database ?? 0;
  }

  /** A new, unconnected client with this one's settings (for a connection in subscribe mode). */
  async duplicate<T>(): Promise<T> {
    return (await this.adapter.getClient()).duplicate() as T;
  }

  /** Every key matching `pattern` (SCAN's MATCH), on every master of a cluster. */
  async scan(pattern: string): Promise<string[]> {
    const nodes = await guarded('redis SCAN', this.text, () => this.adapter.getMasterNodes());
    const out: string[] = [];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const reply = (await guarded('redis SCAN', this.text, () =>
          node.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']),
        )) as [unknown, unknown[]];
        cursor = String(reply[0]);
        for (const key of reply[1]) out.push(String(key));
      } while (cursor !== '0');
    }
    return out;
  }

  /**
   * A Lua script by its SHA1 (EVALSHA), loaded with EVAL the first time the server lacks it: the
   * script text, and its hashing on the server, are not paid on every call.
   */
  script(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return guarded('redis EVALSHA', this.text, async () => {
      const sha = sha1Of(script);
      try {
        return await this.#sendNow(['EVALSHA', sha, String(keys.length), ...keys, ...args], keys[0]);
      } catch (error) {
        if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) throw error;
        return this.#sendNow(['EVAL', script, String(keys.length), ...keys, ...args], keys[0]);
      }
    });
  }
}
