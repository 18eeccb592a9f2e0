/**
 * The bus on Redis (and Redis Cluster, where PUBLISH reaches every node): each event is published
 * on one channel of the storage's own and heard by every instance subscribed to it. An instance
 * delivers its own events at once and ignores their echo, so its subscribers do not wait on Redis,
 * nor miss its writes while the subscriber connection is away.
 *
 * The subscriber is a second connection (a connection in subscribe mode can do nothing else),
 * made from the storage's client with its settings; it reconnects and resubscribes by itself.
 */
import { randomBytes } from 'node:crypto';
import type { RedisNative } from '../storage/redis-native.js';
import { LocalBus } from './local-bus.js';
import type { EventBus, EventListener, SiloEvent } from './types.js';

/** What a node-redis client (single or cluster) in subscribe mode offers. */
export interface RedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): void;
}

interface Envelope {
  /** The publishing instance. */
  from: string;
  event: SiloEvent;
}

export class RedisBus implements EventBus {
  readonly #local = new LocalBus();
  readonly #id = randomBytes(8).toString('base64url');
  #subscriber: Promise<RedisSubscriber | undefined> | undefined;

  constructor(
    private readonly redis: RedisNative,
    private readonly channel: string,
    private readonly onError: (message: string, error: unknown) => void = () => undefined,
  ) {}

  publish(event: SiloEvent): void {
    this.#local.deliver(event);
    const envelope: Envelope = { from: this.#id, event };
    this.redis.send(['PUBLISH', this.channel, JSON.stringify(envelope)], this.channel).catch((error: unknown) => {
      this.onError('silo: an event could not be published to the other instances', error);
    });
  }

  subscribe(listener: EventListener): () => void {
    // The shared connection is made with the first subscriber: an instance nobody listens to
    // holds no second connection.
    this.#subscriber ??= this.#listen();
    return this.#local.subscribe(listener);
  }

  async #listen(): Promise<RedisSubscriber | undefined> {
    try {
      const subscriber = await this.redis.duplicate<RedisSubscriber>();
      subscriber.on('error', () => undefined);
      await subscriber.connect();
      await subscriber.subscribe(this.channel, (message) => {
        let envelope: Envelope;
        try {
          envelope = JSON.parse(message) as Envelope;
        } catch {
          return;
        }
        if (envelope.from !== this.#id) this.#local.deliver(envelope.event);
      });
      return subscriber;
    } catch (error) {
      this.onError('silo: cannot subscribe to the events of other instances; this instance sees only its own', error);
      this.#subscriber = undefined;
      return undefined;
    }
  }

  async close(): Promise<void> {
    const subscriber = await this.#subscriber;
    subscriber?.destroy();
    await this.#local.close();
  }
}
