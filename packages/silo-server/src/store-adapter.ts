/**
 * What silo-server's Keyv store adapters (SQLite, PostgreSQL) share: the event methods Keyv calls
 * on an adapter, and key ranges by prefix (keys are compared byte-wise on both stores).
 */

type Listener = (...args: unknown[]) => void;

export class AdapterEvents {
  readonly #listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), listener]);
    return this;
  }

  off(event: string, listener: Listener): this {
    const list = this.#listeners.get(event);
    if (list) this.#listeners.set(event, list.filter((l) => l !== listener));
    return this;
  }

  /** Never throws for an `error` without listeners (unlike node's EventEmitter). */
  emit(event: string, ...args: unknown[]): boolean {
    const list = this.#listeners.get(event);
    if (!list || list.length === 0) return false;
    for (const listener of [...list]) listener(...args);
    return true;
  }
}

/** The first string after every string that starts with `prefix`: `ns:` → `ns;`. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
