/**
 * The change feed's vocabulary (contract §11): what a committed write tells subscribers, and the
 * bus that carries it to every instance sharing the storage.
 */
import type { Region, SiloMeta } from './silo.js';

/** What happened to a silo: made, changed in place, moved to another region, removed. */
export type SiloEventType = 'create' | 'update' | 'move' | 'delete';

/** A committed write, as every instance hears of it. Small: data is read from storage when wanted. */
export interface SiloEvent {
  type: SiloEventType;
  account: string;
  /** The silo's metadata after the write (before it, for a delete), and the version it made. */
  silo: SiloMeta & { version: number };
  /** On a move: the region the silo left. */
  from_region?: Region;
}

export type EventListener = (event: SiloEvent) => void;

/**
 * Carries events between instances: in-process on one process's stores, Redis pub/sub on Redis
 * and Redis Cluster, LISTEN/NOTIFY on PostgreSQL. Delivery is best effort (a subscriber that missed
 * an event notices the gap in versions and reads it from history), so a bus never blocks a write.
 */
export interface EventBus {
  /** Sends `event` to every subscriber of every instance (this one included). Never throws. */
  publish(event: SiloEvent): void;
  /** Calls `listener` with every event from now on; returns the unsubscribe. */
  subscribe(listener: EventListener): () => void;
  /**
   * Resolves once the events published so far have left for the other instances (or failed to),
   * within a bound: a Silo waits for it before closing its storage, which the transport may use.
   */
  settled?(): Promise<void>;
  close(): Promise<void>;
}

/** How events travel between instances. */
export interface BusTransport {
  /**
   * Sends one message to every listener (this instance's too). An `ordered` transport resolves
   * false when it sent nothing because nobody listens anywhere.
   */
  send(text: string): Promise<void | boolean>;
  /** Starts listening (once, with the first subscriber); resolves to the stop. */
  listen(hear: (text: string) => void): Promise<() => Promise<void> | void>;
  /**
   * Every instance hears every message in one order, its own included (a table read in order):
   * an instance then delivers its own events as it hears them back, not at once, so that its
   * subscribers see the same order as everyone else's (one silo's create, update and delete, made
   * through different instances, in the order they happened).
   */
  readonly ordered?: boolean;
}
