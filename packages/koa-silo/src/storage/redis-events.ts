/**
 * The transport of the shared bus on Redis (and Redis Cluster, where PUBLISH reaches every node):
 * one channel of the storage's own; the listener is a second connection (a connection in
 * subscribe mode can do nothing else), made from the storage's client with its settings, which
 * reconnects and resubscribes by itself.
 */
import type { BusTransport } from '../model/index.js';
import { RedisNative } from './redis-native.js';
import { KeyvTextStore } from './keyv-text-store.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from './storage-guard.js';
import { DEFAULT_PREFIX } from './storage-keys.js';
import type { Keyv } from 'keyv';

/** What a node-redis client (single or cluster) in subscribe mode offers. */
interface RedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): void;
}

/**
 * How the change feed's events travel between the instances sharing `main`: on Redis (or a
 * cluster), one pub/sub channel under the storage's prefix, and its database's number beyond 0
 * (pub/sub channels belong to the whole server, not to a database: deployments on two databases
 * of one Redis must not share one); undefined on any other store (the events then stay in their
 * process).
 */
export function eventTransportOf(main: Keyv, options: { prefix?: string | undefined; timeoutMs?: number | undefined }): BusTransport | undefined {
  const redis = RedisNative.of(main, new KeyvTextStore(main, options.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS));
  if (!redis) return undefined;
  const key = redis.redisKey(`${options.prefix ?? DEFAULT_PREFIX}:events`);
  let channel: Promise<string> | undefined;
  const channelName = () =>
    (channel ??= redis.database().then(
      (db) => (db === 0 ? key : `${key}:db${db}`),
      (error: unknown) => {
        channel = undefined; // asked again next time
        throw error;
      },
    ));
  return redisTransport(redis, channelName);
}

function redisTransport(redis: RedisNative, channelName: () => Promise<string>): BusTransport {
  return {
    async send(text) {
      const channel = await channelName();
      await redis.send(['PUBLISH', channel, text], channel);
    },
    async listen(hear) {
      const channel = await channelName();
      const subscriber = await redis.duplicate<RedisSubscriber>();
      subscriber.on('error', () => undefined);
      try {
        await subscriber.connect();
        await subscriber.subscribe(channel, hear);
      } catch (error) {
        subscriber.destroy();
        throw error;
      }
      return () => subscriber.destroy();
    },
  };
}
