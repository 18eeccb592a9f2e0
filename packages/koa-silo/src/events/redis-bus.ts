/**
 * The transport of the shared bus on Redis (and Redis Cluster, where PUBLISH reaches every node):
 * one channel of the storage's own; the listener is a second connection (a connection in
 * subscribe mode can do nothing else), made from the storage's client with its settings, which
 * reconnects and resubscribes by itself.
 */
import type { RedisNative } from '../storage/redis-native.js';
import type { BusTransport } from './shared-bus.js';

/** What a node-redis client (single or cluster) in subscribe mode offers. */
interface RedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): void;
}

export function redisTransport(redis: RedisNative, channel: string): BusTransport {
  return {
    async send(text) {
      await redis.send(['PUBLISH', channel, text], channel);
    },
    async listen(hear) {
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
