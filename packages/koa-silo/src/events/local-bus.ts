/**
 * The bus of one process: events go straight to this process's subscribers. Enough where the
 * storage is this process's own (an in-memory Map) and the base of the shared buses, which hand
 * what they receive to one of these.
 */
import type { EventBus, EventListener, SiloEvent } from '../model/index.js';

export class LocalBus implements EventBus {
  readonly #listeners = new Set<EventListener>();

  publish(event: SiloEvent): void {
    this.deliver(event);
  }

  /** Hands `event` to this process's subscribers; one that throws does not stop the others. */
  deliver(event: SiloEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure is its own (it closes its stream); the others still hear.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}
