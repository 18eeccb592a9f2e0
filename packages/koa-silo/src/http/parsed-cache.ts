/**
 * Parsed silo data for reads with parameters, so repeated queries do not parse the same text again.
 * One entry per silo, valid for one version only: the caller always passes the version it has just
 * read from storage, so an entry of an older version is never served (it is replaced). Least
 * recently used entries go first when the byte budget (measured in JSON text) is exceeded.
 */
export class ParsedCache {
  private readonly entries = new Map<string, { version: string; value: unknown; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** The parsed value of `text` (the silo's data at `version`), from the cache or parsed now. */
  get(uuid: string, version: string, text: string): unknown {
    const hit = this.entries.get(uuid);
    if (hit && hit.version === version) {
      this.entries.delete(uuid);
      this.entries.set(uuid, hit);
      return hit.value;
    }
    const value: unknown = JSON.parse(text);
    this.set(uuid, version, value, text.length);
    return value;
  }

  private set(uuid: string, version: string, value: unknown, bytes: number): void {
    this.drop(uuid);
    if (bytes > this.budget) return;
    this.entries.set(uuid, { version, value, bytes });
    this.bytes += bytes;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }

  drop(uuid: string): void {
    const old = this.entries.get(uuid);
    if (!old) return;
    this.entries.delete(uuid);
    this.bytes -= old.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
