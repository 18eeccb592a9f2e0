/**
 * A byte-budgeted LRU of values derived from a silo's data at one version: the parsed data for
 * reads with parameters, and the encoded response bodies of plain reads and get-silo. Each value
 * is charged the memory it really holds, as its loader states it: a Buffer its length, parsed
 * data the heap estimated from its text (heap-estimate.ts; not the text's length, which is up to
 * 21 times less: `[{},{},...]`).
 *
 * One entry per key (a silo, or a silo and a body shape), valid for one version only: the caller
 * always passes the version it has just read from storage, so an entry of an older version is
 * never served (it is replaced). Least recently used entries go first when the byte budget is
 * exceeded; a value larger than the whole budget is not kept.
 *
 * `load` also shares one loader between concurrent callers of the same key, version and `scope`
 * (who may see what the loader returns), so 20 concurrent cold reads of a 10 MB silo read and
 * encode it once.
 */

export interface Loaded<T> {
  /** The version the value is of (may be newer than the one asked for). */
  version: string;
  value: T;
  /** The memory it holds, for the budget. */
  bytes: number;
}

interface Entry<T> {
  version: string;
  value: T;
  bytes: number;
  /** Read since it was stored or last passed over by an eviction (its second chance). */
  used: boolean;
  /** The period (see dropIdle) it was last stored or read in. */
  seen: number;
}

export class VersionCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly loading = new Map<string, Promise<Loaded<T>>>();
  private bytes = 0;
  private period = 0;

  constructor(private readonly budget: number) {}

  /** The value of `key` at `version`, or undefined (then any entry of another version stays until replaced). */
  get(key: string, version: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit || hit.version !== version) return undefined;
    // Marked, not moved to the back: a hit is the hot path of every cached read (see evict).
    hit.used = true;
    hit.seen = this.period;
    return hit.value;
  }

  /**
   * The cached value of `key` at `version`, or what `loader` returns (kept under the version it
   * names). Concurrent calls with the same key, version and scope wait for one loader.
   */
  async load(key: string, version: string, scope: string, loader: () => Promise<Loaded<T>>): Promise<Loaded<T>> {
    const value = this.get(key, version);
    if (value !== undefined) return { version, value, bytes: 0 };
    const flight = `${key}\n${version}\n${scope}`;
    let pending = this.loading.get(flight);
    if (!pending) {
      pending = loader()
        .then((loaded) => {
          this.set(key, loaded.version, loaded.value, loaded.bytes);
          return loaded;
        })
        .finally(() => this.loading.delete(flight));
      this.loading.set(flight, pending);
    }
    return pending;
  }

  set(key: string, version: string, value: T, bytes: number): void {
    this.drop(key);
    if (bytes > this.budget) return;
    this.entries.set(key, { version, value, bytes, used: false, seen: this.period });
    this.bytes += bytes;
    if (this.bytes > this.budget) this.evict(key);
  }

  /**
   * Oldest first, but an entry read since it was stored or last passed over gets a second chance:
   * moved to the back with its mark cleared. Least recently used out first, as closely as a cache
   * needs, without a Map delete and insert on every read. `kept`, the entry just stored, is never
   * the one to go. (Each entry is passed over at most once before it can go, so this ends.)
   */
  private evict(kept: string): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(key);
      if (entry.used || key === kept) {
        entry.used = false;
        this.entries.set(key, entry);
      } else {
        this.bytes -= entry.bytes;
      }
    }
  }

  /**
   * Drops every entry neither stored nor read since the previous call, and starts a new period:
   * called every T, an unused entry goes after T to 2T. For holders whose entries cost while
   * merely kept (a worker's parses are marked by every collection of its heap).
   */
  dropIdle(): void {
    for (const [key, entry] of this.entries) {
      if (entry.seen !== this.period) this.drop(key);
    }
    this.period++;
  }

  drop(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held (for tests). */
  get heldBytes(): number {
    return this.bytes;
  }
}
