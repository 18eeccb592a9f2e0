/**
 * A Keyv instance seen as a store of strings: what Silo writes is what the backend holds, byte for
 * byte, and what it reads back is that same string.
 *
 * Keyv's default serializer wraps every value in `{"value": ..., "expires": ...}` and JSON-encodes
 * it again, so a 10 MB JSON text would be escaped into a string inside JSON on every write and
 * unescaped on every read (several times slower than the text itself). Silo does its own JSON for
 * its small records and stores data texts as they are, so it configures each Keyv it is given:
 *
 * - serialize/deserialize are the identity on strings (no `expires`: Silo never sets a TTL),
 * - `ttl` and compression are turned off (a record that expired would be a silo lost),
 * - `throwOnErrors` is on, also on the adapter when it has that switch (@keyv/redis swallows errors
 *   and answers "not found" without it, which would turn an outage into 404s),
 * - an 'error' listener is attached so that emitted errors are reported, never unhandled.
 *
 * Give Silo Keyv instances of its own (or ones whose other users accept these settings).
 */
import type { DeserializedData, Keyv } from 'keyv';
import { guarded, type GuardLimits, type StorageObserver } from './storage-guard.js';

export type StorageErrorListener = (error: unknown) => void;

function serializeText<Value>(data: DeserializedData<Value>): string {
  if (typeof data.value !== 'string') throw new TypeError('Silo storage stores strings only');
  return data.value;
}

function deserializeText<Value>(text: string): DeserializedData<Value> {
  return { value: text as Value };
}

/** Adapters that can be told to throw instead of swallowing errors (@keyv/redis). */
interface ThrowingSwitch {
  throwOnErrors: boolean;
}

function hasThrowSwitch(store: unknown): store is ThrowingSwitch {
  return typeof store === 'object' && store !== null && 'throwOnErrors' in store;
}

/** Adapters that read many keys at once (one MGET on Redis). */
interface ManyReader {
  getMany(keys: string[]): Promise<unknown[]>;
}

/** Adapters that read a value known to be large off the event loop (silo-server's SQLite store). */
interface LargeReader {
  getLarge(key: string): Promise<string | undefined>;
}

/**
 * Adapters that hold some values in memory, proven current (silo-server's SQLite store): `cached`
 * answers synchronously, a value, null (known absent) or undefined (not held: read it).
 */
interface CachedReader {
  cached(key: string): string | null | undefined;
}

/** Adapters that delete a value known to be large off the event loop (silo-server's SQLite store). */
interface LargeDeleter {
  deleteLarge(key: string): Promise<void>;
}

/** Whether the adapter `store` has the optional method `method` of `T`. */
function hasMethod<T>(store: unknown, method: keyof T & string): store is T {
  return typeof store === 'object' && store !== null && method in store && typeof (store as Record<string, unknown>)[method] === 'function';
}

const configured = new WeakSet<Keyv>();

/** Applies Silo's settings to `keyv` (idempotent). */
export function configureKeyv(keyv: Keyv, onError: StorageErrorListener): void {
  if (configured.has(keyv)) return;
  configured.add(keyv);
  keyv.serialize = serializeText;
  keyv.deserialize = deserializeText;
  keyv.ttl = undefined;
  keyv.compression = undefined;
  keyv.throwOnErrors = true;
  const store: unknown = keyv.store;
  if (hasThrowSwitch(store)) store.throwOnErrors = true;
  keyv.on('error', onError);
}

export class KeyvTextStore implements GuardLimits {
  /** 0 for an in-process Map, which cannot hang; the configured limit otherwise. */
  readonly #timeoutMs: number;

  /**
   * A read answered in memory, without Keyv's round of hooks and promises or a time limit's timer
   * (it cannot hang): an in-process Map's value, or what a caching adapter holds. Most requests read
   * a key record and a head, so this is most of what a small read asks of storage. The observer
   * is told of it as a read that took no time.
   */
  readonly #peek: ((key: string) => string | null | undefined) | undefined;

  constructor(
    readonly keyv: Keyv,
    timeoutMs: number,
    /** Told of every call into this store (guarded() with this store's limits). */
    readonly observer?: StorageObserver,
  ) {
    const store: unknown = keyv.store;
    this.#timeoutMs = store instanceof Map ? 0 : timeoutMs;
    // A plain Map only: a subclass may do more in its get (a test's store holds reads), which a
    // second call, through Keyv, would do again. A value that is no string goes through Keyv.
    if (store instanceof Map && Object.getPrototypeOf(store) === Map.prototype) {
      this.#peek = (key) => {
        const value: unknown = store.get(this.keyvKey(key));
        return typeof value === 'string' ? value : value === undefined ? null : undefined;
      };
    } else if (hasMethod<CachedReader>(store, 'cached')) {
      this.#peek = (key) => store.cached(this.keyvKey(key));
    }
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  get(key: string): Promise<string | undefined> {
    const known = this.#peek?.(key);
    if (known !== undefined) {
      this.observer?.call('get', 0, undefined);
      return Promise.resolve(known ?? undefined);
    }
    return guarded('get', this, async () => {
      const value: unknown = await this.keyv.get(key);
      return typeof value === 'string' ? value : undefined;
    });
  }

  /**
   * A value its caller knows to be large (a silo's data, by its size): through the adapter's
   * `getLarge` where it has one (it reads off the event loop), else as `get`. The adapter is
   * called directly, with the key prefixed, as `getMany` calls it.
   */
  getLarge(key: string): Promise<string | undefined> {
    const store = this.keyv.store as unknown;
    if (!hasMethod<LargeReader>(store, 'getLarge')) return this.get(key);
    return guarded('get', this, async () => {
      const value = await store.getLarge(this.keyvKey(key));
      return typeof value === 'string' ? value : undefined;
    });
  }

  /**
   * Many keys in one call where the adapter has `getMany` (one MGET on Redis). Keyv's own fallback
   * without `getMany` turns failures into "missing" (Promise.allSettled), so Silo fans out itself.
   * The adapter is called directly, with each key prefixed as `get` prefixes it: Keyv's array
   * path prefixes keys that already start with its namespace a second time (a Keyv with namespace
   * `silo` would then miss every `silo:` key of a listing).
   */
  getMany(keys: string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    const store = this.keyv.store as unknown;
    if (!hasMethod<ManyReader>(store, 'getMany')) return Promise.all(keys.map((key) => this.get(key)));
    return guarded('getMany', this, async () => {
      const values = await store.getMany(keys.map((key) => this.keyvKey(key)));
      return values.map((value) => (typeof value === 'string' ? value : undefined));
    });
  }

  set(key: string, text: string): Promise<void> {
    return guarded('set', this, async () => {
      const ok = await this.keyv.set(key, text);
      if (ok === false) throw new Error('storage refused a write');
    });
  }

  delete(key: string): Promise<void> {
    return guarded('delete', this, async () => {
      await this.keyv.delete(key);
    });
  }

  /** A value its caller knows to be large, deleted as getLarge reads one. */
  deleteLarge(key: string): Promise<void> {
    const store = this.keyv.store as unknown;
    if (!hasMethod<LargeDeleter>(store, 'deleteLarge')) return this.delete(key);
    return guarded('delete', this, () => store.deleteLarge(this.keyvKey(key)));
  }

  /** The key as the adapter sees it, after Keyv's namespace prefix (for native commands). */
  keyvKey(key: string): string {
    return this.keyv._getKeyPrefix(key);
  }
}
